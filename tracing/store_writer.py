"""`filon serve`'s writer in filon's helper process: the receiver decodes requests while the helper
stores earlier ones, on two cores instead of one GIL.

`submit(records)` returns a future that resolves once the spans are committed (the receiver answers 200
only then) or fails with `StoreUnavailable` (the receiver answers 503, to be retried). Requests that
arrive together are stored in one transaction by the helper (`tracing/helper.py`, "ingest" mode). If the
helper dies, the requests it held fail (503) and the next request starts a new one.
"""

from __future__ import annotations

import logging
import queue
import subprocess
import threading
from concurrent.futures import Future
from typing import Any

from miner.jsontext import dumps_bytes, loads
from tracing.ingest import IngestStats
from tracing.records import SpanRecord, fields_of
from tracing.wire import WireError, read_frame, start_helper, write_frame

log = logging.getLogger(__name__)


class StoreUnavailable(RuntimeError):
    pass


class HelperCommitter:
    def __init__(self, settings: dict[str, Any], env: dict[str, str] | None = None) -> None:
        self._settings = {**settings, "mode": "ingest"}
        self._env = env
        self._lock = threading.Lock()
        self._futures: dict[int, Future[IngestStats]] = {}
        self._sent: dict[int, subprocess.Popen[bytes]] = {}  # written to a helper, not answered yet
        self._next = 0
        self._queue: queue.Queue[tuple[int, list[SpanRecord]] | None] = queue.Queue()
        self._proc: subprocess.Popen[bytes] | None = None
        self.ready = threading.Event()  # the helper has started (imports done): /health says so
        self._helper()  # now, not at the first request: its start-up takes a second
        self._writer = threading.Thread(target=self._write_loop, name="filon-serve-writer", daemon=True)
        self._writer.start()

    @property
    def helper_pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def submit(self, records: list[SpanRecord]) -> Future[IngestStats]:
        done: Future[IngestStats] = Future()
        with self._lock:
            n = self._next
            self._next += 1
            self._futures[n] = done
        self._queue.put((n, records))
        return done

    def close(self) -> None:
        self._queue.put(None)
        self._writer.join(timeout=30)

    def _helper(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = start_helper(self._settings, self._env)
            threading.Thread(
                target=self._read_loop, args=(self._proc,), name="filon-serve-reader", daemon=True
            ).start()
        return self._proc

    def _write_loop(self) -> None:
        while (item := self._queue.get()) is not None:
            n, records = item
            try:
                payload = dumps_bytes(["ingest", n, [fields_of(r) for r in records]])
            except Exception as exc:  # a value no JSON encoder takes
                self._settle([n], StoreUnavailable(f"spans could not be encoded: {exc}"))
                continue
            try:
                proc = self._helper()
                assert proc.stdin is not None
                with self._lock:
                    self._sent[n] = proc
                write_frame(proc.stdin, payload)
            except (OSError, ValueError) as exc:
                log.warning("filon's writer process is gone (%s); a new one takes the next request", exc)
                self._settle([n], StoreUnavailable("the writer process stopped; retry"))
        if self._proc is not None and self._proc.stdin is not None:
            try:
                self._proc.stdin.close()  # the helper stores what it has, then ends
                self._proc.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()

    def _read_loop(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        try:
            while (frame := read_frame(proc.stdout)) is not None:
                message = loads(frame)
                if message[0] == "ready":
                    self.ready.set()
                elif message[0] == "stored":
                    self._settle(message[1], IngestStats.from_json(message[2]))
                elif message[0] == "failed":
                    self._settle(message[1], StoreUnavailable(message[2]))
        except (OSError, ValueError, WireError):
            log.exception("filon serve: the writer's answers could not be read")
        with self._lock:  # the process ended: what it held will never be answered
            orphans = [n for n, holder in self._sent.items() if holder is proc]
        if orphans:
            self._settle(orphans, StoreUnavailable("the writer process stopped; retry"))

    def _settle(self, jobs: list[int], outcome: IngestStats | Exception) -> None:
        with self._lock:
            futures = [self._futures.pop(n, None) for n in jobs]
            for n in jobs:
                self._sent.pop(n, None)
        for done in futures:
            if done is None:
                continue
            if isinstance(outcome, Exception):
                done.set_exception(outcome)
            else:
                done.set_result(outcome)
