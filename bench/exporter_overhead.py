"""filon's exporter on the agent's thread, per span, as a ratio to the SDK's BatchSpanProcessor.

Side by side in one run: the same agent-shaped traces (a root and three children with GenAI
attributes) made on the main thread under (a) `BatchSpanProcessor` with a no-op exporter and (b) filon's
tail sampler feeding its store exporter (a real SQLite store, rate 0.1, flags and redaction on its own
thread). What is timed is the agent's thread only: making and ending spans. Goal: ratio at most 1.5.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from collections.abc import Sequence

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from miner.store import Store
from tracing.decider import Decider
from tracing.exporter import StoreExporter
from tracing.ingest import Ingestor
from tracing.redact import Redactor
from tracing.sampler import TailSampler

TRACES = 2000
ROUNDS = 5
ANSWER = json.dumps(
    [{"role": "assistant", "parts": [{"type": "text", "content": "Votre colis est en transit."}]}]
)
MESSAGE = json.dumps(
    [{"role": "user", "parts": [{"type": "text", "content": "Où en est ma commande LL-10563 ?"}]}]
)


class NoOp(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return


def make_traces(provider: TracerProvider, offset: int) -> float:
    tracer = provider.get_tracer("bench")
    start = time.perf_counter()
    for i in range(TRACES):
        attrs = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": f"web:b-{offset}-{i}",
            "gen_ai.input.messages": MESSAGE,
            "gen_ai.output.messages": ANSWER,
        }
        root = tracer.start_span("invoke_agent support", attributes=attrs)
        ctx = trace.set_span_in_context(root)
        for name in ("generate_content m", "execute_tool suivre_colis", "generate_content m"):
            tracer.start_span(name, context=ctx, attributes={"gen_ai.operation.name": name.split()[0]}).end()
        root.end()
    return (time.perf_counter() - start) / (TRACES * 4)


def timed(processor: SpanProcessor, offset: int) -> float:
    provider = TracerProvider()
    provider.add_span_processor(processor)
    per_span = make_traces(provider, offset)
    provider.shutdown()
    return per_span


def decision_us_per_trace() -> float:
    """The sampler's per-trace decision (conversion, grouping, flags) alone, on the same traces:
    the work that runs on the exporter's thread and competes with the agent's for the GIL."""
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from tracing.records import from_sdk

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    make_traces(provider, 99)
    traces: dict[int, list[ReadableSpan]] = {}
    for span in memory.get_finished_spans():
        assert span.context is not None
        traces.setdefault(span.context.trace_id, []).append(span)
    decider = Decider(0.1)
    start = time.perf_counter()
    for spans in traces.values():
        decider.decide([from_sdk(s) for s in spans])
    return (time.perf_counter() - start) / len(traces) * 1e6


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["FILON_HOME"] = tmp
        store = Store.open(f"sqlite:///{tmp}/bench.db")
        batch, filon = [], []
        for r in range(ROUNDS):  # interleaved, so machine noise hits both alike
            batch.append(timed(BatchSpanProcessor(NoOp()), r))
            exporter = StoreExporter(lambda: Ingestor(store, redactor=Redactor(b"bench")), Decider(0.1))
            filon.append(timed(TailSampler(exporter), r))
        stored = store.counts()
    b, f = statistics.median(batch) * 1e6, statistics.median(filon) * 1e6
    print(
        json.dumps(
            {
                "spans_per_round": TRACES * 4,
                "batch_span_processor_us_per_span": round(b, 2),
                "filon_tail_sampler_us_per_span": round(f, 2),
                "ratio_filon_to_batch": round(f / b, 3),
                "sampler_decision_us_per_trace": round(decision_us_per_trace(), 1),
                "goal_ratio_at_most": 1.5,
                "conversations_stored": stored["conversations"],
            }
        )
    )


if __name__ == "__main__":
    main()
