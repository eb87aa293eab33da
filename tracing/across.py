"""Tool calls whose trace does not hold everything about them, read across the traces of one batch.

A stack that makes each model call a trace of its own (a client loop with no parent span) leaves a
call's result in the next call's input, in another trace; a stack that records only a turn's last model
call leaves the turn's earlier calls in that call's history, which another trace may hold as its own.
Ingest reads each trace as a turn (`tracing.grouping.turn_of`), then settles both here, by call id,
within each conversation: call ids are not unique across conversations (tau-bench's GPT-4o trials
share some), and one batch may hold another customer's conversation reusing the id.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from filon.miner.core.jsontext import parsed
from filon.miner.core.model import Turn
from filon.tracing.conventions import envelopes, readable
from filon.tracing.grouping import MODEL_OPS, op
from filon.tracing.records import SpanRecord
from filon.tracing.tool_calls import INPUT, message_parts

UNNAMED = "trace:"  # the conversation id of a trace that named none (`tracing.grouping`)


def results_elsewhere(
    traces: dict[str, list[SpanRecord]], grouped: dict[str, list[Turn]], span_conv: dict[str, str]
) -> None:
    """`results_across` within each conversation: a call takes a result only from a trace of its own
    conversation; the traces that name none (a stack that names no conversation makes each model call a
    conversation of its own) only from one another. Call ids are not unique across conversations: models
    reuse them (`call_0`), and a result read back in another customer's conversation is not this call's,
    nor one read back in a trace whose conversation is still to come (its span in a later batch)."""
    unnamed = {t: spans for t, spans in traces.items() if span_conv.get(t, UNNAMED).startswith(UNNAMED)}
    loose = [t for cid, turns in grouped.items() if cid.startswith(UNNAMED) for t in turns]
    if loose:
        results_across(unnamed, loose)
    named = [cid for cid in grouped if not cid.startswith(UNNAMED) and _unsettled(grouped[cid])]
    if not named:
        return
    own: dict[str, dict[str, list[SpanRecord]]] = {cid: {} for cid in named}
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
    keys = Counter(_key(c.call_id or "", c.name, c.arguments) for c in waiting)
    waiting = [c for c in waiting if keys[_key(c.call_id or "", c.name, c.arguments)] == 1]
    if not waiting:
        return  # the same call twice, id, tool and arguments alike: whose result is whose cannot be told
    models = [s for spans in traces.values() for s in readable(spans) if op(s) in MODEL_OPS]
    found = answered_calls(models)
    for call in waiting:
        key = _key(call.call_id or "", call.name, call.arguments)
        if key in found:
            call.result = envelopes.result(found[key])[0]


def _key(call_id: str, name: str, arguments: Any) -> tuple[str, str, str]:
    """A call as its id, its tool and its arguments (in one order, whatever order each place wrote them)."""
    plain = arguments if type(arguments) is dict else {}
    return call_id, name, json.dumps(plain, sort_keys=True, ensure_ascii=False, default=str)


def answered_calls(models: list[SpanRecord]) -> dict[tuple[str, str, str], Any]:
    """Every result these calls' inputs read back, by the call it answers: the request under the same id
    just before it in the same input, its tool and its arguments. A model may reuse an id, for another
    tool or for the same tool on another record: the result is that request's, not the id's."""
    out: dict[tuple[str, str, str], Any] = {}
    for s in models:
        asked: dict[str, tuple[str, str, str]] = {}
        for part in message_parts(s.attributes.get(INPUT)):
            call_id = str(part.get("id") or "")
            if call_id and part.get("type") == "tool_call" and part.get("name"):
                asked[call_id] = _key(call_id, str(part["name"]), parsed(part.get("arguments")))
            elif call_id in asked and part.get("type") == "tool_call_response":
                out.setdefault(asked[call_id], part.get("response", part.get("result")))
    return out
