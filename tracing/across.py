"""Tool calls whose trace does not hold everything about them, read across the traces of one batch.

A stack that makes each model call a trace of its own (a client loop with no parent span) leaves a
call's result in the next call's input, in another trace; a stack that records only a turn's last model
call leaves the turn's earlier calls in that call's history, which another trace may hold as its own.
Ingest reads each trace as a turn (`tracing.grouping.turn_of`), then settles both here, by call id,
within each conversation: call ids are not unique across conversations (tau-bench's GPT-4o trials
share some), and one batch may hold another customer's conversation reusing the id.
"""

from __future__ import annotations

from collections import Counter

from filon.miner.core.model import Turn
from filon.tracing.conventions import envelopes, readable
from filon.tracing.grouping import MODEL_OPS, op
from filon.tracing.records import SpanRecord
from filon.tracing.tool_calls import answered, answered_names

UNNAMED = "trace:"  # the conversation id of a trace that named none (`tracing.grouping`)


def results_elsewhere(
    traces: dict[str, list[SpanRecord]], grouped: dict[str, list[Turn]], span_conv: dict[str, str]
) -> None:
    """`results_across` within each conversation: a call takes a result only from a trace of its own
    conversation, or of none named (a stack that names no conversation makes each model call a
    conversation of its own). Call ids are not unique across conversations: models reuse them (`call_0`),
    and a result read back in another customer's conversation is not this call's."""
    unnamed = {t: spans for t, spans in traces.items() if span_conv.get(t, UNNAMED).startswith(UNNAMED)}
    loose = [t for cid, turns in grouped.items() if cid.startswith(UNNAMED) for t in turns]
    if loose:
        results_across(traces, loose)
    named = [cid for cid in grouped if not cid.startswith(UNNAMED) and _unsettled(grouped[cid])]
    if not named:
        return
    own: dict[str, dict[str, list[SpanRecord]]] = {cid: dict(unnamed) for cid in named}
    for trace_id, spans in traces.items():
        if (cid := span_conv.get(trace_id, UNNAMED)) in own:
            own[cid][trace_id] = spans
    for cid in named:
        results_across(own[cid], grouped[cid])


def _unsettled(turns: list[Turn]) -> bool:
    """Whether a call of these turns waits for its result or was read from a history."""
    return any(c.earlier or (c.result is None and c.call_id) for t in turns for c in t.tools)


def results_across(traces: dict[str, list[SpanRecord]], turns: list[Turn]) -> None:
    """A call whose result its own trace never held (each model call a trace of its own: the result is
    only in the next call's input) gets it from whichever of these traces read it back, by call id;
    a call read from a model call's history that another trace holds as its own is that trace's."""
    if any(c.earlier for t in turns for c in t.tools):
        made = {c.call_id for t in turns for c in t.tools if c.call_id and not c.earlier}
        for t in turns:
            if any(c.earlier for c in t.tools):
                t.tools = [c for c in t.tools if not (c.earlier and c.call_id in made)]
    waiting = [c for t in turns for c in t.tools if c.result is None and c.call_id]
    if not waiting:
        return
    ids = Counter(c.call_id for t in turns for c in t.tools if c.call_id)
    waiting = [c for c in waiting if ids[c.call_id or ""] == 1]  # an id a model reused says nothing
    if not waiting:
        return
    models = [s for spans in traces.values() for s in readable(spans) if op(s) in MODEL_OPS]
    found = answered(models)
    names = answered_names(models) if any(c.call_id in found for c in waiting) else {}
    for call in waiting:
        asked = names.get(call.call_id or "", set())
        if call.call_id in found and (not asked or asked == {call.name}):
            call.result = envelopes.result(found[call.call_id])[0]
