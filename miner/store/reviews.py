"""The review queue and its claims: the store's half that the TUI and `filon draft` use.

A claim is an atomic compare-and-set on the `reviews` row: it succeeds when the conversation is open,
already held by the same reviewer, or held by a claim that expired (5 minutes, renewed by its holder). Two reviewers never
hold the same conversation. The queue is read with keyset pagination (priority, last activity, id), so
page 1,000 costs what page 1 does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, false, or_, select, text, update

from filon.miner.core.severity import (
    INCIDENT_PRIORITY,
    NO_FLAG,
    ReviewStatus,
    Severity,
    at_least,
    severity_of_priority,
)
from filon.miner.store.regroup import recount
from filon.miner.store.repository import Repository
from filon.miner.store.sql import upsert_insert
from filon.miner.store.tables import QUEUE_ORDER, CaseLink, CaseVerdict, ConversationRow, ReviewRow

# a claim lasts five minutes unless its holder renews it: the review TUI renews the claims it holds every
# minute (`HEARTBEAT`), so that a reviewer's screen killed outright (kill -9, a lost SSH session) frees
# its conversation within minutes rather than holding it for half an hour
CLAIM_TTL = timedelta(minutes=5)
HEARTBEAT = timedelta(minutes=1)
GATE = "filon eval"  # the reviewer name of the gate's own replays, dismissed as they are stored
CONVERSATIONS = ConversationRow.__table__  # type: ignore[attr-defined]
LINKS = CaseLink.__table__  # type: ignore[attr-defined]


@dataclass
class QueueRow:
    conversation_id: str
    channel: str
    turns: int
    flags: list[str]
    priority: int
    last_at: datetime
    status: str
    claimant: str | None
    case_id: str | None
    reason: str = ""  # of the flag that sets the priority
    wrote: bool = False  # a write succeeded: first within its severity

    @property
    def severity(self) -> str:
        """The top flag's severity ("critical" for an incident)."""
        level = severity_of_priority(self.priority)
        return level.value if level else ""

    @property
    def cursor(self) -> Cursor:
        return (self.priority, self.wrote, self.last_at.isoformat(), self.conversation_id)


Cursor = tuple[int, bool, str, str]  # the queue's order: priority, wrote (first), last_at (newest first), id


@dataclass
class ClaimResult:
    ok: bool
    holder: str | None
    status: str

    @property
    def held_by_another(self) -> bool:
        """The one rule the TUI and `filon draft --write` hold to: a conversation another reviewer has
        claimed (and whose claim has not expired) is theirs; one already done or dismissed may give a
        further case, a reviewer's call."""
        return not self.ok and self.status == ReviewStatus.CLAIMED


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


REVIEWS = ReviewRow.__table__  # type: ignore[attr-defined]
VERDICTS = CaseVerdict.__table__  # type: ignore[attr-defined]


def _held(conn: Any, conversation_id: str) -> bool:
    """Whether the store holds the conversation (a review row of one it lacks would break the key)."""
    return (
        conn.execute(select(CONVERSATIONS.c.id).where(CONVERSATIONS.c.id == conversation_id)).first()
        is not None
    )


def claimable(now: datetime, reviewer: str | None = None) -> ColumnElement[bool]:
    """The one definition of a conversation a reviewer may take: no review row yet (an outer join), open,
    or claimed by a claim that expired, or (with `reviewer`) already theirs. Every claim, finish, and
    "open" filter of the queue uses it."""
    rev = REVIEWS.c
    held = rev.expires_at < now if reviewer is None else or_(rev.reviewer == reviewer, rev.expires_at < now)
    return or_(
        rev.status.is_(None), rev.status == ReviewStatus.OPEN, and_(rev.status == ReviewStatus.CLAIMED, held)
    )


class ReviewStore(Repository):
    def _ensure_review(self, conn: Any, *conversation_ids: str) -> None:
        """A review row, open, for each conversation that has none yet (one statement for them all)."""
        stmt = upsert_insert(self.engine, REVIEWS).on_conflict_do_nothing(index_elements=["conversation_id"])
        conn.execute(
            stmt, [{"conversation_id": c, "status": ReviewStatus.OPEN.value} for c in conversation_ids]
        )

    def _claim_in(self, conn: Any, conversation_id: str, reviewer: str, now: datetime) -> ClaimResult:
        """The compare-and-set itself, inside the caller's transaction."""
        table = REVIEWS
        self._ensure_review(conn, conversation_id)
        done = conn.execute(
            update(table)
            .where(table.c.conversation_id == conversation_id, claimable(now, reviewer))
            .values(
                status=ReviewStatus.CLAIMED.value,
                reviewer=reviewer,
                claimed_at=now,
                expires_at=now + CLAIM_TTL,
                updated_at=now,
            )
        )
        row = conn.execute(
            select(table.c.status, table.c.reviewer).where(table.c.conversation_id == conversation_id)
        ).one()
        return ClaimResult(done.rowcount == 1, row.reviewer, row.status)

    def claim(self, conversation_id: str, reviewer: str, now: datetime | None = None) -> ClaimResult:
        now = now or datetime.now(UTC)
        with self.engine.begin() as conn:
            if not _held(conn, conversation_id):
                return ClaimResult(False, None, "missing")
            return self._claim_in(conn, conversation_id, reviewer, now)

    def claim_next(self, reviewer: str, now: datetime | None = None) -> str | None:
        """Claim the first open item of the queue for `reviewer`; None when the queue is empty.

        On PostgreSQL the candidates are read `FOR UPDATE SKIP LOCKED` in the claiming transaction, so
        reviewers asking at the same moment get different conversations without waiting on each other;
        elsewhere the claim's own compare-and-set settles a race, and the loser takes the next one.
        """
        now = now or datetime.now(UTC)
        conv = CONVERSATIONS
        rev = REVIEWS
        query = (
            select(conv.c.id)
            .select_from(conv.outerjoin(rev, rev.c.conversation_id == conv.c.id))
            .where(conv.c.priority < NO_FLAG, claimable(now))
            .order_by(*QUEUE_ORDER)
            .limit(20)
        )
        if self.engine.dialect.name == "postgresql":  # one row at a time: the others stay for the others
            query = query.limit(1).with_for_update(of=conv, skip_locked=True)
        with self.engine.begin() as conn:
            for (conversation_id,) in conn.execute(query).all():
                if self._claim_in(conn, conversation_id, reviewer, now).ok:
                    return str(conversation_id)
        return None

    def _finish(self, conversation_id: str, reviewer: str, status: ReviewStatus, note: str = "") -> bool:
        """False when another reviewer holds it, or when the store has no such conversation (a review row
        of none would break the reviews' foreign key)."""
        table = REVIEWS
        now = datetime.now(UTC)
        with self.engine.begin() as conn:
            if not _held(conn, conversation_id):
                return False
            self._ensure_review(conn, conversation_id)
            done = conn.execute(
                update(table)
                .where(table.c.conversation_id == conversation_id, claimable(now, reviewer))
                .values(status=status.value, reviewer=reviewer, note=note, expires_at=None, updated_at=now)
            )
            return done.rowcount == 1

    def release(self, conversation_id: str, reviewer: str) -> bool:
        table = ReviewRow.__table__  # type: ignore[attr-defined]
        with self.engine.begin() as conn:
            done = conn.execute(
                update(table)
                .where(
                    table.c.conversation_id == conversation_id,
                    table.c.status == ReviewStatus.CLAIMED,
                    table.c.reviewer == reviewer,
                )
                .values(
                    status=ReviewStatus.OPEN.value,
                    reviewer=None,
                    expires_at=None,
                    updated_at=datetime.now(UTC),
                )
            )
            return done.rowcount == 1

    def dismiss(self, conversation_id: str, reviewer: str, reason: str) -> bool:
        """Not worth a case: recorded with the reason. False when another reviewer holds it. The gate's
        own replays, dismissed as they are stored, leave the failure groups (production's only)."""
        done = self._finish(conversation_id, reviewer, ReviewStatus.DISMISSED, reason)
        if done and reviewer == GATE:
            conv = ConversationRow.__table__  # type: ignore[attr-defined]
            with self.engine.begin() as conn:
                found = conn.execute(select(conv.c.signature).where(conv.c.id == conversation_id)).first()
                if found is not None:
                    recount(conn, [found[0]])
        return done

    def complete(self, conversation_id: str, reviewer: str, case_id: str, provenance: dict[str, Any]) -> bool:
        """A case was made from it: link the case (always: a written case's source is never pruned), and
        mark the conversation done, unless another reviewer holds it (False then)."""
        with self.engine.begin() as conn:
            conn.execute(
                LINKS.insert().values(
                    case_id=case_id,
                    conversation_id=conversation_id,
                    provenance=json.dumps(provenance, ensure_ascii=False),
                    created_at=datetime.now(UTC),
                )
            )
        return self._finish(conversation_id, reviewer, ReviewStatus.DONE, f"case {case_id}")

    def link_missing(self, written: list[tuple[str, str, dict[str, Any]]], reviewer: str) -> list[str]:
        """Cases written whose link never landed (a save killed between the file and the link), each as
        (case id, source conversation, provenance): linked now, their conversation marked done where no
        one else holds it. The ids linked; a conversation the store does not hold is left alone."""
        if not written:
            return []
        ids = sorted({conversation_id for _, conversation_id, _ in written})
        with self.engine.connect() as conn:
            known = {
                r[0] for r in conn.execute(select(CONVERSATIONS.c.id).where(CONVERSATIONS.c.id.in_(ids)))
            }
            found = conn.execute(
                select(LINKS.c.case_id, LINKS.c.conversation_id).where(LINKS.c.conversation_id.in_(ids))
            )
            linked_already = {(r[0], r[1]) for r in found}
        linked = []
        for case_id, conversation_id, provenance in written:
            if conversation_id in known and (case_id, conversation_id) not in linked_already:
                self.complete(conversation_id, reviewer, case_id, provenance)
                linked.append(case_id)
        return linked

    def record_verdict(self, case_id: str, verdict: str, note: str, reviewer: str) -> None:
        """From the failures screen: "the case is wrong" or "agent regression", with a note."""
        with self.engine.begin() as conn:
            conn.execute(
                VERDICTS.insert().values(
                    case_id=case_id,
                    verdict=verdict,
                    note=note,
                    reviewer=reviewer,
                    created_at=datetime.now(UTC),
                )
            )

    def verdicts(self, case_id: str) -> list[dict[str, Any]]:
        query = (
            select(VERDICTS.c.verdict, VERDICTS.c.note, VERDICTS.c.reviewer)
            .where(VERDICTS.c.case_id == case_id)
            .order_by(VERDICTS.c.id)
        )
        with self.engine.connect() as conn:
            return [{"verdict": v, "note": n, "reviewer": r} for v, n, r in conn.execute(query)]

    def review_queue(
        self,
        after: Cursor | None = None,
        limit: int = 50,
        flag: str | None = None,
        status: str | None = None,
        now: datetime | None = None,
        severity: Severity | None = None,
        group: str | None = None,
        reviewer: str | None = None,
    ) -> list[QueueRow]:
        """Flagged conversations by priority (incidents, then severity, a changed record first), newest
        first; keyset pages.
        `severity` keeps that level and above; `group`, the members of one failure signature. The open
        view also holds `reviewer`'s own claims, and an incident whatever its status: a person said it
        matters, so it is on top until that person removes it."""
        now = now or datetime.now(UTC)
        query = _queue_query(flag, status, now, severity, reviewer)
        if group is not None:  # spelled out: the planner proves the group index's own condition from it
            query = query.where(
                CONVERSATIONS.c.signature == group, text(f"conversations.priority < {NO_FLAG}")
            )
        with self.engine.connect() as conn:
            rows = _keyset_page(conn, query, after, limit)
            ids = [r.id for r in rows]
            cases: dict[str, str] = {}
            if ids:
                links = select(LINKS.c.conversation_id, LINKS.c.case_id).where(
                    LINKS.c.conversation_id.in_(ids)
                )
                cases = {conv_id: case_id for conv_id, case_id in conn.execute(links)}
        return [_queue_row(r, cases.get(r.id), now) for r in rows]


def _queue_query(
    flag: str | None,
    status: str | None,
    now: datetime,
    severity: Severity | None,
    reviewer: str | None = None,
) -> Select[Any]:
    """The queue's rows with their review, filtered; no order nor page yet."""
    conv, rev = CONVERSATIONS, REVIEWS
    query = (
        select(
            conv.c.id,
            conv.c.channel,
            conv.c.turn_count,
            conv.c.flag_kinds,
            conv.c.priority,
            conv.c.last_at,
            conv.c.reason,
            conv.c.wrote,
            rev.c.status,
            rev.c.reviewer,
            rev.c.expires_at,
        )
        .select_from(conv.outerjoin(rev, rev.c.conversation_id == conv.c.id))
        .where(conv.c.priority < (NO_FLAG if severity is None else at_least(severity) + 1))
    )
    if flag:
        query = query.where(conv.c.flag_kinds.contains(f'"{flag}"'))
    if status == ReviewStatus.OPEN:
        query = query.where(or_(claimable(now, reviewer), conv.c.priority == INCIDENT_PRIORITY))
    elif status:
        query = query.where(rev.c.status == status)
    return query


def _keyset_page(conn: Any, query: Select[Any], after: Cursor | None, limit: int) -> list[Any]:
    """One page in queue order after the cursor: the keyset read as index ranges (the rest of the cursor's
    priority and write, then its priority's conversations that wrote nothing, then the priorities after
    it), not one OR the planner would scan."""
    conv = CONVERSATIONS
    order = QUEUE_ORDER
    if after is None:
        return list(conn.execute(query.order_by(*order).limit(limit)).all())
    priority, wrote, last_at, conv_id = after
    at = datetime.fromisoformat(last_at)
    ranges = [
        query.where(
            conv.c.priority == priority,
            conv.c.wrote == wrote,
            conv.c.last_at <= at,
            or_(conv.c.last_at < at, conv.c.id > conv_id),
        ),
        *([query.where(conv.c.priority == priority, conv.c.wrote == false())] if wrote else []),
        query.where(conv.c.priority > priority),
    ]
    rows: list[Any] = []
    for part in ranges:
        if len(rows) >= limit:
            break
        rows += conn.execute(part.order_by(*order).limit(limit - len(rows))).all()
    return rows


def _queue_row(r: Any, case_id: str | None, now: datetime) -> QueueRow:
    """A row of the queue; a claim that expired shows as open."""
    state = r.status or ReviewStatus.OPEN.value
    expires = _aware(r.expires_at)
    if state == ReviewStatus.CLAIMED and expires is not None and expires < now:
        state = ReviewStatus.OPEN.value
    return QueueRow(
        r.id,
        r.channel,
        r.turn_count,
        json.loads(r.flag_kinds),
        r.priority,
        _aware(r.last_at) or now,
        state,
        r.reviewer if state == ReviewStatus.CLAIMED else None,
        case_id,
        r.reason,
        bool(r.wrote),
    )
