"""What the store holds, in one read: `filon db stats`, the demo, the traffic summary's tests and the
benchmarks all count through `Store.stats()`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, func, select
from sqlmodel import SQLModel

from filon.miner.core.messages import Said, said
from filon.miner.core.severity import Severity
from filon.miner.store import tables as _tables  # noqa: F401  (registers the tables in the metadata)

T = SQLModel.metadata.tables


@dataclass
class StoreStats:
    conversations: int = 0
    turns: int = 0  # rows: one per trace read as a turn, a tool-call step of a trace-per-call stack included
    turns_lived: int = 0  # the conversations' turns as lived (their `turn_count`): steps joined to answers
    spans: int = 0
    flags: int = 0
    eval_runs: int = 0
    flagged: int = 0  # conversations with at least one flag
    flagged_by_kind: dict[str, int] = field(default_factory=dict)  # conversations, per flag kind
    flags_by_kind_severity: dict[str, dict[str, int]] = field(default_factory=dict)  # flags, kind → level
    cases_made: int = 0
    oldest: datetime | None = None
    waiting: int = 0  # traces stored but not read yet (`tracing.settle`): the queue's lag behind production
    waiting_s: float = 0.0  # how long the oldest of them has waited
    unread: int = 0  # spans of traces the worker could not read as a turn: kept, in no conversation

    def lag(self) -> int | Said:
        """The traces waiting to be read, with how long the oldest has waited."""
        if not self.waiting:
            return 0
        return said("stats.waiting_since", count=self.waiting, age=_age(self.waiting_s))

    def flags_by_severity(self) -> dict[str, int]:
        """Flags per severity, every kind together, most severe first."""
        out: dict[str, int] = {}
        for levels in self.flags_by_kind_severity.values():
            for level, n in levels.items():
                out[level] = out.get(level, 0) + n
        return {level: out[level] for level in sorted(out, key=_rank)}

    def counts(self) -> dict[str, int]:
        """The four trace tables' row counts."""
        return {
            "conversations": self.conversations,
            "turns": self.turns,
            "spans": self.spans,
            "flags": self.flags,
        }

    def lines(self) -> list[tuple[Said | str, Any]]:
        """For `filon db stats`: a label (a sentence of `stats.*`, or a flag kind as stored) and a value
        per line."""
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.flagged_by_kind.items())) or "-"
        oldest = said("stats.at_utc", at=f"{self.oldest:%Y-%m-%d %H:%M}") if self.oldest else "-"
        return [
            (said("stats.conversations"), self.conversations),
            (said("stats.turns"), self._turns()),
            (said("stats.spans"), self.spans),
            (said("stats.flags"), self.flags),
            (said("stats.flagged"), self.flagged),
            (said("stats.flagged_by_kind"), kinds),
            (said("stats.flags_by_severity"), _levels(self.flags_by_severity())),
            *((f"  {kind}", _levels(levels)) for kind, levels in sorted(self.flags_by_kind_severity.items())),
            (said("stats.cases_made"), self.cases_made),
            (said("stats.eval_runs"), self.eval_runs),
            (said("stats.oldest"), oldest),
            (said("stats.waiting"), self.lag()),
            (said("stats.unread"), self.unread),
        ]

    def _turns(self) -> int | Said:
        if self.turns_lived == self.turns:
            return self.turns
        return said("stats.turns_lived", lived=self.turns_lived, traces=self.turns)


def _rank(level: str) -> int:
    order = [s.value for s in Severity]
    return order.index(level) if level in order else len(order)


def _age(seconds: float) -> str:
    """A short age: 42 s, 7 min, 3 h."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.0f} h"


def _levels(counts: dict[str, int]) -> str:
    return ", ".join(f"{level} {n}" for level, n in sorted(counts.items(), key=lambda x: _rank(x[0]))) or "-"


def store_stats(engine: Engine) -> StoreStats:
    """What the store holds (`db stats`)."""
    out = StoreStats()
    conv, flags, links = T["conversations"], T["flags"], T["case_links"]
    with engine.connect() as conn:
        for name in ("conversations", "turns", "spans", "flags", "eval_runs"):
            setattr(out, name, int(conn.execute(select(func.count()).select_from(T[name])).scalar() or 0))
        out.turns_lived = int(conn.execute(select(func.sum(conv.c.turn_count))).scalar() or 0)
        out.flagged = int(
            conn.execute(select(func.count()).select_from(conv).where(conv.c.flag_kinds != "[]")).scalar()
            or 0
        )
        by_kind = select(flags.c.kind, func.count(func.distinct(flags.c.conversation_id))).group_by(
            flags.c.kind
        )
        out.flagged_by_kind = {k: int(n) for k, n in conn.execute(by_kind)}
        by_level = select(flags.c.kind, flags.c.severity, func.count()).group_by(
            flags.c.kind, flags.c.severity
        )
        for kind, level, n in conn.execute(by_level):
            out.flags_by_kind_severity.setdefault(kind, {})[level] = int(n)
        out.cases_made = int(conn.execute(select(func.count()).select_from(links)).scalar() or 0)
        out.oldest = conn.execute(select(func.min(conv.c.started_at))).scalar()
        out.waiting, out.waiting_s = waiting(conn)
        unread = select(func.count()).select_from(T["spans"]).where(unread_spans())
        out.unread = int(conn.execute(unread).scalar() or 0)
    return out


def unread_spans() -> ColumnElement[bool]:
    """The spans no reader could read (`tracing.settle`): in no conversation, and no longer waiting."""
    spans, pending = T["spans"], T["pending_traces"]
    return (spans.c.conversation_id == "") & spans.c.trace_id.not_in(select(pending.c.trace_id))


def waiting(conn: Connection) -> tuple[int, float]:
    """How many traces wait to be read, and for how many seconds the oldest has waited."""
    pending = T["pending_traces"]
    count, first = conn.execute(select(func.count(), func.min(pending.c.received_ns))).one()
    return int(count or 0), max(0.0, (time.time_ns() - first) / 1e9) if first else 0.0
