"""Flags off the acknowledgement path: a receiver that answers once spans are stored and redacted, and a
worker that reads them afterwards.

Reading a trace as a turn and running the rulebook over its conversation is most of ingest's work (a
profile of ingest on minimal spans put flags at a third and turn reading at a quarter). With every rule on,
production cannot pay that before its 200. So `accept` does only what the 200 promises: the spans
redacted, written, committed, and their trace ids noted in `pending_traces`. `settle` takes the oldest
noted traces, reads their stored spans exactly as an inline ingest reads a batch (`Ingestor.write`, with
the spans already placed), and writes turns, conversations, flags and failure groups in one transaction
that also clears the traces it read. A worker (`Settler`) runs `settle` until nothing waits, woken after
each commit. Nothing is lost if the process dies between the two: the traces wait in the store, and the
next worker reads them.

The lag (how many traces wait, and since when) is the queue's delay behind production: `db stats` and the
review TUI show it (`miner.store.stats`).
"""

from __future__ import annotations

import logging
import threading
import time

from filon.miner.core.untrusted import one_line
from filon.tracing.grouping import by_trace
from filon.tracing.ingest import Ingestor, from_row, to_row
from filon.tracing.ingest_stats import IngestStats
from filon.tracing.isolate import store_unavailable
from filon.tracing.records import SpanRecord

log = logging.getLogger(__name__)
SETTLE_TRACES = 256  # traces read in one transaction by the worker
IDLE_S = 2.0  # a worker with nothing to do looks again this often (another receiver may share the store)


def accept(ingestor: Ingestor, records: list[SpanRecord]) -> IngestStats:
    """The acknowledgement path: the spans redacted and written, placed in no conversation yet, their
    traces noted as waiting; in one transaction. What `stats` counts: the spans, and how many were new."""
    stats = IngestStats(spans=len(records))
    if not records:
        return stats
    resources: dict[int, str] = {}  # the spans of one process share their resource: redacted, written once
    rows = [to_row(r, "", resources, ingestor.redactor) for r in records]
    with ingestor.store.trace_batch() as batch:
        stats.new_spans = batch.write_spans(rows)
        batch.note_pending([r.trace_id for r in records], time.time_ns())
    return stats


def settle(
    ingestor: Ingestor, limit: int = SETTLE_TRACES, only: list[tuple[str, int]] | None = None
) -> tuple[int, IngestStats]:
    """Read the oldest waiting traces (at most `limit`, or `only` those) as `ingest` would have: how many
    were read, and what they made (conversations, turns, flags). Their spans are already redacted: never
    again."""
    stats = IngestStats()
    with ingestor.store.trace_batch() as batch:
        taken = batch.take_pending(limit) if only is None else only
        if not taken:
            return 0, stats
        trace_ids = [trace_id for trace_id, _ in taken]
        records = [from_row(row) for row in batch.spans_of(trace_ids)]
        traces = by_trace(records)
        stored = batch.stored_turns(trace_ids)
        ingestor.write(batch, records, traces, stored, stats, placed=True)
        batch.done_pending(taken)
    return len(taken), stats


def settle_all(ingestor: Ingestor, limit: int = SETTLE_TRACES) -> IngestStats:
    """`settle` until nothing waits: what `filon serve`'s worker does after each commit, and what a
    test or a command does to see the store as the worker will leave it."""
    total = IngestStats()
    while True:
        read, stats = settle_batch(ingestor, limit)
        if not read:
            return total
        total.add(stats)


def settle_batch(ingestor: Ingestor, limit: int = SETTLE_TRACES) -> tuple[int, IngestStats]:
    """One `settle`; a batch some trace's content broke is read trace by trace (`_settle_apart`). Raises
    only when the store is unavailable."""
    try:
        return settle(ingestor, limit)
    except Exception as exc:
        if store_unavailable(exc):
            raise
        return _settle_apart(ingestor, limit)


def _settle_apart(ingestor: Ingestor, limit: int) -> tuple[int, IngestStats]:
    """A batch some trace's content broke (`tracing.isolate`): each trace read alone; one that fails alone
    is no longer waited for, said in the log. Its spans stay stored, in no conversation (`db stats`
    counts them as unread), rather than stopping the worker behind it for ever."""
    with ingestor.store.trace_batch() as batch:
        taken = batch.take_pending(limit)
    total = IngestStats()
    for trace_id, last in taken:
        try:
            _, stats = settle(ingestor, only=[(trace_id, last)])
        except Exception as exc:
            if store_unavailable(exc):
                raise
            why = one_line(str(exc))[:300]  # it may quote the trace's own text: one line, made visible
            log.warning(
                "trace %s could not be read as a turn (%s); its spans stay stored, unread", trace_id, why
            )
            with ingestor.store.trace_batch() as batch:
                batch.done_pending([(trace_id, last)])
            continue
        total.add(stats)
    return len(taken), total


class Settler:
    """The worker: one thread running `settle_all` whenever it is woken (`wake`, after each commit) and
    every `IDLE_S` in any case. A batch that fails is logged and tried again at the next pass: its traces
    stay noted, and what was stored is never lost. `drained()` waits until every trace accepted before
    the call has been read (for tests and for a receiver shutting down)."""

    def __init__(self, ingestor: Ingestor, idle_s: float = IDLE_S) -> None:
        self.ingestor = ingestor
        self._idle_s = idle_s
        self._cond = threading.Condition()
        self._asked = 0  # wakes asked for
        self._done = 0  # the last wake a whole pass has followed
        self._stop = False
        self.failures = 0
        self._thread = threading.Thread(target=self._run, name="filon-settler", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        with self._cond:
            self._asked += 1
            self._cond.notify_all()

    def drained(self, timeout: float = 60.0) -> bool:
        """True once a pass that started after this call found nothing waiting."""
        with self._cond:
            self._asked += 1
            target = self._asked
            self._cond.notify_all()
            return self._cond.wait_for(lambda: self._done >= target or self._stop, timeout)

    def close(self, timeout: float = 30.0) -> None:
        """Read what waits, then stop."""
        self.drained(timeout)
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._asked > self._done or self._stop, self._idle_s)
                if self._stop:
                    return
                target = self._asked
            try:
                settle_all(self.ingestor)
            except Exception:  # the store is down, or a trace cannot be read: said, tried again later
                self.failures += 1
                log.exception("the settling worker could not read the waiting traces; trying again")
                with self._cond:
                    self._cond.wait_for(lambda: self._stop, self._idle_s)
                continue
            with self._cond:
                self._done = max(self._done, target)
                self._cond.notify_all()
