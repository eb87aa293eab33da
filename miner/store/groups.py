"""Failure groups: the conversations that share a failure signature (`miner.store.signature`), worst first,
behind `filon traces list --groups`. The `Store` holds it as `store.groups`.

The groups are kept up to date on ingest (`miner.store.regroup`): a read takes them as they are, in time
proportional to the number of groups, not of conversations; a window sums their conversations by the day
they started. Each group's representative is its most urgent conversation, the newest among equals.
Worst first: a group holding an incident, then by its most urgent severity, then the largest, then the
newest.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, or_
from sqlalchemy import select as sa_select

from filon.miner.core.severity import Severity, at_least, severity_of_priority
from filon.miner.store.regroup import day_of
from filon.miner.store.repository import Repository
from filon.miner.store.reviews import GATE
from filon.miner.store.tables import (
    QUEUE_ORDER,
    ConversationRow,
    FailureGroupDayRow,
    FailureGroupRow,
    ReviewRow,
)

INCIDENT = 0  # an incident's priority (`miner.core.severity`)


@dataclass
class FailureGroup:
    signature: str
    size: int
    priority: int  # the most urgent of its members'
    first_seen: datetime
    last_seen: datetime
    representative: str  # its most urgent conversation, the newest among equals
    reason: str  # the representative's

    @property
    def id(self) -> str:
        """A short handle for the group, stable as its signature: what `--group` takes."""
        return group_id(self.signature)

    @property
    def severity(self) -> str:
        level = severity_of_priority(self.priority)
        return level.value if level else ""

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "signature": self.signature,
            "size": self.size,
            "severity": self.severity or None,
            "incident": self.priority == INCIDENT,
            "first_seen": self.first_seen.isoformat(),
            "last_seen": self.last_seen.isoformat(),
            "representative": self.representative,
            "reason": self.reason,
        }


def group_id(signature: str) -> str:
    return hashlib.sha256(signature.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _production(query: Any, replays: bool) -> Any:
    """Production's conversations only (or the gate's replays only), as `traces list` has them."""
    conversations = ConversationRow.__table__  # type: ignore[attr-defined]
    reviews = ReviewRow.__table__  # type: ignore[attr-defined]
    query = query.select_from(
        conversations.outerjoin(reviews, reviews.c.conversation_id == conversations.c.id)
    )
    reviewer = reviews.c.reviewer
    return query.where(reviewer == GATE if replays else or_(reviewer.is_(None), reviewer != GATE))


class GroupStore(Repository):
    def failure_groups(
        self,
        severity: Severity | None = None,
        limit: int | None = 50,
        replays: bool = False,
        since: datetime | None = None,
        until: datetime | None = None,
        exact: bool = False,
    ) -> list[FailureGroup]:
        """The groups, worst first; `severity` keeps the groups whose most urgent member is at that level
        or above; `since` and `until`, the conversations that started on those days (`until` excluded);
        `limit` None: every group. Read from the groups kept up to date on ingest (`miner.store.regroup`), in
        time proportional to the number of groups, whatever the store holds. `exact` (and the gate's
        `replays`, which are kept apart) count the conversations themselves, last active in that span."""
        if exact or replays:
            return self._counted(severity, limit, replays, since, until)
        g = FailureGroupRow.__table__.c  # type: ignore[attr-defined]
        key: Any = g.signature
        if since is None and until is None:
            size: Any = g.size
            query = sa_select(
                g.signature, g.size, g.priority, g.first_seen, g.last_seen, g.representative, g.reason
            )
            query = query.where(g.size > 0)
        else:
            d = FailureGroupDayRow.__table__.c  # type: ignore[attr-defined]
            size, key = func.sum(d.size), d.signature
            days = [d.day >= day_of(since)] if since is not None else []
            days += [d.day < day_of(until)] if until is not None else []
            query = (
                sa_select(
                    d.signature, size, g.priority, g.first_seen, g.last_seen, g.representative, g.reason
                )
                .join(FailureGroupRow.__table__, g.signature == d.signature)  # type: ignore[attr-defined]
                .where(*days)
                .group_by(d.signature, g.priority, g.first_seen, g.last_seen, g.representative, g.reason)
                .having(size > 0)
            )
        if severity is not None:
            query = query.where(g.priority <= at_least(severity))
        query = query.order_by(g.priority, size.desc(), g.last_seen.desc(), key)
        if limit is not None:
            query = query.limit(limit)
        with self.engine.connect() as db:
            return [
                FailureGroup(sig, int(n), p, _aware(first), _aware(last), rep, why)
                for sig, n, p, first, last, rep, why in db.execute(query).all()
            ]

    def _counted(
        self,
        severity: Severity | None,
        limit: int | None,
        replays: bool,
        since: datetime | None,
        until: datetime | None,
    ) -> list[FailureGroup]:
        """The groups counted from the conversations themselves (last active in the span)."""
        conv = ConversationRow.__table__.c  # type: ignore[attr-defined]
        worst = func.min(conv.priority)
        size = func.count()
        latest = func.max(conv.last_at)
        window = [conv.last_at >= since] if since is not None else []
        window += [conv.last_at < until] if until is not None else []
        query = _production(
            sa_select(conv.signature, size, worst, func.min(conv.started_at), latest), replays
        ).where(*window)
        query = query.group_by(conv.signature)
        if severity is not None:
            query = query.having(worst <= at_least(severity))
        query = query.order_by(worst, size.desc(), latest.desc(), conv.signature)
        if limit is not None:
            query = query.limit(limit)
        out = []
        with self.engine.connect() as db:
            for signature, n, priority, first, last in db.execute(query).all():
                members = _production(sa_select(conv.id, conv.reason), replays).where(
                    conv.signature == signature, *window
                )
                top = db.execute(members.order_by(*QUEUE_ORDER).limit(1)).first()
                representative, reason = (top[0], top[1]) if top is not None else ("", "")
                out.append(
                    FailureGroup(signature, n, priority, _aware(first), _aware(last), representative, reason)
                )
        return out


def _aware(when: datetime) -> datetime:
    """A stored time (SQLite gives it back naive, in UTC)."""
    return when if when.tzinfo else when.replace(tzinfo=UTC)
