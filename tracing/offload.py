"""The agent's side of filon's helper process: finished traces packed into frames on a pipe.

The tail sampler hands each finished trace to `submit`, which only puts it on a queue (a full queue
drops and counts, it never blocks). The queue is `queue.SimpleQueue`, whose put and get are C: the
agent's thread pays no Python-level locking per trace (`queue.Queue`'s conditions took a quarter of
py-spy's samples of the sampler on the agent's thread), and its bound is its size read before the put.
One thread here packs traces as JSON (`orjson`, in C) and writes them to the helper
(`tracing/helper.py`), which decides, redacts and stores them on another core: the agent's process no
longer pays for the decision with its GIL. A write blocks when the helper lags (the pipe is full), with
the GIL released; the queue then fills and drops are counted.

If the helper dies, spans are counted as dropped and the agent goes on; nothing ever raises into it.
What is submitted once shutdown has begun is dropped and counted too, and a flush or a hand-over asked
then answers False at once: nothing waits on a queue no thread reads any more (`_refuse`).
"""

from __future__ import annotations

import contextlib
import logging
import queue
import subprocess
import threading
import time
from typing import Any

import orjson
from opentelemetry.sdk.trace import ReadableSpan

from filon.miner.core.jsontext import dumps_bytes, loads
from filon.tracing.records import RESOURCE, sdk_fields
from filon.tracing.sampling.keeper import ExportCounters, Waiter, left_on
from filon.tracing.wire import WireError, counters_from, read_frame, start_helper, write_frame

log = logging.getLogger(__name__)
TRACES_PER_FRAME = 256
GATHER_S = 0.005  # how long the writer lets traces gather before it packs them


_resources: dict[int, tuple[dict[str, Any], orjson.Fragment]] = {}  # by the resource's id
_sources: dict[int, dict[str, Any]] = {}  # the resource of each fragment, by the fragment's id


def _resource_json(resource: dict[str, Any]) -> orjson.Fragment | dict[str, Any]:
    """A resource's JSON, made once: every span of a process carries the same resource."""
    cached = _resources.get(id(resource))
    if cached is None or cached[0] is not resource:
        try:
            fragment = orjson.Fragment(orjson.dumps(resource))
        except TypeError:
            return resource  # orjson refuses it: the standard library will write it, span by span
        if len(_resources) > 64:
            _resources.clear()
            _sources.clear()
        cached = (resource, fragment)
        _resources[id(resource)] = cached
        _sources[id(fragment)] = resource
    return cached[1]


def encode(message: list[Any]) -> bytes:
    """A frame's JSON; with the standard library when orjson refuses a value (an integer past 64 bits),
    resources written out again since only orjson takes its own fragments."""
    try:
        return orjson.dumps(message)
    except TypeError:
        if message[0] == "spans":
            for _, spans in message[1]:
                for fields in spans:
                    if isinstance(fields[RESOURCE], orjson.Fragment):
                        fields[RESOURCE] = _sources[id(fields[RESOURCE])]
        return dumps_bytes(message)


def pack_trace(spans: list[ReadableSpan]) -> list[list[Any]]:
    """A trace's spans as field lists; its id is formatted once, its resource written once per process."""
    first = spans[0].context
    trace_id = first.trace_id.to_bytes(16, "big").hex() if first is not None else None
    packed = []
    for span in spans:
        fields = sdk_fields(span, trace_id)
        fields[RESOURCE] = _resource_json(fields[RESOURCE])
        packed.append(fields)
    return packed


class OffloadExporter:
    """Same interface as `StoreExporter` (submit, drop, flush, shutdown, counters), storing through a
    helper process started now with `settings` (see `tracing/helper.py`)."""

    def __init__(
        self, settings: dict[str, Any], env: dict[str, str] | None = None, max_queue: int = 2048
    ) -> None:
        # ("trace" | "late", SDK spans), ("flush", n), ("handed", waiter told once written), None to stop
        self._queue: queue.SimpleQueue[tuple[str, Any] | None] = queue.SimpleQueue()
        self._max_queue = max_queue  # traces waiting; agent threads putting at once may pass it by a few
        self._lock = threading.Lock()
        self._dropped = 0  # spans dropped on this side
        self._sent = 0  # spans written to the helper
        self._final = False  # the helper's last counts are complete (it answered "closed")
        self._last_warning = 0.0
        self._helper = ExportCounters()
        self._acks: dict[int, Waiter] = {}  # flushes waiting for their answer
        self._in_flight: set[int] = set()  # flushes written to the helper, answer not read yet
        self._next_ack = 0
        self._dead = False
        self._closing = False
        self._drained = False  # the writer has stopped: what is put from now on is refused by whoever puts it
        # flush, hand_over and shutdown: "not closing, then put" one step, so that no flush is put behind the
        # end (it would wait for a writer that may be stuck on the pipe); never taken by `submit`
        self._control = threading.Lock()
        self.ready = threading.Event()
        self.closing = threading.Event()  # shutdown has begun: submitted spans are dropped and counted
        self._proc = start_helper(settings, env)
        self._writer = threading.Thread(target=self._write_loop, name="filon-offload-writer", daemon=True)
        self._reader = threading.Thread(target=self._read_loop, name="filon-offload-reader", daemon=True)
        self._writer.start()
        self._reader.start()

    # --- the tail sampler's side ---------------------------------------------------------------------

    def submit(self, kind: str, spans: list[ReadableSpan]) -> None:
        """Never blocks: a full queue drops the spans and counts them, as does a shut exporter."""
        if self._dead or self._closing:
            self.drop(len(spans), "filon's helper process is gone" if self._dead else "the exporter is shut")
            return
        if self._queue.qsize() >= self._max_queue:
            self.drop(len(spans), "queue full")
        else:  # `_put` written out: the agent's thread pays no call more per trace
            self._queue.put((kind, spans))
            if self._drained:
                self._drain()

    def _put(self, item: tuple[str, Any]) -> None:
        """On the writer's queue; taken back and refused if the writer stopped meanwhile (it sets
        `_drained` before its last look at the queue: one of the two sees the item, as the GIL orders a
        put, a flag's write and a get; a build without the GIL would need a lock here)."""
        self._queue.put(item)
        if self._drained:
            self._drain()

    def drop(self, n: int, why: str) -> None:
        with self._lock:
            self._dropped += n
            dropped = self._dropped
        now = time.monotonic()
        if now - self._last_warning > 10:
            self._last_warning = now
            log.warning("filon exporter dropped %d span(s) (%s); %d dropped so far", n, why, dropped)

    @property
    def helper_pid(self) -> int:
        """The helper's process id (it runs in a session of its own)."""
        return self._proc.pid

    def hand_over(self, timeout_s: float = 30.0) -> bool:
        """Wait until everything submitted so far is written to the pipe (not necessarily stored)."""
        done = Waiter()
        with self._control:
            if self._closing:
                return False
            self._put(("handed", done))
        return done.wait(timeout_s) and not self._dead

    @property
    def counters(self) -> ExportCounters:
        """The helper's counts (as of its last answer), with the spans dropped on this side. When the
        helper died, the spans written to it that it never confirmed receiving count as dropped."""
        with self._lock:
            out = self._helper.copy()
            out.spans_dropped += self._dropped
            if self._dead and not self._final:
                out.spans_dropped += max(0, self._sent - self._helper.spans_received)
        return out

    def flush(self, timeout_s: float = 30.0) -> bool:
        """Wait until everything submitted so far is stored (or dropped) by the helper."""
        done = Waiter()
        with self._control:
            if self._closing:
                return False
            with self._lock:
                n = self._next_ack
                self._next_ack += 1
                self._acks[n] = done
            self._put(("flush", n))
        return done.wait(timeout_s) and not self._dead

    def shutdown(self, timeout_s: float = 30.0) -> None:
        """Hand over what is queued, let the helper store it, and wait for the helper to end."""
        with self._control:
            if self._closing:
                return
            self._closing = True
            self.closing.set()
            self._queue.put(None)
        self._writer.join(timeout_s)
        self._reader.join(timeout_s)
        try:
            self._proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            log.warning("filon's helper process did not end in %.0f s; killed", timeout_s)
            self._proc.kill()
            self._proc.wait()

    # --- the threads ---------------------------------------------------------------------------------

    def _write_loop(self) -> None:
        stdin = self._proc.stdin
        assert stdin is not None
        stop = False
        while not stop:
            items = [self._queue.get()]
            if items[0] is not None and items[0][0] in ("trace", "late"):
                time.sleep(GATHER_S)  # the GIL back to the agent while more traces end: fewer, larger frames
            # this thread alone takes from the queue: what its size says is there
            for _ in range(min(self._queue.qsize(), TRACES_PER_FRAME - 1)):
                items.append(self._queue.get_nowait())
            handed: list[Waiter] = []
            traces: list[list[Any]] = []
            count = 0
            for item in items:
                if item is None or stop:  # what came after the end (a submit racing shutdown): refused
                    stop = True
                    if item is not None:
                        self._refuse(item)
                    continue
                kind, payload = item
                if kind == "handed":
                    handed.append(payload)
                elif kind == "flush":
                    self._send(stdin, ["spans", traces], count)
                    traces, count = [], 0
                    with self._lock:
                        self._in_flight.add(payload)  # before writing: the answer may come at once
                    self._send(stdin, ["flush", payload], 0)
                    if self._dead:  # no answer will come: the spans before it are counted as dropped
                        self._ack(payload)
                else:
                    try:
                        traces.append([kind, pack_trace(payload)])
                        count += len(payload)
                    except Exception:  # a span the SDK should never have made: dropped, not raised
                        self.drop(len(payload), "a span could not be packed")
                        log.exception("filon exporter: a trace could not be packed")
            self._send(stdin, ["spans", traces], count)
            for waiter in handed:
                waiter.done()
        self._drained = True
        self._drain()
        with contextlib.suppress(OSError):
            stdin.close()  # the helper stores what is pending, answers "closed" and ends

    def _drain(self) -> None:
        """Everything still queued refused: the writer has stopped."""
        for item in left_on(self._queue):
            if item is not None:
                self._refuse(item)

    def _refuse(self, item: tuple[str, Any]) -> None:
        """An item the writer will not write: spans dropped and counted, a flush or a hand-over told so."""
        kind, payload = item
        if kind == "handed":
            payload.done(ok=False)
        elif kind == "flush":
            self._ack(payload, ok=False)
        else:
            self.drop(len(payload), "the exporter is shut")

    def _send(self, stdin: Any, message: list[Any], spans: int) -> None:
        if message[0] == "spans" and not message[1]:
            return
        if not self._dead:
            try:
                write_frame(stdin, encode(message))
                with self._lock:
                    self._sent += spans
                return
            except (OSError, ValueError):
                self._gone()
            except Exception:  # a value no JSON encoder takes: these spans only are lost
                log.exception("filon exporter: spans could not be encoded")
        if spans:
            self.drop(spans, "filon's helper process is gone")

    def _read_loop(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            while (frame := read_frame(stdout)) is not None:
                message = loads(frame)
                if message[0] == "ready":
                    self.ready.set()
                elif message[0] == "flushed":
                    with self._lock:
                        self._helper = counters_from(message[2])
                    self._ack(message[1])
                elif message[0] == "closed":
                    with self._lock:
                        self._helper = counters_from(message[1])
                        self._final = True
                elif message[0] == "error":
                    log.error("filon's helper process could not start: %s", message[1])
        except (OSError, ValueError, WireError):
            log.exception("filon exporter: the helper's answers could not be read")
        if not self._closing:
            self._gone()
        self._dead = True
        with self._lock:
            unanswered = list(self._in_flight)
        for n in unanswered:
            self._ack(n)

    def _ack(self, n: int, ok: bool = True) -> None:
        with self._lock:
            self._in_flight.discard(n)
            waiter = self._acks.pop(n, None)
        if waiter is not None:
            waiter.done(ok)

    def _gone(self) -> None:
        if not self._dead:
            self._dead = True
            log.warning(
                "filon's helper process ended (exit code %s): spans are dropped and counted from now on",
                self._proc.poll(),
            )
