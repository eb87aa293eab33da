"""filon's exporter on the agent's thread, per span, as a ratio to the SDK's BatchSpanProcessor.

Side by side in one run: the same agent-shaped traces (a root and three children with GenAI
attributes) made on the main thread under (a) `BatchSpanProcessor` with a no-op exporter and (b) what
`setup_tracing()` installs: filon's tail sampler, whose exporter packs each finished trace onto a pipe
to filon's helper process, which decides (rate 0.1, flags), redacts and stores in a real SQLite store.

Two figures per round, both per span of the agent's thread: the time to make and end the spans (the
goal's figure), and the time until every span has been handled (flushed), which also charges whatever
work the processor deferred. Every round ends flushed, so no backlog spills into the next one.

This machine's timings drift by tens of per cent from one second to the next, so: one helper for the
whole run (its start-up is not the steady state), a warm-up, then many short rounds in pairs, the two
of a pair started from the same collected heap in alternating order, and the median of the pairs' own
ratios. Goal: ratio at most 1.2.

Beside it, the same ratio in instructions (`valgrind --tool=callgrind`, which the machine's load cannot
move): every instruction of the agent's process, all its threads (the SDK's worker, filon's writer
packing traces), to make, end and hand over 1,000 traces after a warm-up, under each processor, in three
rounds (threads move the count by a few per cent: the median decides); the helper process, on another
core, is not counted. The wall figure also charges what that helper takes
from a loaded machine's cores; the instruction figure is the agent's own CPU.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from filon.miner.store import Store
from filon.tracing.offload import OffloadExporter
from filon.tracing.sampling.decider import Decider
from filon.tracing.sampling.sampler import TailSampler

TRACES = 500  # per round: four spans each
COUNTED = 1000  # traces the instruction count makes after its warm-up
COUNTED_ROUNDS = 3
ROUNDS = 25
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


class Shared(SpanProcessor):
    """The tail sampler of the run's one helper, for one round's provider; a round's end does not stop it."""

    def __init__(self, sampler: TailSampler) -> None:
        self.sampler = sampler

    def on_end(self, span: ReadableSpan) -> None:
        self.sampler.on_end(span)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.sampler.force_flush(timeout_millis)

    def shutdown(self) -> None:
        return


def make_traces(provider: TracerProvider, offset: int, traces: int = TRACES) -> float:
    tracer = provider.get_tracer("bench")
    start = time.perf_counter()
    for i in range(traces):
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
    return (time.perf_counter() - start) / (traces * 4)


def timed(processor: SpanProcessor, offset: int) -> tuple[float, float]:
    """Per span: making and ending spans; and the same until every span has been handled."""
    gc.collect()
    provider = TracerProvider()
    provider.add_span_processor(processor)
    start = time.perf_counter()
    per_span = make_traces(provider, offset)
    provider.force_flush()
    drained = (time.perf_counter() - start) / (TRACES * 4)
    provider.shutdown()
    return per_span, drained


def decision_us_per_trace() -> float:
    """The decision (conversion, grouping, flags) alone, in one thread: the work the helper does for
    every trace, which in the agent's process would compete with the agent's threads for the GIL."""
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from filon.tracing.records import from_sdk

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    make_traces(provider, 99, 2000)
    traces: dict[int, list[ReadableSpan]] = {}
    for span in memory.get_finished_spans():
        assert span.context is not None
        traces.setdefault(span.context.trace_id, []).append(span)
    decider = Decider(0.1)
    start = time.perf_counter()
    for spans in traces.values():
        decider.decide([from_sdk(s) for s in spans])
    return (time.perf_counter() - start) / len(traces) * 1e6


def start_offload(tmp: str) -> tuple[Store, OffloadExporter]:
    """What `setup_tracing()` starts: filon's helper process on a fresh SQLite store in `tmp`."""
    os.environ["FILON_HOME"] = tmp
    url = f"sqlite:///{tmp}/bench.db"
    store = Store.open(url)
    exporter = OffloadExporter(
        {"db": url, "rate": 0.1, "redact": True, "max_traces": 10_000}, env={"FILON_SECRET": "bench"}
    )
    if not exporter.ready.wait(120):
        raise SystemExit("filon's helper process did not start")
    return store, exporter


def counted_child(mode: str, traces: int) -> None:
    """Run under callgrind: a warm-up of 200 traces, then `traces` more, each batch flushed."""
    with tempfile.TemporaryDirectory() as tmp:
        exporter = None
        if mode == "filon":
            _, exporter = start_offload(tmp)
            processor: SpanProcessor = Shared(TailSampler(exporter))
        else:
            processor = BatchSpanProcessor(NoOp())
        provider = TracerProvider()
        provider.add_span_processor(processor)
        make_traces(provider, -1, 200)
        provider.force_flush()
        if traces:
            make_traces(provider, 0, traces)
            provider.force_flush()
        provider.shutdown()
        if exporter is not None:
            exporter.shutdown()


def instructions(mode: str, traces: int, prefix: str) -> subprocess.Popen[bytes]:
    out = f"{prefix}-{mode}-{traces}.out"
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__]
    return subprocess.Popen(
        [*command, "--count", mode, str(traces)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )


def instruction_ratio(rounds: int = COUNTED_ROUNDS) -> dict[str, object]:
    """filon's instructions per span over the SDK's, the warm-up and start-up taken away, in `rounds`
    rounds (two runs at a time). Threads make the count move a little: the writer packs whatever traces
    ended in its last few milliseconds, so frames, wake-ups and garbage collections differ between runs
    (a few per cent); the rounds' median decides, their spread beside it."""
    if shutil.which("valgrind") is None:
        return {"instructions": "skipped: valgrind is not installed"}
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _callgrind import compiled, total

    compiled()  # no run pays for compiling a module edited since its last import
    per_span: dict[str, list[float]] = {"batch": [], "filon": []}
    with tempfile.TemporaryDirectory() as folder:
        for r in range(rounds):
            for mode in ("batch", "filon"):
                runs = {n: instructions(mode, n, f"{folder}/{r}") for n in (0, COUNTED)}
                for n, run in runs.items():
                    if run.wait() != 0:
                        raise SystemExit(f"callgrind's run of {mode} ({n} traces) failed")
                made = total(Path(f"{folder}/{r}-{mode}-{COUNTED}.out")) - total(
                    Path(f"{folder}/{r}-{mode}-0.out")
                )
                per_span[mode].append(made / (COUNTED * 4))
    ratios = [f / b for b, f in zip(per_span["batch"], per_span["filon"], strict=True)]
    return {
        "batch_span_processor_instructions_per_span": round(statistics.median(per_span["batch"])),
        "filon_tail_sampler_instructions_per_span": round(statistics.median(per_span["filon"])),
        "ratio_filon_to_batch_instructions": round(statistics.median(ratios), 3),
        "ratio_instructions_rounds": [round(x, 3) for x in ratios],
    }


def main() -> None:
    if sys.argv[1:2] == ["--count"]:
        counted_child(sys.argv[2], int(sys.argv[3]))
        return
    counted = instruction_ratio()
    with tempfile.TemporaryDirectory() as tmp:
        store, exporter = start_offload(tmp)
        sampler = TailSampler(exporter)

        def filon(offset: int) -> tuple[float, float]:
            return timed(Shared(sampler), offset)

        def batch(offset: int) -> tuple[float, float]:
            return timed(BatchSpanProcessor(NoOp()), offset)

        for warm in (-1, -2):
            batch(warm), filon(warm)
        pairs = []
        for r in range(ROUNDS):
            if r % 2:
                f, b = filon(r), batch(r)
            else:
                b, f = batch(r), filon(r)
            pairs.append((b, f))
        exporter.shutdown()
        counters = exporter.counters
        stored = store.stats().counts()
    window = [f[0] / b[0] for b, f in pairs]
    drained = [f[1] / b[1] for b, f in pairs]
    print(
        json.dumps(
            {
                "spans_per_round": TRACES * 4,
                "rounds": ROUNDS,
                "batch_span_processor_us_per_span": round(statistics.median(b[0] for b, _ in pairs) * 1e6, 2),
                "filon_tail_sampler_us_per_span": round(statistics.median(f[0] for _, f in pairs) * 1e6, 2),
                "ratio_filon_to_batch": round(statistics.median(window), 3),
                "ratio_quartiles": [round(q, 2) for q in statistics.quantiles(window, n=4)],
                "ratio_until_drained": round(statistics.median(drained), 3),
                "helper_decision_us_per_trace": round(decision_us_per_trace(), 1),
                "spans_dropped": counters.spans_dropped,
                "traces_kept": counters.traces_kept,
                "conversations_stored": stored["conversations"],
                **counted,
                "goal_ratio_at_most": 1.2,
            }
        )
    )


if __name__ == "__main__":
    main()
