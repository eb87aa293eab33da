"""filon's in-process exporter: a bounded queue and one background thread running the `Keeper`.

The agent's thread only ever puts on a `queue.SimpleQueue` (C, no Python-level lock; bounded by its size
read before the put, as `tracing/offload.py`'s): a full queue drops and counts, it never blocks. The
thread converts SDK spans, decides and stores (`tracing/sampling/keeper.py`); nothing it does can raise into the
agent. `setup_tracing()` uses it when FILON_OFFLOAD is off; by default the same work runs in filon's
helper process instead (`tracing/offload.py`), off the agent's GIL.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from opentelemetry.sdk.trace import ReadableSpan

from filon.tracing.ingest import Ingestor
from filon.tracing.records import SpanRecord, from_sdk
from filon.tracing.sampling.decider import Decider
from filon.tracing.sampling.keeper import ExportCounters, Keeper

__all__ = ["ExportCounters", "StoreExporter"]


def _records(spans: list[ReadableSpan] | list[SpanRecord]) -> list[SpanRecord]:
    """SDK spans converted (one trace per submission: its id is formatted once), records as they are."""
    if isinstance(spans[0], SpanRecord):
        return spans
    first = spans[0].context
    trace_id = first.trace_id.to_bytes(16, "big").hex() if first is not None else None
    return [from_sdk(s, trace_id) for s in spans]


class StoreExporter:
    def __init__(
        self,
        ingestor_factory: Callable[[], Ingestor],
        decider: Decider,
        max_queue: int = 2048,
        batch_spans: int = 512,
        linger_s: float = 0.2,
    ) -> None:
        self.keeper = Keeper(ingestor_factory, decider, batch_spans, linger_s)
        self.decider = decider
        # ("trace" | "late", SDK spans or records), ("flush", event to set once stored), or None to stop
        self._queue: queue.SimpleQueue[
            tuple[str, list[ReadableSpan] | list[SpanRecord] | threading.Event] | None
        ] = queue.SimpleQueue()
        self._max_queue = max_queue
        self._thread = threading.Thread(target=self._run, name="filon-exporter", daemon=True)
        self._thread.start()

    @property
    def counters(self) -> ExportCounters:
        return self.keeper.snapshot()

    def submit(self, kind: str, spans: list[ReadableSpan] | list[SpanRecord]) -> None:
        """Never blocks: a full queue drops the spans and counts them."""
        if self._queue.qsize() >= self._max_queue:
            self.drop(len(spans), "queue full")
        else:
            self._queue.put((kind, spans))

    def drop(self, n: int, why: str) -> None:
        self.keeper.drop(n, why)

    def _run(self) -> None:
        keeper = self.keeper
        while True:
            try:
                item = self._queue.get(timeout=keeper.wait_s())
            except queue.Empty:
                keeper.store_if_due()
                continue
            if item is None:
                keeper.store()
                return
            kind, payload = item
            if isinstance(payload, threading.Event):
                keeper.store()
                payload.set()
            elif payload:
                try:
                    records = _records(payload)
                except Exception:  # a span the SDK should never have made: dropped, not raised
                    keeper.drop(len(payload), "a span could not be read")
                    continue
                keeper.take(kind, records)
            keeper.store_if_due()

    def flush(self, timeout_s: float = 30.0) -> bool:
        """Wait until everything submitted so far is stored (or dropped)."""
        if not self._thread.is_alive():
            return self._queue.qsize() == 0
        done = threading.Event()
        self._queue.put(("flush", done))
        return done.wait(timeout_s)

    def shutdown(self, timeout_s: float = 30.0) -> None:
        if not self._thread.is_alive():
            return
        self._queue.put(None)
        self._thread.join(timeout_s)
