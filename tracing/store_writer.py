"""`filon serve`'s writer in filon's helper process: the receiver decodes requests while the helper
stores earlier ones, on two cores instead of one GIL.

`submit(records)` returns a future that resolves to the request's `Outcome` once its spans are committed
(the receiver answers 200 only then; an outcome that is `down` is a 503), or fails with `StoreUnavailable`
when the helper is gone (503 too, to be retried). Requests that
arrive together are stored in one transaction by the helper (`tracing/helper.py`, "ingest" mode). If the
helper dies, the requests it held fail (503) and the next request starts a new one.
"""

from __future__ import annotations

import logging
import queue
import subprocess
import threading
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from filon.miner.core.jsontext import dumps_bytes, loads
from filon.tracing.ingest_stats import IngestStats
from filon.tracing.isolate import Outcome, made_safe_note, safe_record
from filon.tracing.records import SpanRecord, fields_of
from filon.tracing.wire import WireError, read_frame, start_helper, write_frame

log = logging.getLogger(__name__)


class StoreUnavailable(RuntimeError):
    pass


class HelperCommitter:
    def __init__(self, settings: dict[str, Any], env: dict[str, str] | None = None) -> None:
        self._settings = {**settings, "mode": "ingest"}
        self._env = env
        self._lock = threading.Lock()
        self._futures: dict[int, Future[Outcome]] = {}
        self._sent: dict[int, subprocess.Popen[bytes]] = {}  # written to a helper, not answered yet
        self._notes: dict[int, str] = {}  # what was made safe before a request crossed the pipe
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

    def submit(self, records: list[SpanRecord]) -> Future[Outcome]:
        done: Future[Outcome] = Future()
        with self._lock:
            n = self._next
            self._next += 1
            self._futures[n] = done
        self._queue.put((n, records))
        return done

    def close(self) -> None:
        self._queue.put(None)
        self._writer.join(timeout=30)

    def _payload(self, n: int, records: list[SpanRecord]) -> bytes:
        """The request's frame. A lone surrogate (JSON's `"\\ud800"` decodes to one) is text no encoder
        takes: those spans are made safe first, and the request's answer says so."""
        try:
            return dumps_bytes(["ingest", n, [fields_of(r) for r in records]])
        except (TypeError, ValueError):
            count = [0]
            safe = [safe_record(r, count) for r in records]
            payload = dumps_bytes(["ingest", n, [fields_of(r) for r in safe]])
            with self._lock:
                self._notes[n] = made_safe_note(count[0])
            return payload

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
                payload = self._payload(n, records)
            except Exception as exc:  # not even made safe: said as the store's, never lost silently
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
                    said = message[3] if len(message) > 3 else {}
                    stats = IngestStats.from_json(message[2])
                    self._settle(message[1], Outcome(stats, said.get("rejected", []), said.get("notes", [])))
                elif message[0] == "failed":
                    self._settle(message[1], Outcome(down=str(message[2])))
        except (OSError, ValueError, WireError):
            log.exception("filon serve: the writer's answers could not be read")
        with self._lock:  # the process ended: what it held will never be answered
            orphans = [n for n, holder in self._sent.items() if holder is proc]
        if orphans:
            self._settle(orphans, StoreUnavailable("the writer process stopped; retry"))

    def _settle(self, jobs: list[int], outcome: Outcome | Exception) -> None:
        with self._lock:
            futures = [(n, self._futures.pop(n, None)) for n in jobs]
            notes = {n: self._notes.pop(n) for n in jobs if n in self._notes}
            for n in jobs:
                self._sent.pop(n, None)
        for n, done in futures:
            if done is None:
                continue
            if isinstance(outcome, Exception):
                done.set_exception(outcome)
            elif n in notes:
                done.set_result(replace(outcome, notes=[notes[n], *outcome.notes]))
            else:
                done.set_result(outcome)
