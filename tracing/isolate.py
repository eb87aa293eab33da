"""Storing a group of requests so that one bad span costs nobody else's: the rest is stored.

`filon serve` stores the requests waiting together in one transaction (a group commit), and `filon
ingest` a file in batches. When such a batch fails, the question is whose failure it is. A store that
cannot take writes (unreachable, locked, a table gone) is nobody's data: every request of the group is
answered 503, to be retried. Anything else was caused by some span's content (a NUL that PostgreSQL
refuses in text, a lone surrogate no encoder takes, a value the reader chokes on): the requests are then
stored one by one, and within the one that still fails, trace by trace; a trace that fails is tried once
more with its text made safe (NUL removed, lone surrogates replaced), which is said, and only a trace that
fails even then is rejected, named, with the reason. A data error is the sender's: it is never a 503 that
a Collector retries for ever while the innocent spans behind it wait.

The success path is the batch as it was: one transaction, no scan of the spans.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from filon.tracing.grouping import by_trace
from filon.tracing.ingest_stats import IngestStats
from filon.tracing.records import SpanRecord

log = logging.getLogger(__name__)
UNSAFE = re.compile("[\x00\ud800-\udfff]")  # what no store takes in text: NUL, a lone surrogate
# the same written as JSON escapes, in an attribute that holds JSON (the messages a stack records): NUL
# (after an even run of backslashes, so not an escaped backslash), a high or a low surrogate alone
ESCAPED = re.compile(
    r"(?<!\\)((?:\\\\)*)\\u0000"
    r"|\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


@dataclass
class Outcome:
    """What became of one request: stored (its `stats`, shared with the others of its group), with the
    spans it had to reject and the values it made safe; or `down`, the store's reason for a retry."""

    stats: IngestStats = field(default_factory=IngestStats)
    rejected: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    down: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"rejected": self.rejected, "notes": self.notes}


# SQLSTATE classes a span's content causes (PostgreSQL): a data exception (22), an integrity violation
# (23), a program limit exceeded (54: a key too long for its index). Every other class is the store's
# (08 connection, 25 read-only, 40 serialization or deadlock, 42 a schema filon did not write, 53
# resources, 55 a lock not available, 57 shut down, 58 and XX system): retried, never rejected.
DATA_CLASSES = frozenset(("22", "23", "54"))
# PEP 249's classes, where no SQLSTATE says (SQLite, the driver's own checks): data and integrity errors
# are the content's; the others (operational: locked, full, gone; a corrupt file) are the store's
DATA_ERRORS = frozenset(("DataError", "IntegrityError"))
STORE_ERRORS = frozenset(
    (
        "OperationalError",
        "InterfaceError",
        "ProgrammingError",
        "InternalError",
        "NotSupportedError",
        "DatabaseError",
    )
)


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a database error, raised by the driver or wrapped by SQLAlchemy."""
    for error in (exc, getattr(exc, "orig", None)):
        code = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
        if isinstance(code, str) and len(code) == 5:
            return code
    return None


def store_unavailable(exc: BaseException) -> bool:
    """Whether a failure is the store's (retry later) rather than some span's content: by its SQLSTATE
    where there is one, else by its PEP 249 class; a connection invalidated, the store not opened, a
    timeout are the store's; an error that is no database's (a value no encoder takes, a reader's
    crash) is the content's."""
    from sqlalchemy import exc as sa

    from filon.miner.core.errors import StoreError

    if isinstance(exc, StoreError | ConnectionError | TimeoutError):
        return True
    if isinstance(exc, sa.DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, sa.DisconnectionError | sa.TimeoutError | sa.PendingRollbackError):
        return True
    code = sqlstate(exc)
    if code is not None:
        return code[:2] not in DATA_CLASSES
    for error in (exc, getattr(exc, "orig", None)):
        names = {kind.__name__ for kind in type(error).__mro__} if error is not None else set()
        if names & DATA_ERRORS:
            return False
        if names & STORE_ERRORS:
            return True
    return False


def _reason(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc) or type(exc).__name__
    return text.splitlines()[0][:200]


def made_safe(value: Any, count: list[int]) -> Any:
    """`value` with NUL removed and lone surrogates replaced in every string, keys too; `count[0]`
    counts the strings changed."""
    if isinstance(value, str):
        if UNSAFE.search(value) is None and ("\\u" not in value or ESCAPED.search(value) is None):
            return value
        count[0] += 1
        value = UNSAFE.sub(lambda m: "" if m.group() == "\x00" else "\ufffd", value)
        return ESCAPED.sub(lambda m: m.group(1) if m.group(1) is not None else "\\ufffd", value)
    if isinstance(value, dict):
        return {made_safe(k, count): made_safe(v, count) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [made_safe(v, count) for v in value]
    return value


def made_safe_note(count: int) -> str:
    """What a sender is told of values made safe before storing."""
    return f"NUL or lone surrogate removed from {count} value(s)"


def safe_record(r: SpanRecord, count: list[int]) -> SpanRecord:
    return SpanRecord(
        made_safe(r.trace_id, count),
        made_safe(r.span_id, count),
        made_safe(r.parent_span_id, count),
        made_safe(r.name, count),
        r.start_ns,
        r.end_ns,
        made_safe(r.status, count),
        made_safe(r.status_message, count),
        made_safe(r.kind, count),
        made_safe(r.attributes, count),
        made_safe(r.resource, count),
        made_safe(r.scope, count),
    )


def _one_request(
    ingest: Callable[[list[SpanRecord]], IngestStats], records: list[SpanRecord], whole: bool = True
) -> Outcome:
    """One request alone: whole if it can be (unless it was just tried whole: `whole` False), else trace
    by trace (made safe once), the rest rejected."""
    out = Outcome()
    if whole:
        try:
            out.stats = ingest(records)
            return out
        except Exception as exc:
            if store_unavailable(exc):
                return Outcome(down=_reason(exc))
    for trace_id, spans in by_trace(records).items():
        try:
            out.stats.add(ingest(spans))
            continue
        except Exception as exc:
            if store_unavailable(exc):
                return Outcome(down=_reason(exc))
            first = exc
        count = [0]
        safe = [safe_record(r, count) for r in spans]
        if count[0]:
            try:
                out.stats.add(ingest(safe))
                out.notes.append(f"trace {trace_id}: {made_safe_note(count[0])}")
                continue
            except Exception as exc:
                if store_unavailable(exc):
                    return Outcome(down=_reason(exc))
                first = exc
        log.warning("trace %s rejected (%d span(s)): %s", trace_id, len(spans), _reason(first))
        out.rejected += [f"trace {trace_id} span {r.span_id}: {_reason(first)}" for r in spans]
    return out


def store_requests(
    ingest: Callable[[list[SpanRecord]], IngestStats], requests: Iterable[list[SpanRecord]]
) -> list[Outcome]:
    """Each request's outcome, the requests stored in one call of `ingest` when nothing goes wrong."""
    requests = list(requests)
    try:
        stats = ingest([r for records in requests for r in records])
        return [Outcome(stats=stats) for _ in requests]
    except Exception as exc:
        if store_unavailable(exc):
            log.warning("store unavailable for %d request(s): %s", len(requests), _reason(exc))
            return [Outcome(down=_reason(exc)) for _ in requests]
        log.warning(
            "a batch of %d request(s) failed on its content (%s): stored one by one",
            len(requests),
            _reason(exc),
        )
    if len(requests) == 1:  # tried whole just now: trace by trace at once
        return [_one_request(ingest, requests[0], whole=False)]
    outcomes: list[Outcome] = []
    for records in requests:
        if outcomes and outcomes[-1].down is not None:  # the store went away: the rest are retried too
            outcomes.append(Outcome(down=outcomes[-1].down))
            continue
        outcomes.append(_one_request(ingest, records))
    return outcomes
