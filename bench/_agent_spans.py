"""Spans as filon's own agent emits them, for benchmarks: the simulated customers talk to the real agent
(official google-genai instrumentation, scripted model over HTTP on loopback), the spans are captured
through filon's tracing set-up, then repeated under fresh trace and conversation ids up to the size
wanted. Much larger than `_spans.py`'s minimal shape: a model call carries the system instructions, the
tool definitions and the whole history, kilobytes of JSON each.
"""

from __future__ import annotations

import dataclasses
from functools import cache

from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from filon.tracing.grouping import CONVERSATION
from filon.tracing.records import SpanRecord, from_sdk

CONVERSATIONS = 40


@cache
def _captured() -> tuple[SpanRecord, ...]:
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
