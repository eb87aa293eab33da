"""The store's trace reads: conversations in review order and one conversation whole, behind `filon traces`
and the TUI. Writes go through `miner.store.batch.TraceBatch`. The `Store` holds it as `store.traces`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from difflib import get_close_matches
from typing import Any

from sqlalchemy import or_
from sqlmodel import Session, col, select

from filon.miner.core.model import Flag, Turn, join_steps
from filon.miner.core.severity import ReviewStatus, Severity, at_least, severity_of_priority
from filon.miner.store.batch import chunks
from filon.miner.store.repository import Repository
from filon.miner.store.reviews import GATE, claimable
from filon.miner.store.rows import flag_of_row, row_turn
from filon.miner.store.tables import QUEUE_ORDER, ConversationRow, FlagRow, ReviewRow, TurnRow


@dataclass
class ConversationSummary:
    conversation_id: str
    channel: str
    turns: int
    tools: list[str]
    escalated: bool
    flags: list[str]
    status: str
    started_at: datetime
    severity: str = ""  # of the top flag ("critical" for an incident); empty when unflagged
    reason: str = ""  # of the top flag
    reasons: list[Flag] = field(default_factory=list)  # every flag, top first

    def as_json(self) -> dict[str, Any]:
        return {
            "conversation_id": self.conversation_id,
            "channel": self.channel,
            "turns": self.turns,
            "tools": self.tools,
            "escalated": self.escalated,
            "flags": self.flags,
            "severity": self.severity or None,
            "reasons": [
                {"kind": f.kind, "cause": f.cause, "severity": f.severity, "reason": f.reason, "turn": f.turn}
                for f in self.reasons
            ],
            "status": self.status,
            "started_at": self.started_at.isoformat(),
        }


def _listed(
    flag: str | None, status: str | None, severity: Severity | None, replays: bool, group: str | None = None
) -> Any:
    """The conversations `traces list` asks for, each with its review status (a query, not yet run);
    `group`: those of one failure signature."""
    query = select(ConversationRow, ReviewRow.status).join(
        ReviewRow, col(ReviewRow.conversation_id) == col(ConversationRow.id), isouter=True
    )
    reviewer = col(ReviewRow.reviewer)
    query = query.where(reviewer == GATE if replays else or_(reviewer.is_(None), reviewer != GATE))
    if flag:
        query = query.where(col(ConversationRow.flag_kinds).contains(f'"{flag}"'))
    if group is not None:
        query = query.where(col(ConversationRow.signature) == group)
    if severity is not None:
        query = query.where(col(ConversationRow.priority) <= at_least(severity))
    if status == ReviewStatus.OPEN:
        query = query.where(claimable(datetime.now(UTC)))  # an expired claim is open again
    elif status:
        query = query.where(col(ReviewRow.status) == status)
    return query


class TraceStore(Repository):
    def _session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    # --- reads ---------------------------------------------------------------------------------------
    def signatures_of(self, conversation_ids: list[str]) -> dict[str, str]:
        """The failure signature of each of these conversations the store holds (by id): the group a
        case drafted from one of them covers whatever its checks say."""
        out: dict[str, str] = {}
        ident = col(ConversationRow.id)
        with self._session() as s:
            for part in chunks(sorted(set(conversation_ids)), 500):
                query = select(ident, col(ConversationRow.signature)).where(ident.in_(part))
                out.update({cid: sig for cid, sig in s.exec(query).all() if sig})
        return out

    def similar_ids(self, asked: str, limit: int = 3) -> list[str]:
        """Conversation ids a mistyped or unprefixed id probably meant: those ending with `:ASKED` (the
        channel left out, `traffic-7-4` for `web:traffic-7-4`), then those containing it."""
        if not asked.strip():
            return []
        pattern = asked.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        ident = col(ConversationRow.id)
        with self._session() as s:
            ending = s.exec(select(ident).where(ident.like(f"%:{pattern}", escape="\\")).limit(limit)).all()
            if ending:
                return sorted(ending)
            inside = s.exec(select(ident).where(ident.like(f"%{pattern}%", escape="\\")).limit(limit)).all()
            if inside:
                return sorted(inside)
            # a digit left out or added (`tau-airline-6-0` for `tau-airline-06-0`): the close ones among the
            # ids that start as it does, a bounded read however large the store
            head = re.split(r"[-_:.\d]", pattern, maxsplit=1)[0]
            near = (
                s.exec(select(ident).where(ident.like(f"%{head}%", escape="\\")).limit(5000)).all()
                if head
                else []
            )
        return sorted(get_close_matches(asked, list(near), n=limit, cutoff=0.85))

    def list_conversations(
        self,
        flag: str | None = None,
        status: str | None = None,
        limit: int = 50,
        severity: Severity | None = None,
        replays: bool = False,
        group: str | None = None,
    ) -> list[ConversationSummary]:
        """Conversations by review priority (incidents, then severity, a changed record first), newest first; `severity` keeps
        that level and above; `group`, one failure signature's. Production's only, or with `replays` the
        gate's own replays only."""
        with self._session() as s:
            query = _listed(flag, status, severity, replays, group).order_by(*QUEUE_ORDER)
            rows = list(s.exec(query.limit(limit)))
            ids = [c.id for c, _ in rows]
            tools: dict[str, list[str]] = {i: [] for i in ids}
            flags: dict[str, list[Flag]] = {i: [] for i in ids}
            for chunk in chunks(ids):
                for conv_id, raw in s.exec(
                    select(TurnRow.conversation_id, TurnRow.tools)
                    .where(col(TurnRow.conversation_id).in_(chunk))
                    .order_by(col(TurnRow.started_at))
                ):
                    tools[conv_id].extend(t["name"] for t in json.loads(raw))
                for row in s.exec(select(FlagRow).where(col(FlagRow.conversation_id).in_(chunk))):
                    flags[row.conversation_id].append(flag_of_row(row))
            out = []
            for c, st in rows:
                ranked = sorted(flags[c.id], key=lambda f: (f.priority, f.turn, f.kind))
                top = severity_of_priority(c.priority)
                out.append(
                    ConversationSummary(
                        c.id,
                        c.channel,
                        c.turn_count,
                        tools[c.id],
                        c.escalated,
                        json.loads(c.flag_kinds),
                        st or ReviewStatus.OPEN.value,
                        c.started_at,
                        top.value if top else "",
                        c.reason,
                        ranked,
                    )
                )
            return out

    def conversation_detail(
        self, conversation_id: str
    ) -> tuple[ConversationRow, list[Turn], list[Flag]] | None:
        with self._session() as s:
            conv = s.get(ConversationRow, conversation_id)
            if conv is None:
                return None
            turns = join_steps(
                [
                    row_turn(r)
                    for r in s.exec(
                        select(TurnRow)
                        .where(TurnRow.conversation_id == conversation_id)
                        .order_by(col(TurnRow.started_at))
                    )
                ]
            )
            flags = [
                flag_of_row(r)
                for r in s.exec(
                    select(FlagRow)
                    .where(FlagRow.conversation_id == conversation_id)
                    .order_by(col(FlagRow.turn), col(FlagRow.id))
                )
            ]
            return conv, turns, flags
