"""The pipe between an agent process and filon's helper process: length-prefixed JSON frames.

Agent → helper: `["spans", [[kind, [fields, ...]], ...]]` (several traces per frame; `fields` are a
`SpanRecord`'s, in order) and `["flush", n]`. Helper → agent: `["ready"]`, `["flushed", n, counters]`,
`["closed", counters]` and `["error", message]`. End of input means: store what is pending, then exit.
Integers past 64 bits (which OTLP cannot carry either) arrive as floats.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import struct
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from filon.miner.core.jsontext import dumps_bytes
from filon.miner.settings import settings
from filon.tracing.ingest_stats import IngestStats
from filon.tracing.sampling.keeper import ExportCounters

HEADER = struct.Struct(">I")
MAX_FRAME = 1 << 30
PIPE_SIZE = 1 << 20  # Linux's default ceiling for an unprivileged process


class WireError(ValueError):
    """A frame that is not filon's: a bug or a stray writer on the pipe."""


def write_frame(stream: IO[bytes], message: Any) -> None:
    """`message` as JSON, or bytes already encoded."""
    payload = message if isinstance(message, bytes) else dumps_bytes(message)
    stream.write(HEADER.pack(len(payload)))
    stream.write(payload)
    stream.flush()


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame's payload; None at the end of the stream (a frame cut short counts as the end)."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    if size > MAX_FRAME:
        raise WireError(f"frame of {size} bytes announced, more than {MAX_FRAME}")
    payload = stream.read(size)
    return payload if len(payload) == size else None


def offload_enabled() -> bool:
    """FILON_OFFLOAD (on unless 0/false/no/off): deciding and storing run in filon's helper process."""
    return settings().offload


def helper_settings(
    db: str, config: Any, secret: bytes | None, **more: Any
) -> tuple[dict[str, Any], dict[str, str] | None]:
    """A helper's settings (`config` a `FlagConfig`) and the environment that carries its redaction key."""
    settings = {"db": db, "config": config.as_json(), "redact": secret is not None, **more}
    return settings, ({"FILON_SECRET": secret.decode()} if secret is not None else None)


HELPER_SETTINGS = "FILON_HELPER_SETTINGS"


def start_helper(settings: dict[str, Any], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`python -m filon.tracing.helper`, talking frames on its standard input and output, in a session of its
    own (Ctrl-C in the parent's terminal is for the parent), importing this same filon. Its settings go
    through its environment (`HELPER_SETTINGS`), never its command line: they carry the store's URL, whose
    password `ps` would show every local user."""
    root = str(Path(__file__).resolve().parent.parent)
    child_env = {**os.environ, **(env or {})}
    child_env["PYTHONPATH"] = os.pathsep.join(p for p in (root, child_env.get("PYTHONPATH")) if p)
    child_env[HELPER_SETTINGS] = json.dumps(settings)
    proc = subprocess.Popen(
        [sys.executable, "-m", "filon.tracing.helper"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=child_env,
        start_new_session=True,
    )
    if proc.stdin is not None and hasattr(fcntl, "F_SETPIPE_SZ"):  # Linux: frames of a few MB in one go
        with contextlib.suppress(OSError):
            fcntl.fcntl(proc.stdin.fileno(), fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    return proc


def counters_json(counters: ExportCounters) -> dict[str, Any]:
    return {**asdict(counters), "stored": counters.stored.as_json()}


def counters_from(data: dict[str, Any]) -> ExportCounters:
    fields = dict(data)
    stored = IngestStats.from_json(fields.pop("stored", {}))
    return ExportCounters(**fields, stored=stored)
