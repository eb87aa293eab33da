"""Tool calls whose trace does not hold everything about them, read across the traces of one batch.

A stack that makes each model call a trace of its own (a client loop with no parent span) leaves a
call's result in the next call's input, in another trace; a stack that records only a turn's last model
call leaves the turn's earlier calls in that call's history, which another trace may hold as its own.
Ingest reads each trace as a turn (`tracing.grouping.turn_of`), then settles both here, by call id.
"""

from __future__ import annotations

from collections import Counter

from filon.miner.core.model import Turn
from filon.tracing.conventions import envelopes, readable
from filon.tracing.grouping import MODEL_OPS, op
from filon.tracing.records import SpanRecord
from filon.tracing.tool_calls import answered


def results_elsewhere(traces: dict[str, list[SpanRecord]], turns: list[Turn]) -> None:
    """A call whose result its own trace never held (each model call a trace of its own: the result is
    only in the next call's input) gets it from whichever trace of the batch read it back, by call id;
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
    for call in waiting:
        if call.call_id in found:
            call.result = envelopes.result(found[call.call_id])[0]
