"""The settling worker in a process of its own, beside `filon serve`'s writer process.

A deferred receiver answers once spans are stored and redacted, and reads them after (`tracing.settle`).
Its worker first ran as a thread of the writer process, and there it took the GIL from the path it was
meant to leave alone: with the worker reading, the writer acknowledged spans at a third of its rate
(`bench/serve_throughput.py`, reading deferred against the same acknowledgement in-process: 0.11 to
0.16, and 0.53 with no worker at all). In a process of its own, niced, it still took a core's share and
the write lock (0.26); so it also waits, while the writer keeps committing, for a quiet moment before
each batch it reads, within a bound on the lag (`run`). Under a burst the queue's lag grows (`db stats`
and the TUI show it, at most about `MAX_LAG_S` behind), and the acknowledgements keep their pace.

Its SQLite transactions stay short: `settle` reads the waiting traces outside any transaction (the
driver begins one at the first write) and holds the write lock only while it writes what it read.

`SettleProcess` is the writer's handle: it starts `python -m filon.tracing.helper` in "settle" mode,
wakes it with a byte on its standard input after each commit (wakes that come while it reads are one
read), starts it again if it died, and at the end closes its input: the worker then reads what waits
and ends. `run` is the worker: woken, or every `IDLE_S` in any case (another receiver may share the
store), it reads the waiting traces a batch at a time (`settle.settle_batch`) until none waits; a batch
that fails is said in the log and tried again; each time nothing is left it writes `["settled", turns
read]` on its standard output (a test reads them; the writer reads only its first frame, `["ready"]`).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import select
import subprocess
import time
from typing import IO, Any

from filon.miner.rules.config import FlagConfig
from filon.miner.store import Store
from filon.tracing.ingest import Ingestor
from filon.tracing.settle import IDLE_S, settle_batch
from filon.tracing.wire import read_frame, start_helper, write_frame

log = logging.getLogger("filon.settle")
NICE = 10  # as the sampling helper: when cores are short, the acknowledgements go first
CLOSE_S = 30.0  # what the writer waits, at its end, for the worker to read what waits
QUIET_S = 0.05  # no wake for this long: the writer has nothing to commit, the worker reads a batch
MAX_LAG_S = 10.0  # a wake this old is read after, quiet or not: the queue's lag stays bounded


def run(settings: dict[str, Any], stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """The worker's loop, until its input ends and what waits has been read (0), or the store could not
    be read at that last pass (1: the traces stay waiting for the next worker).

    Acknowledgements first: while wakes keep coming (the writer commits a request every few
    milliseconds), the worker waits for a quiet moment (`QUIET_S` without a wake, or the settings'
    `quiet_s`) before each batch it reads, unless the first wake it has not read after is `MAX_LAG_S` (or
    `max_lag_s`) old; then it reads until nothing waits, as it does at the periodic pass and at the end
    of its input."""
    config = FlagConfig.from_json(settings.get("config", {}))
    with contextlib.suppress(OSError):
        os.nice(NICE)
    gc.freeze()
    _say(stdout, ["ready"])
    quiet, bound = float(settings.get("quiet_s", QUIET_S)), float(settings.get("max_lag_s", MAX_LAG_S))
    fd, ending, ingestor = stdin.fileno(), False, None
    owed: float | None = None  # when the first wake not yet followed by a drained store came
    turns = 0
    while True:
        wait = IDLE_S if owed is None else max(0.0, min(quiet, owed + bound - time.monotonic()))
        readable, _, _ = select.select([fd], [], [], wait)
        if readable:
            if not os.read(fd, 1 << 16):
                ending = True
            else:
                owed = owed or time.monotonic()
                if time.monotonic() - owed < bound:
                    continue  # the writer is busy: read at the next quiet moment
        try:
            ingestor = ingestor or Ingestor(Store.open(settings.get("db")), config)
            read, stats = settle_batch(ingestor)
        except Exception as exc:  # the store is down: said, tried again
            log.warning("the settling worker could not read the waiting traces (%s); trying again", exc)
            ingestor = None
            if ending:
                return 1
            time.sleep(IDLE_S)  # not at once: a store that is down stays down for a while
            continue
        turns += stats.turns
        if read:
            owed = owed or time.monotonic()  # more may wait: the next batch at the next quiet moment
            continue
        _say(stdout, ["settled", turns])
        owed, turns = None, 0
        if ending:
            return 0


def _say(stdout: IO[bytes], message: list[Any]) -> None:
    """A frame for whoever reads: the writer reads "ready" only, then closes its end (what follows is
    lost, as it is meant to be); a test reads them all."""
    with contextlib.suppress(OSError):
        write_frame(stdout, message)


class SettleProcess:
    """The writer's handle on its worker process (`run`)."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self._settings = {**settings, "mode": "settle"}
        self._proc = self._start(ready=True)

    def _start(self, ready: bool = False) -> subprocess.Popen[bytes]:
        """The worker, started; with `ready`, once it has said so (its imports done: a receiver's first
        requests do not share the cores with them)."""
        proc = start_helper(self._settings)
        if proc.stdout is not None:
            if ready and read_frame(proc.stdout) is None:
                log.warning("the settling worker ended before it was ready (status %s)", proc.poll())
            proc.stdout.close()
        if proc.stdin is not None:
            os.set_blocking(proc.stdin.fileno(), False)  # a full pipe already holds a wake
        return proc

    @property
    def pid(self) -> int:
        return self._proc.pid

    def wake(self) -> None:
        """After a commit: the worker reads what waits, now or when its pass ends."""
        if self._proc.poll() is not None:
            log.warning("the settling worker ended (status %s); started again", self._proc.returncode)
            self._proc = self._start()
        stdin = self._proc.stdin
        if stdin is not None:
            with contextlib.suppress(BlockingIOError, BrokenPipeError):
                os.write(stdin.fileno(), b"w")

    def close(self, timeout: float = CLOSE_S) -> int | None:
        """The end of its input: the worker reads what waits, then ends. One still reading after `timeout`
        is stopped; what it had not read waits in the store for the next worker. Its exit status."""
        if self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        try:
            return self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            log.warning("the settling worker was still reading after %.0f s; stopped", timeout)
            self._proc.terminate()
            return self._proc.wait(10)
