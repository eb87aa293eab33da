"""Spans as filon's own agent emits them, for benchmarks: the simulated customers talk to the real agent
(official google-genai instrumentation, scripted model over HTTP on loopback), the spans are captured
through filon's tracing set-up, then repeated under fresh trace and conversation ids up to the size
wanted. Much larger than `_spans.py`'s minimal shape: a model call carries the system instructions, the
tool definitions and the whole history, kilobytes of JSON each.

The captured spans are kept in `fixtures/agent_spans.json.gz` and read from there: a recording's ids,
times, port and interleaving (four customers at once) differ from one run to the next, and with them the
instructions a benchmark counts (4% between two runs); read from the file, two runs count the same work.
`python bench/_agent_spans.py --record` records them again (after the agent or its spans change).
"""

from __future__ import annotations

import dataclasses
import gzip
import sys
from functools import cache
from pathlib import Path

from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from filon.tracing.grouping import CONVERSATION
from filon.tracing.records import SpanRecord, from_sdk, pack, unpack

CONVERSATIONS = 40
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "agent_spans.json.gz"


@cache
def _captured() -> tuple[SpanRecord, ...]:
    if FIXTURE.exists():
        return tuple(unpack(gzip.decompress(FIXTURE.read_bytes())))
    return _record()


def _record() -> tuple[SpanRecord, ...]:
    from filon.agent.model import open_backend
    from filon.agent.prompts import load_prompt
    from filon.agent.traffic import run_traffic
    from filon.tracing.setup import ensure_tracing

    fanout = ensure_tracing()
    memory = InMemorySpanExporter()
    processor = SimpleSpanProcessor(memory)
    fanout.add(processor)
    try:
        with open_backend("scripted") as backend:
            run_traffic(backend, load_prompt(None), CONVERSATIONS, seed=7, concurrency=4)
    finally:
        fanout.remove(processor)
    return tuple(from_sdk(s) for s in memory.get_finished_spans())


def agent_traffic(turns: int) -> list[SpanRecord]:
    """At least `turns` turns of the agent's spans (whole conversations), fresh copies at each call."""
    base = _captured()
    per_round = len({r.trace_id for r in base})
    out: list[SpanRecord] = []
    for n in range(-(-turns // per_round)):
        for r in base:
            attributes = dict(r.attributes)
            if attributes.get(CONVERSATION):
                attributes[CONVERSATION] = f"{attributes[CONVERSATION]}~{n}"
            out.append(dataclasses.replace(r, trace_id=f"{n:08x}{r.trace_id[8:]}", attributes=attributes))
    return out


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    FIXTURE.parent.mkdir(exist_ok=True)
    spans = _record()
    FIXTURE.write_bytes(gzip.compress(pack(list(spans)).encode(), mtime=0))
    print(f"{len(spans)} spans of {len({r.trace_id for r in spans})} turns -> {FIXTURE}")
