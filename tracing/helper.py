"""filon's helper process: the tail-sampling decision, redaction and storage, off the agent's process.

Deciding a trace (reading its turn, running the flag rules) is pure Python; in the agent's process it
would hold the GIL against the agent's own threads. Here it runs on another core, in one thread that
reads frames (`tracing/wire.py`) and runs the `Keeper`; the agent's side (`tracing/offload.py`) only
packs finished spans. While this process decides, it does not read: the pipe fills and the agent's
side feels the back-pressure, where drops are counted.

The same process, in "ingest" mode, is `filon serve`'s writer (`tracing/receiver.py`): the receiver
decodes requests while the helper stores the previous ones, on two cores instead of one GIL.

Started as `python -m filon.tracing.helper SETTINGS_JSON` with the settings `setup_tracing` resolved: `db`,
`rate`, `config` (the flag settings), `redact`, `max_traces` and, in "ingest" mode, `defer` (answer once
stored and redacted; read and flag after, in a third process: this module in "settle" mode,
`tracing.settle_process`); the key for redaction comes in the environment (FILON_SECRET). It ignores
Ctrl-C (the agent's terminal is not its business), runs niced, and ends when its input ends, after
storing what is pending: an agent that exits, even killed, loses nothing it had handed over.
"""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import os
import select
import signal
import sys
from functools import partial
from typing import IO, Any

from filon.miner.core.jsontext import loads
from filon.miner.rules.config import FlagConfig
from filon.miner.settings import settings as current_settings
from filon.miner.store import Store
from filon.tracing import settle_process
from filon.tracing.ingest import Ingestor, replaying
from filon.tracing.isolate import store_requests
from filon.tracing.records import SpanRecord
from filon.tracing.redact import Redactor
from filon.tracing.sampling.decider import Decider
from filon.tracing.sampling.keeper import Keeper
from filon.tracing.settle import accept
from filon.tracing.wire import HEADER, HELPER_SETTINGS, MAX_FRAME, WireError, counters_json, write_frame

log = logging.getLogger("filon.helper")
CHUNK = 4 << 20
GROUP_SPANS = 512  # a group closes once it holds this many spans


def frames(buffer: bytearray) -> list[bytes]:
    """The complete frames at the front of `buffer`, removed from it; a partial frame stays."""
    out, start = [], 0
    while len(buffer) - start >= HEADER.size:
        (size,) = HEADER.unpack_from(buffer, start)
        if size > MAX_FRAME:
            raise WireError(f"frame of {size} bytes announced, more than {MAX_FRAME}")
        end = start + HEADER.size + size
        if end > len(buffer):
            break
        out.append(bytes(buffer[start + HEADER.size : end]))
        start = end
    del buffer[:start]
    return out


def read_messages(fd: int, buffer: bytearray) -> list[Any] | None:
    """Read what the pipe has (blocking until something comes); the messages completed by it, decoded.
    None at the end of input, or on a frame that is not filon's (then nothing more can be trusted)."""
    chunk = os.read(fd, CHUNK)
    if not chunk:
        return None
    buffer += chunk
    try:
        batch = frames(buffer)
    except WireError as exc:
        log.error("%s; stopping", exc)
        return None
    messages = []
    for frame in batch:
        try:
            messages.append(loads(frame))
        except ValueError as exc:
            log.error("a frame could not be read (%s); skipped", exc)
    return messages


def _redactor(given: dict[str, Any]) -> Redactor | None:
    secret = current_settings().secret or ""
    keep = given.get("config", {}).get("test_identities", [])  # the agent's test customers, left as written
    return Redactor(secret.encode(), keep) if given.get("redact") and secret else None


def handle(message: list[Any], keeper: Keeper, stdout: IO[bytes]) -> None:
    if message[0] == "spans":
        for kind, rows in message[1]:
            if rows:
                keeper.take(kind, [SpanRecord(*fields) for fields in rows])
    elif message[0] == "flush":
        keeper.store()
        write_frame(stdout, ["flushed", message[1], counters_json(keeper.snapshot())])


def serve(settings: dict[str, Any], stdin: IO[bytes], stdout: IO[bytes]) -> int:
    if settings.get("mode") == "ingest":
        return serve_ingest(settings, stdin, stdout)
    if settings.get("mode") == "settle":
        return settle_process.run(settings, stdin, stdout)
    try:
        store = Store.open(settings["db"])
        config = FlagConfig.from_json(settings.get("config", {}))
    except Exception as exc:  # a bad store or settings: say so to the agent's side, then stop
        write_frame(stdout, ["error", str(exc)])
        return 2
    redactor = _redactor(settings)

    def factory() -> Ingestor:
        return Ingestor(store, config, redactor)

    max_traces = int(settings.get("max_traces", 10_000))
    keeper = Keeper(factory, Decider(float(settings.get("rate", 0.1)), config, max_traces))
    gc.freeze()  # what is loaded by now lives as long as the process: out of the collector's full passes
    with contextlib.suppress(OSError):
        os.nice(10)  # a background job: when cores are short, the agent goes first
    write_frame(stdout, ["ready"])
    fd = stdin.fileno()
    buffer = bytearray()
    while True:
        readable, _, _ = select.select([fd], [], [], keeper.wait_s())
        if readable:
            messages = read_messages(fd, buffer)
            if messages is None:
                break
            for message in messages:
                try:
                    handle(message, keeper, stdout)
                except (ValueError, TypeError, IndexError) as exc:
                    log.error("a frame could not be read (%s); skipped", exc)
        keeper.store_if_due()
    keeper.store()
    store.close()
    with contextlib.suppress(OSError):  # nobody listening any more: the counts are in the store anyway
        write_frame(stdout, ["closed", counters_json(keeper.snapshot())])
    return 0


def serve_ingest(settings: dict[str, Any], stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """`filon serve`'s writer: `["ingest", job, [fields, ...]]` frames, stored with no sampling, the jobs
    that arrived together in groups of about `GROUP_SPANS` spans, one transaction each (a group commit),
    each group answered `["stored", [jobs], stats]` or `["failed", [jobs], reason]`; where one request's
    content failed (`tracing.isolate`), each request is answered apart, a stored one with what it
    rejected and made safe: `["stored", [job], stats, {"rejected": [...], "notes": [...]}]`. The store is opened before "ready" (the receiver's `/health` waits
    for it, so the first request does not pay for it), and again at the next group after a failure: a
    store that is down gives "failed" (the receiver answers 503), not a dead process."""
    config = FlagConfig.from_json(settings.get("config", {}))
    redactor = _redactor(settings)
    ingestor: Ingestor | None = None
    try:
        ingestor = Ingestor(Store.open(settings.get("db")), config, redactor)
    except Exception as exc:
        log.warning("store unavailable at start (%s); tried again at the first request", exc)
    # with "defer": the worker reading what was stored, in a process of its own (`tracing.settle_process`)
    settler = settle_process.SettleProcess(settings) if settings.get("defer") else None
    gc.freeze()
    write_frame(stdout, ["ready"])
    fd = stdin.fileno()
    buffer = bytearray()
    while (messages := read_messages(fd, buffer)) is not None:
        for group in groups(messages):
            ingestor = _store_group(group, ingestor, config, redactor, settings, stdout)
            if settler is not None and ingestor is not None:
                settler.wake()
    if settler is not None:  # the receiver is ending: what was stored is read before this process ends
        settler.close()
    return 0


def groups(messages: list[Any], size: int = GROUP_SPANS) -> list[list[Any]]:
    """The requests read together, in order, cut into groups of about `size` spans: small requests share
    one transaction; a group is answered as soon as it is stored, so the receiver decodes the next
    requests while the store writes this one, rather than the two taking turns."""
    out: list[list[Any]] = [[]]
    count = 0
    for message in messages:
        if count >= size:
            out.append([])
            count = 0
        out[-1].append(message)
        spans = message[2] if isinstance(message, list) and len(message) > 2 else None
        count += len(spans) if isinstance(spans, list) else 0
    return out


def _store_group(
    messages: list[Any],
    ingestor: Ingestor | None,
    config: FlagConfig,
    redactor: Redactor | None,
    settings: dict[str, Any],
    stdout: IO[bytes],
) -> Ingestor | None:
    """One group in one transaction, answered `stored` or `failed`; the ingestor to use next (None after
    a failure: the store is opened again for the next group)."""
    jobs: list[Any] = []
    requests: list[list[SpanRecord]] = []
    for message in messages:
        try:
            requests.append([SpanRecord(*fields) for fields in message[2]])
            jobs.append(message[1])
        except (TypeError, IndexError) as exc:  # answered, so that no request waits for ever
            log.error("a frame could not be read (%s); skipped", exc)
            if isinstance(message, list) and len(message) > 1:
                write_frame(stdout, ["failed", [message[1]], f"unreadable spans: {exc}"])
    if not jobs:
        return ingestor
    try:
        if ingestor is None:
            ingestor = Ingestor(Store.open(settings.get("db")), config, redactor)
    except Exception as exc:
        log.warning("store unavailable for %d request(s): %s", len(jobs), exc)
        write_frame(stdout, ["failed", jobs, str(exc)[:500]])
        return None
    step = partial(accept, ingestor) if settings.get("defer") else ingestor.ingest
    outcomes = store_requests(partial(replaying, step), requests)
    if all(o.stats is outcomes[0].stats and not (o.rejected or o.notes or o.down) for o in outcomes):
        write_frame(stdout, ["stored", jobs, outcomes[0].stats.as_json()])  # the group, whole: one answer
        return ingestor
    for job, outcome in zip(jobs, outcomes, strict=True):  # some request failed: each its own answer
        if outcome.down is not None:
            write_frame(stdout, ["failed", [job], outcome.down])
        else:
            write_frame(stdout, ["stored", [job], outcome.stats.as_json(), outcome.as_json()])
    return None if any(o.down for o in outcomes) else ingestor


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, format="filon helper: %(message)s", stream=sys.stderr)
    given = os.environ.pop(HELPER_SETTINGS, None)  # out of what its own children would inherit
    if given is None:
        print(f"usage: {HELPER_SETTINGS}=SETTINGS_JSON python -m filon.tracing.helper", file=sys.stderr)
        return 2
    return serve(json.loads(given), sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main())
