"""filon's in-process exporter: a bounded queue, one background thread, batches into the store.

The agent's thread only ever does `put_nowait`: a full queue drops and counts, it never blocks. Every
failure in the thread (decision, redaction, store) is caught, counted and logged; the thread goes on,
so the agent never sees an exception and the exporter resumes when the store comes back.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from opentelemetry.sdk.trace import ReadableSpan

from tracing.decider import Decider
from tracing.ingest import Ingestor, IngestStats
from tracing.records import SpanRecord, from_sdk

log = logging.getLogger(__name__)


@dataclass
class ExportCounters:
    spans_received: int = 0
    traces_kept: int = 0
    traces_sampled_out: int = 0
    spans_dropped: int = 0
    ingest_failures: int = 0
    stored: IngestStats = field(default_factory=IngestStats)


class StoreExporter:
    def __init__(
        self,
        ingestor_factory: Callable[[], Ingestor],
        decider: Decider,
        max_queue: int = 2048,
        batch_spans: int = 512,
        linger_s: float = 0.2,
    ) -> None:
        self._factory = ingestor_factory
        self.decider = decider
        self.counters = ExportCounters()
        self._queue: queue.Queue[tuple[str, list[ReadableSpan]] | None] = queue.Queue(max_queue)
        self._batch_spans = batch_spans
        self._linger = linger_s
        self._lock = threading.Lock()
        self._last_warning = 0.0
        self._thread = threading.Thread(target=self._run, name="filon-exporter", daemon=True)
        self._thread.start()

    def submit(self, kind: str, spans: list[ReadableSpan]) -> None:
        """Never blocks: a full queue drops the spans and counts them."""
        try:
            self._queue.put_nowait((kind, spans))
        except queue.Full:
            self.drop(len(spans), "queue full")

    def drop(self, n: int, why: str) -> None:
        with self._lock:
            self.counters.spans_dropped += n
        now = time.monotonic()
        if now - self._last_warning > 10:
            self._last_warning = now
            log.warning(
                "filon exporter dropped %d span(s) (%s); %d dropped so far",
                n,
                why,
                self.counters.spans_dropped,
            )

    def _run(self) -> None:
        ingestor: Ingestor | None = None
        pending: list[SpanRecord] = []
        while True:
            try:
                item = self._queue.get(timeout=self._linger)
            except queue.Empty:
                item = ("tick", [])
            kind = "stop" if item is None else item[0]
            try:
                if item is not None and kind != "tick":
                    pending.extend(self._keep(*item))
                ready = kind in ("stop", "tick") or len(pending) >= self._batch_spans or self._queue.empty()
                if pending and ready:
                    ingestor = ingestor or self._factory()
                    stats = ingestor.ingest(pending)
                    with self._lock:
                        self.counters.stored.add(stats)
                    pending = []
            except Exception:
                with self._lock:
                    self.counters.ingest_failures += 1
                self.drop(len(pending), "ingest failed")
                log.exception("filon exporter: a batch could not be stored")
                pending, ingestor = [], None  # a fresh ingestor (and store connection) next time
            finally:
                if kind != "tick":
                    self._queue.task_done()
            if kind == "stop":
                return

    def _keep(self, kind: str, spans: list[ReadableSpan]) -> list[SpanRecord]:
        records = [from_sdk(s) for s in spans]
        with self._lock:
            self.counters.spans_received += len(records)
        if kind == "late":
            kept = [r for r in records if self.decider.decisions.get(r.trace_id)]
            if len(kept) < len(records):
                self.drop(len(records) - len(kept), "late span of a trace not kept")
            return kept
        traces = self.decider.decide(records)
        with self._lock:
            if traces:
                self.counters.traces_kept += len(traces)
            else:
                self.counters.traces_sampled_out += 1
        return [r for t in traces for r in t]

    def flush(self, timeout_s: float = 30.0) -> bool:
        """Wait until everything submitted so far is stored (or dropped)."""
        done = threading.Event()

        def wait() -> None:
            self._queue.join()
            done.set()

        threading.Thread(target=wait, daemon=True).start()
        return done.wait(timeout_s)

    def shutdown(self, timeout_s: float = 30.0) -> None:
        self.flush(timeout_s)
        try:
            self._queue.put(None, timeout=1)
        except queue.Full:
            return
        self._thread.join(timeout_s)
