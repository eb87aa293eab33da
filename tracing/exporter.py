"""filon's in-process exporter: a bounded queue and one background thread running the `Keeper`.

The agent's thread only ever puts on a `queue.SimpleQueue` (C, no Python-level lock; bounded by its size
read before the put, as `tracing/offload.py`'s): a full queue drops and counts, it never blocks. The
thread converts SDK spans, decides and stores (`tracing/sampling/keeper.py`); nothing it does can raise into the
agent. `setup_tracing()` uses it when FILON_OFFLOAD is off; by default the same work runs in filon's
helper process instead (`tracing/offload.py`), off the agent's GIL. Once shut, it drops and counts what
is still submitted, and a flush asked then answers False at once.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from opentelemetry.sdk.trace import ReadableSpan

from filon.tracing.ingest import Ingestor
from filon.tracing.records import SpanRecord, from_sdk
from filon.tracing.sampling.decider import Decider
from filon.tracing.sampling.keeper import ExportCounters, Keeper, Waiter, left_on

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
        # ("trace" | "late", SDK spans or records), ("flush", waiter told once stored), or None to stop
        self._queue: queue.SimpleQueue[tuple[str, list[ReadableSpan] | list[SpanRecord] | Waiter] | None] = (
            queue.SimpleQueue()
        )
        self._max_queue = max_queue
        self._closing = False
        self._drained = False  # the thread has stopped: what is put from now on is refused by whoever puts it
        self._control = threading.Lock()  # flush and shutdown: "not closing, then put" one step
        self._thread = threading.Thread(target=self._run, name="filon-exporter", daemon=True)
        self._thread.start()

    @property
    def counters(self) -> ExportCounters:
        return self.keeper.snapshot()

    def submit(self, kind: str, spans: list[ReadableSpan] | list[SpanRecord]) -> None:
        """Never blocks: a full queue drops the spans and counts them, as does a shut exporter."""
        if self._closing:
            self.drop(len(spans), "the exporter is shut")
        elif self._queue.qsize() >= self._max_queue:
            self.drop(len(spans), "queue full")
        else:  # `_put` written out: the agent's thread pays no call more per trace
            self._queue.put((kind, spans))
            if self._drained:
                self._drain()

    def _put(self, item: tuple[str, list[ReadableSpan] | list[SpanRecord] | Waiter]) -> None:
        """On the thread's queue; taken back and refused if the thread stopped meanwhile (it sets
        `_drained` before its last look at the queue: one of the two sees the item)."""
        self._queue.put(item)
        if self._drained:
            self._drain()

    def _drain(self) -> None:
        """Everything still queued refused: spans dropped and counted, flushes told False."""
        for item in left_on(self._queue):
            if item is None:
                continue
            payload = item[1]
            if isinstance(payload, Waiter):
                payload.done(ok=False)
            else:
                self.keeper.drop(len(payload), "the exporter is shut")

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
                self._drained = True
                self._drain()
                return
            kind, payload = item
            if isinstance(payload, Waiter):
                keeper.store()
                payload.done()
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
        if not self._thread.is_alive():  # shut, or a forked child's copy: nothing will store what is queued
            return not self._closing and self._queue.qsize() == 0
        done = Waiter()
        with self._control:
            if self._closing:
                return False
            self._put(("flush", done))
        return done.wait(timeout_s)

    def shutdown(self, timeout_s: float = 30.0) -> None:
        with self._control:
            if self._closing:
                return
            self._closing = True
            self._queue.put(None)
        self._thread.join(timeout_s)
        if not self._thread.is_alive():  # its last drain, or none if it never ran (a forked child's copy)
            self._drained = True
            self._drain()
