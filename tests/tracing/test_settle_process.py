"""The settling worker in a process of its own (`tracing.settle_process`): it reads at each wake and what
waits at the end of its input, the writer starts it again when it died, a store it cannot open ends it
with a failure (the traces still waiting); and on SQLite the rules run before the write lock is taken,
so that a deferred receiver's acknowledgements do not wait for them."""

from __future__ import annotations

import os
import select
import signal
import sqlite3
from pathlib import Path

from filon.miner.core.jsontext import loads
from filon.miner.core.model import Conversation, Flag
from filon.miner.rules.config import FlagConfig
from filon.miner.store import Store
from filon.tracing.ingest import Ingestor
from filon.tracing.records import batched
from filon.tracing.settle import accept, settle_all
from filon.tracing.settle_process import SettleProcess
from filon.tracing.wire import read_frame, start_helper
from tests.tracing.test_settle import tau_config, tau_records


def settings_of(db: str, tmp_path: Path) -> dict[str, object]:
    return {"mode": "settle", "db": db, "config": tau_config(tmp_path).as_json()}


def test_the_worker_reads_at_each_wake_and_what_waits_at_the_end_of_its_input(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'w.db'}"
    store = Store.open(db)
    ingestor = Ingestor(store, tau_config(tmp_path))
    proc = start_helper(settings_of(db, tmp_path))
    assert proc.stdin is not None and proc.stdout is not None
    try:
        assert loads(read_frame(proc.stdout) or b"null") == ["ready"]
        accept(ingestor, tau_records(1))
        proc.stdin.write(b"w")
        proc.stdin.flush()
        while (frame := loads(read_frame(proc.stdout) or b'["ended"]'))[0] == "settled" and frame[1] == 0:
            pass  # a pass that began before the spans were committed found nothing
        assert frame[0] == "settled" and frame[1] > 0
        assert store.stats().waiting == 0 and store.stats().conversations == 4
        more = tau_records(2)[:50]  # some of the second conversation's spans, some again of the first
        accept(ingestor, more)
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0
    stored = {(r.trace_id, r.span_id) for r in [*tau_records(1), *more]}
    assert store.stats().waiting == 0 and store.stats().spans == len(stored)


def test_the_writer_starts_its_worker_again_when_it_died(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'd.db'}"
    store = Store.open(db)
    worker = SettleProcess(settings_of(db, tmp_path))
    first = worker.pid
    os.kill(first, signal.SIGKILL)
    os.waitpid(first, 0)
    accept(Ingestor(store), tau_records(1))
    worker.wake()
    assert worker.pid != first
    assert worker.close() == 0
    assert store.stats().waiting == 0 and store.stats().conversations == 4


def test_a_worker_that_cannot_open_the_store_ends_failed_at_the_end_of_its_input(tmp_path: Path) -> None:
    proc = start_helper(settings_of(f"sqlite:///{tmp_path / 'missing' / 'x.db'}", tmp_path))
    assert proc.stdin is not None and proc.stdout is not None
    assert loads(read_frame(proc.stdout) or b"null") == ["ready"]
    proc.stdin.close()
    assert proc.wait(60) == 1
    assert not (tmp_path / "missing").exists()  # a typo in the URL never makes an empty store


class _Watched(Ingestor):
    """Counts the conversations flagged while another connection could not have written."""

    def __init__(self, store: Store, path: Path, config: FlagConfig) -> None:
        super().__init__(store, config)
        self.path, self.flagged, self.under_lock = path, 0, 0

    def flags(self, conversation: Conversation) -> list[Flag]:
        self.flagged += 1
        other = sqlite3.connect(self.path, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
        except sqlite3.OperationalError:
            self.under_lock += 1
        finally:
            other.close()
        return super().flags(conversation)


def test_on_sqlite_the_worker_flags_before_it_takes_the_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    ingestor = _Watched(Store.open(f"sqlite:///{path}"), path, tau_config(tmp_path))
    for batch in batched(tau_records(2), 97):  # conversations new, then found stored and grown
        accept(ingestor, batch)
        settle_all(ingestor)
    assert ingestor.flagged > 8 and ingestor.under_lock == 0
    assert ingestor.store.stats().conversations == 8


def test_a_woken_worker_waits_for_a_quiet_moment_before_it_reads(tmp_path: Path) -> None:
    """Acknowledgements first: woken, the worker reads once no wake has come for `quiet_s`; here that
    moment never comes within a second, so nothing is read until its input ends."""
    db = f"sqlite:///{tmp_path / 'q.db'}"
    store = Store.open(db)
    proc = start_helper({**settings_of(db, tmp_path), "quiet_s": 120, "max_lag_s": 120})
    assert proc.stdin is not None and proc.stdout is not None
    assert loads(read_frame(proc.stdout) or b"null") == ["ready"]
    accept(Ingestor(store), tau_records(1))
    proc.stdin.write(b"w")
    proc.stdin.flush()
    assert select.select([proc.stdout], [], [], 1.0)[0] == []  # no pass, no "settled"
    assert store.stats().waiting > 0
    proc.stdin.close()
    frame = loads(read_frame(proc.stdout) or b"null")
    assert frame[0] == "settled" and frame[1] > 0 and proc.wait(60) == 0
    assert store.stats().waiting == 0


def test_a_wake_as_old_as_the_lag_bound_is_read_at_once(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'b.db'}"
    store = Store.open(db)
    proc = start_helper({**settings_of(db, tmp_path), "quiet_s": 120, "max_lag_s": 0})
    assert proc.stdin is not None and proc.stdout is not None
    try:
        assert loads(read_frame(proc.stdout) or b"null") == ["ready"]
        accept(Ingestor(store), tau_records(1))
        proc.stdin.write(b"w")
        proc.stdin.flush()
        frame = loads(read_frame(proc.stdout) or b"null")
        assert frame[0] == "settled" and frame[1] > 0 and store.stats().waiting == 0
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0
