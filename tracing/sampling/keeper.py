"""Decide finished traces one by one and store the kept ones in batches: the engine behind the
in-process exporter (`tracing/exporter.py`, on its own thread) and filon's helper process
(`tracing/helper.py`, on its main thread). One owner thread calls it; counters may be read from any.

Kept spans are stored when `batch_spans` are pending, when the oldest has waited `linger_s`, or when
asked (flush, stop): one transaction per kept trace would cost more than deciding it. Every failure
(decision, redaction, store) is caught, counted and logged, and the next batch starts afresh, so the
store coming back is enough for storing to resume. `Waiter` is what both exporters' flushes wait on.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import TypeVar

from filon.tracing.ingest import Ingestor
from filon.tracing.ingest_stats import IngestStats
from filon.tracing.isolate import store_requests
from filon.tracing.records import SpanRecord
from filon.tracing.sampling.decider import Decider

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class ExportCounters:
    spans_received: int = 0
    traces_kept: int = 0
    traces_sampled_out: int = 0
    spans_dropped: int = 0
    ingest_failures: int = 0
    stored: IngestStats = field(default_factory=IngestStats)

    def copy(self) -> ExportCounters:
        stored = IngestStats()
        stored.add(self.stored)
        return replace(self, stored=stored)


class Waiter:
    """A flush or a hand-over waiting for an exporter's thread: `ok` False when it was refused (the
    exporter shut meanwhile), so that the caller is told at once, not after its timeout."""

    __slots__ = ("event", "ok")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.ok = True

    def done(self, ok: bool = True) -> None:
        self.ok = ok
        self.event.set()

    def wait(self, timeout_s: float) -> bool:
        return self.event.wait(timeout_s) and self.ok


def left_on(waiting: queue.SimpleQueue[T]) -> Iterator[T]:
    """What is still on a queue whose consumer stopped, each taken once and without waiting (an exporter's
    last drain, which whoever puts after the end repeats)."""
    while True:
        try:
            yield waiting.get_nowait()
        except queue.Empty:
            return


class Keeper:
    def __init__(
        self,
        ingestor_factory: Callable[[], Ingestor],
        decider: Decider,
        batch_spans: int = 512,
        linger_s: float = 0.2,
    ) -> None:
        self._factory = ingestor_factory
        self._ingestor: Ingestor | None = None
        self.decider = decider
        self.counters = ExportCounters()
        self.batch_spans = batch_spans
        self.linger_s = linger_s
        self._pending: list[SpanRecord] = []
        self._since = 0.0  # when the oldest pending span was kept
        self._lock = threading.Lock()
        self._last_warning = 0.0

    def drop(self, n: int, why: str) -> None:
        """Count spans that will never be stored; say so in the log, at most every ten seconds."""
        with self._lock:
            self.counters.spans_dropped += n
            dropped = self.counters.spans_dropped
        now = time.monotonic()
        if now - self._last_warning > 10:
            self._last_warning = now
            log.warning("filon exporter dropped %d span(s) (%s); %d dropped so far", n, why, dropped)

    def take(self, kind: str, records: list[SpanRecord]) -> None:
        """A finished trace (`kind` "trace"), or spans that ended after their trace was decided ("late")."""
        try:
            kept = self._decide(kind, records)
        except Exception:
            self.drop(len(records), "the decision failed")
            log.exception("filon exporter: a trace could not be decided")
            return
        if kept and not self._pending:
            self._since = time.monotonic()
        self._pending.extend(kept)
        if len(self._pending) >= self.batch_spans:
            self.store()

    def _decide(self, kind: str, records: list[SpanRecord]) -> list[SpanRecord]:
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
                # the earlier turns kept with a flagged one were counted as sampled out when they came
                self.counters.traces_sampled_out -= len(traces) - 1
            else:
                self.counters.traces_sampled_out += 1
        return [r for t in traces for r in t]

    def wait_s(self) -> float | None:
        """Seconds until the pending spans are due (0 if they are); None when nothing is pending."""
        if not self._pending:
            return None
        return max(0.0, self._since + self.linger_s - time.monotonic())

    def store_if_due(self) -> None:
        if self._pending and time.monotonic() - self._since >= self.linger_s:
            self.store()

    def store(self) -> None:
        """Store the pending spans now."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        try:
            self._ingestor = self._ingestor or self._factory()
        except Exception:
            self._failed(len(pending), "the store could not be opened")
            return
        # one bad trace (a value the store refuses) costs only its own spans: `tracing.isolate`
        (outcome,) = store_requests(self._ingestor.ingest, [pending])
        if outcome.down is not None:
            self._failed(len(pending), outcome.down)
            return
        if outcome.rejected:
            self.drop(len(outcome.rejected), "refused by the store")
        with self._lock:
            self.counters.stored.add(outcome.stats)

    def _failed(self, count: int, why: str) -> None:
        with self._lock:
            self.counters.ingest_failures += 1
        self.drop(count, "ingest failed")
        log.error("filon exporter: a batch of %d span(s) could not be stored: %s", count, why)
        self._ingestor = None  # a fresh ingestor (and store connection) next time

    def snapshot(self) -> ExportCounters:
        """A copy of the counters, consistent at one instant."""
        with self._lock:
            return self.counters.copy()
