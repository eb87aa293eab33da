"""The store's trace half: upserts of spans, turns and conversations, flags, incidents, and the reads
behind `filon traces`. Mixed into `Store`; every statement goes through the store's engine.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, delete, func
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from miner.model import Conversation, Flag, ToolCall, Turn, priority
from miner.tables import ConversationRow, FlagRow, ReviewRow, SpanRow, TurnRow


def _insert(engine: Engine, table: Any) -> Any:
    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    return dialect.insert(table)


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

    def as_json(self) -> dict[str, Any]:
        return {
            "conversation_id": self.conversation_id,
            "channel": self.channel,
            "turns": self.turns,
            "tools": self.tools,
            "escalated": self.escalated,
            "flags": self.flags,
            "status": self.status,
            "started_at": self.started_at.isoformat(),
        }


def turn_row(conversation_id: str, turn: Turn) -> dict[str, Any]:
    return {
        "trace_id": turn.trace_id,
        "conversation_id": conversation_id,
        "started_at": turn.started_at,
        "user_text": turn.user,
        "agent_text": turn.agent,
        "tools": json.dumps([t.as_json() for t in turn.tools], ensure_ascii=False),
        "escalated": turn.escalated,
        "latency_ms": turn.latency_ms,
        "input_tokens": turn.input_tokens,
        "output_tokens": turn.output_tokens,
        "error_types": json.dumps(turn.error_types),
        "failed_spans": json.dumps(turn.failed_spans),
        "feedback": turn.feedback,
        "sender": turn.sender,
    }


def row_turn(row: TurnRow) -> Turn:
    return Turn(
        trace_id=row.trace_id,
        started_at=row.started_at if row.started_at.tzinfo else row.started_at.replace(tzinfo=UTC),
        user=row.user_text,
        agent=row.agent_text,
        tools=[ToolCall(**t) for t in json.loads(row.tools)],
        escalated=row.escalated,
        latency_ms=row.latency_ms,
        input_tokens=row.input_tokens,
        output_tokens=row.output_tokens,
        error_types=json.loads(row.error_types),
        failed_spans=json.loads(row.failed_spans),
        feedback=row.feedback,
        sender=row.sender,
    )


class TraceStore:
    engine: Engine

    def _session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def stored_trace_ids(self, trace_ids: Sequence[str]) -> set[str]:
        if not trace_ids:
            return set()
        with self._session() as s:
            return set(
                s.exec(select(SpanRow.trace_id).where(col(SpanRow.trace_id).in_(list(trace_ids))).distinct())
            )

    def spans_of(self, trace_ids: Sequence[str]) -> list[SpanRow]:
        with self._session() as s:
            return list(s.exec(select(SpanRow).where(col(SpanRow.trace_id).in_(list(trace_ids)))))

    def write_batch(
        self,
        spans: list[dict[str, Any]],
        conversations: dict[str, tuple[str, list[Turn]]],
        flag_rules: Callable[[Conversation], list[Flag]],
    ) -> tuple[int, dict[str, list[Flag]]]:
        """One transaction: spans (a span already stored is skipped), turns (replaced), then each touched
        conversation recomputed from all its stored turns, with its rule flags replaced. A turn whose
        conversation became known only with a late span moves there with its spans. Returns the number
        of new spans and the flags of each conversation."""
        flags_by_conv: dict[str, list[Flag]] = {}
        with self.engine.begin() as conn:
            new = 0
            if spans:
                table = SpanRow.__table__  # type: ignore[attr-defined]
                stmt = _insert(self.engine, table).on_conflict_do_nothing(
                    index_elements=["trace_id", "span_id"]
                )
                new = len(conn.execute(stmt.returning(table.c.span_id), spans).all())
            trace_ids = [t.trace_id for _, turns in conversations.values() for t in turns]
            previous = dict(
                conn.execute(
                    select(TurnRow.trace_id, TurnRow.conversation_id).where(
                        col(TurnRow.trace_id).in_(trace_ids)
                    )
                ).all()
            )
            for conv_id, (channel, turns) in conversations.items():
                first = min(t.started_at for t in turns)
                conv_table = ConversationRow.__table__  # type: ignore[attr-defined]
                conv_stmt = _insert(self.engine, conv_table).values(
                    id=conv_id, channel=channel, started_at=first, last_at=first, turn_count=0
                )
                conn.execute(conv_stmt.on_conflict_do_nothing(index_elements=["id"]))
                rows = [turn_row(conv_id, t) for t in turns]
                stmt = _insert(self.engine, TurnRow.__table__)  # type: ignore[attr-defined]
                update = {k: stmt.excluded[k] for k in rows[0] if k != "trace_id"}
                conn.execute(stmt.on_conflict_do_update(index_elements=["trace_id"], set_=update), rows)
                moved = [t.trace_id for t in turns if previous.get(t.trace_id, conv_id) != conv_id]
                if moved:
                    conn.execute(
                        SpanRow.__table__.update()  # type: ignore[attr-defined]
                        .where(SpanRow.__table__.c.trace_id.in_(moved))  # type: ignore[attr-defined]
                        .values(conversation_id=conv_id)
                    )
                flags_by_conv[conv_id] = self._recompute(conn, conv_id, channel, flag_rules)
            for old in {previous[t] for t in trace_ids if t in previous} - set(conversations):
                remaining = conn.execute(
                    select(func.count()).select_from(TurnRow).where(TurnRow.conversation_id == old)
                ).scalar()
                if remaining:
                    channel = (
                        conn.execute(
                            select(ConversationRow.channel).where(ConversationRow.id == old)
                        ).scalar()
                        or ""
                    )
                    self._recompute(conn, old, channel, flag_rules)
                else:
                    conn.execute(delete(FlagRow).where(col(FlagRow.conversation_id) == old))
                    conn.execute(delete(ReviewRow).where(col(ReviewRow.conversation_id) == old))
                    conn.execute(delete(ConversationRow).where(col(ConversationRow.id) == old))
        return new, flags_by_conv

    def _recompute(
        self, conn: Connection, conv_id: str, channel: str, flag_rules: Callable[[Conversation], list[Flag]]
    ) -> list[Flag]:
        """A conversation's row and rule flags, from all its stored turns; human flags are kept."""
        stored = [
            row_turn(TurnRow.model_validate(dict(r._mapping)))
            for r in conn.execute(
                select(TurnRow).where(TurnRow.conversation_id == conv_id).order_by(col(TurnRow.started_at))
            )
        ]
        flags = flag_rules(Conversation(conv_id, channel, stored))
        conn.execute(
            delete(FlagRow).where(col(FlagRow.conversation_id) == conv_id, col(FlagRow.source) == "rule")
        )
        now = datetime.now(UTC)
        if flags:
            conn.execute(
                FlagRow.__table__.insert(),  # type: ignore[attr-defined]
                [
                    {
                        "conversation_id": conv_id,
                        "trace_id": f.trace_id,
                        "turn": f.turn,
                        "kind": f.kind,
                        "severity": f.severity,
                        "reason": f.reason,
                        "source": "rule",
                        "created_at": now,
                    }
                    for f in flags
                ],
            )
        human = [
            r[0]
            for r in conn.execute(
                select(FlagRow.kind).where(FlagRow.conversation_id == conv_id, FlagRow.source == "human")
            )
        ]
        kinds = sorted({f.kind for f in flags} | set(human), key=lambda k: (priority(k), k))
        conn.execute(
            ConversationRow.__table__.update()  # type: ignore[attr-defined]
            .where(ConversationRow.__table__.c.id == conv_id)  # type: ignore[attr-defined]
            .values(
                channel=channel,
                started_at=stored[0].started_at,
                last_at=stored[-1].started_at,
                turn_count=len(stored),
                escalated=any(t.escalated for t in stored),
                flag_kinds=json.dumps(kinds),
                priority=min((priority(k) for k in kinds), default=9),
            )
        )
        return flags

    # --- reads ---------------------------------------------------------------------------------------

    def list_conversations(
        self, flag: str | None = None, status: str | None = None, limit: int = 50
    ) -> list[ConversationSummary]:
        with self._session() as s:
            query = select(ConversationRow, ReviewRow.status).join(
                ReviewRow, col(ReviewRow.conversation_id) == col(ConversationRow.id), isouter=True
            )
            if flag:
                query = query.where(col(ConversationRow.flag_kinds).contains(f'"{flag}"'))
            if status:
                if status == "open":
                    query = query.where((col(ReviewRow.status) == "open") | col(ReviewRow.status).is_(None))
                else:
                    query = query.where(col(ReviewRow.status) == status)
            query = query.order_by(col(ConversationRow.priority), col(ConversationRow.last_at).desc()).limit(
                limit
            )
            rows = list(s.exec(query))
            ids = [c.id for c, _ in rows]
            tools: dict[str, list[str]] = {i: [] for i in ids}
            if ids:
                for conv_id, raw in s.exec(
                    select(TurnRow.conversation_id, TurnRow.tools)
                    .where(col(TurnRow.conversation_id).in_(ids))
                    .order_by(col(TurnRow.started_at))
                ):
                    tools[conv_id].extend(t["name"] for t in json.loads(raw))
            return [
                ConversationSummary(
                    c.id,
                    c.channel,
                    c.turn_count,
                    tools[c.id],
                    c.escalated,
                    json.loads(c.flag_kinds),
                    st or "open",
                    c.started_at,
                )
                for c, st in rows
            ]

    def conversation_detail(
        self, conversation_id: str
    ) -> tuple[ConversationRow, list[Turn], list[FlagRow]] | None:
        with self._session() as s:
            conv = s.get(ConversationRow, conversation_id)
            if conv is None:
                return None
            turns = [
                row_turn(r)
                for r in s.exec(
                    select(TurnRow)
                    .where(TurnRow.conversation_id == conversation_id)
                    .order_by(col(TurnRow.started_at))
                )
            ]
            flags = list(
                s.exec(
                    select(FlagRow)
                    .where(FlagRow.conversation_id == conversation_id)
                    .order_by(col(FlagRow.turn), col(FlagRow.id))
                )
            )
            return conv, turns, flags

    def add_incident(self, conversation_id: str, note: str) -> bool:
        """A human marks the conversation; it goes to the top of the review queue. False if unknown."""
        with self._session() as s:
            conv = s.get(ConversationRow, conversation_id)
            if conv is None:
                return False
            s.add(
                FlagRow(
                    conversation_id=conversation_id,
                    turn=0,
                    kind="incident",
                    severity="high",
                    reason=note,
                    source="human",
                    created_at=datetime.now(UTC),
                )
            )
            kinds = sorted(set(json.loads(conv.flag_kinds)) | {"incident"}, key=lambda k: (priority(k), k))
            conv.flag_kinds = json.dumps(kinds)
            conv.priority = 0
            s.add(conv)
            s.commit()
            return True

    def counts(self) -> dict[str, int]:
        with self._session() as s:
            out = {}
            for name, table in (
                ("conversations", ConversationRow),
                ("turns", TurnRow),
                ("spans", SpanRow),
                ("flags", FlagRow),
            ):
                out[name] = int(s.exec(select(func.count()).select_from(table)).one())
            return out

    def flag_counts(self) -> dict[str, int]:
        with self._session() as s:
            rows = s.exec(
                select(FlagRow.kind, func.count(func.distinct(FlagRow.conversation_id))).group_by(
                    FlagRow.kind
                )
            )
            return {k: int(n) for k, n in rows}
