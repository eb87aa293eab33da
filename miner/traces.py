"""The store's trace half: upserts of spans, turns and conversations, flags, incidents, and the reads
behind `filon traces`. Mixed into `Store`; every statement goes through the store's engine.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, delete, func
from sqlmodel import Session, col, select

from miner.jsontext import dumps, loads
from miner.model import Conversation, Flag, ToolCall, Turn
from miner.reviews import claimable
from miner.severity import NO_FLAG, ReviewStatus, Severity, at_least, severity_of_priority
from miner.sql import insert_dicts, insert_rows, returning_supported, select_in
from miner.tables import ConversationRow, FlagRow, ReviewRow, SpanRow, TurnRow


def _chunks(items: Sequence[str], size: int = 500) -> list[Sequence[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


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


TURN_COLUMNS = (
    "trace_id",
    "conversation_id",
    "started_at",
    "user_text",
    "agent_text",
    "tools",
    "escalated",
    "latency_ms",
    "input_tokens",
    "output_tokens",
    "error_types",
    "failed_spans",
    "feedback",
    "sender",
)


def turn_row(conversation_id: str, turn: Turn) -> tuple[Any, ...]:
    """A turn's row, in `TURN_COLUMNS` order."""
    return (
        turn.trace_id,
        conversation_id,
        turn.started_at,
        turn.user,
        turn.agent,
        dumps([t.as_json() for t in turn.tools]) if turn.tools else "[]",
        turn.escalated,
        turn.latency_ms,
        turn.input_tokens,
        turn.output_tokens,
        dumps(turn.error_types) if turn.error_types else "[]",
        dumps(turn.failed_spans) if turn.failed_spans else "[]",
        turn.feedback,
        turn.sender,
    )


def row_turn(row: TurnRow | Mapping[str, Any]) -> Turn:
    """A stored turn back as the flags' `Turn`; takes an ORM row or a plain result mapping."""
    r: Mapping[str, Any] = row.model_dump() if isinstance(row, TurnRow) else row
    started: datetime = r["started_at"]
    return Turn(
        trace_id=r["trace_id"],
        started_at=started if started.tzinfo else started.replace(tzinfo=UTC),
        user=r["user_text"],
        agent=r["agent_text"],
        tools=[ToolCall(**t) for t in loads(r["tools"])],
        escalated=bool(r["escalated"]),
        latency_ms=r["latency_ms"],
        input_tokens=r["input_tokens"],
        output_tokens=r["output_tokens"],
        error_types=loads(r["error_types"]),
        failed_spans=loads(r["failed_spans"]),
        feedback=r["feedback"],
        sender=r["sender"],
    )


CONVERSATION_COLUMNS = (
    "id",
    "channel",
    "started_at",
    "last_at",
    "turn_count",
    "escalated",
    "flag_kinds",
    "priority",
    "reason",
)


def conversation_row(
    cid: str, channel: str, turns: list[Turn], flags: list[Flag], human: list[Flag]
) -> tuple[Any, ...]:
    """A conversation's row, in `CONVERSATION_COLUMNS` order, from its turns (in order) and flags, rule
    and human: its kinds by their most urgent flag, its priority and the reason of its top flag."""
    everything = [*human, *flags]
    top: Flag | None = None
    ranked: dict[str, int] = {}
    for f in everything:
        p = f.priority
        if top is None or (p, f.turn) < (top.priority, top.turn):  # the earliest of the most urgent
            top = f
        if p < ranked.get(f.kind, NO_FLAG + 1):
            ranked[f.kind] = p
    kinds = sorted(ranked, key=lambda k: (ranked[k], k))
    escalated = False
    for t in turns:
        if t.escalated:
            escalated = True
            break
    return (
        cid,
        channel,
        turns[0].started_at,
        turns[-1].started_at,
        len(turns),
        escalated,
        dumps(kinds) if kinds else "[]",
        top.priority if top else NO_FLAG,
        top.reason if top else "",
    )


def conversation_values(
    cid: str, channel: str, turns: list[Turn], flags: list[Flag], human: list[Flag]
) -> dict[str, Any]:
    """`conversation_row`, by column name."""
    return dict(zip(CONVERSATION_COLUMNS, conversation_row(cid, channel, turns, flags, human), strict=True))


def flag_rows(cid: str, flags: list[Flag], now: datetime) -> list[dict[str, Any]]:
    return [
        {
            "conversation_id": cid,
            "trace_id": f.trace_id,
            "turn": f.turn,
            "kind": f.kind,
            "severity": f.severity,
            "reason": f.reason,
            "cause": f.cause,
            "source": "rule",
            "created_at": now,
        }
        for f in flags
    ]


def flag_of_row(row: Any) -> Flag:
    """A stored flag (an ORM row or a result row) back as a `Flag`."""
    return Flag(row.kind, row.severity, row.turn, row.reason, row.trace_id, row.cause)


def _stored_turns(conn: Connection, trace_ids: Sequence[str]) -> dict[str, str]:
    return dict(
        select_in(conn, "SELECT trace_id, conversation_id FROM turns WHERE trace_id IN ({})", trace_ids)
    )


def _insert_new_conversations(conn: Connection, rows: list[tuple[Any, ...]]) -> set[str]:
    """Insert the conversations not stored yet (`conversation_row`s without flags); the ids of those
    inserted. Those already stored, by an earlier batch or by another writer meanwhile, are left as
    they are."""
    table = ConversationRow.__table__  # type: ignore[attr-defined]
    if returning_supported(conn.dialect):
        inserted: list[str] = []
        insert_rows(conn, table, CONVERSATION_COLUMNS, rows, "nothing", ["id"], inserted)
        return set(inserted)
    ids = [r[0] for r in rows]
    existing = {cid for (cid,) in select_in(conn, "SELECT id FROM conversations WHERE id IN ({})", ids)}
    fresh = [r for r in rows if r[0] not in existing]
    if insert_rows(conn, table, CONVERSATION_COLUMNS, fresh, "nothing", ["id"]) < len(fresh):
        return set()  # another writer made some of them meanwhile: all are read back whole
    return {r[0] for r in fresh}


class TraceStore:
    engine: Engine

    def _session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def stored_turns(self, trace_ids: Sequence[str]) -> dict[str, str]:
        """The traces already stored (their turn, hence their spans), with their conversation."""
        if not trace_ids:
            return {}
        with self.engine.connect() as conn:
            return _stored_turns(conn, trace_ids)

    def spans_of(self, trace_ids: Sequence[str]) -> list[SpanRow]:
        with self._session() as s:
            return list(s.exec(select(SpanRow).where(col(SpanRow.trace_id).in_(list(trace_ids)))))

    def write_batch(
        self,
        span_columns: Sequence[str],
        spans: list[tuple[Any, ...]],
        conversations: dict[str, tuple[str, list[Turn]]],
        flag_rules: Callable[[Conversation], list[Flag]],
        stored: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, list[Flag]]]:
        """One transaction, a fixed number of statements whatever the batch size. A conversation new to
        the store is written whole from the batch's turns, flags included. Then spans (a span already
        stored is skipped) and turns (replaced); every other touched conversation is recomputed from all
        its stored turns, with its rule flags replaced. A turn whose conversation became known only with
        a late span moves there with its spans. `stored` is `stored_turns()` of the batch's traces, when
        the caller has it already. Returns the number of new spans and the flags of each conversation."""
        if not conversations:
            return 0, {}
        conv_table = ConversationRow.__table__  # type: ignore[attr-defined]
        turn_table = TurnRow.__table__  # type: ignore[attr-defined]
        span_table = SpanRow.__table__  # type: ignore[attr-defined]
        trace_ids = [t.trace_id for _, turns in conversations.values() for t in turns]
        now = datetime.now(UTC)
        with self.engine.begin() as conn:
            if stored is None:
                stored = _stored_turns(conn, trace_ids)
            previous = stored
            flags_by_conv: dict[str, list[Flag]] = {}
            fresh = sorted(conversations.items())
            new_ids = _insert_new_conversations(
                conn, [conversation_row(cid, ch, turns, [], []) for cid, (ch, turns) in fresh]
            )
            flagged = []
            for cid, (channel, turns) in fresh:
                if cid in new_ids:
                    flags_by_conv[cid] = flags = flag_rules(Conversation(cid, channel, turns))
                    if flags:
                        values = conversation_values(cid, channel, turns, flags, [])
                        flagged.append(
                            {
                                "b_id": cid,
                                "b_kinds": values["flag_kinds"],
                                "b_priority": values["priority"],
                                "b_reason": values["reason"],
                            }
                        )
            if flagged:
                conn.execute(
                    conv_table.update()
                    .where(conv_table.c.id == bindparam("b_id"))
                    .values(
                        flag_kinds=bindparam("b_kinds"),
                        priority=bindparam("b_priority"),
                        reason=bindparam("b_reason"),
                    ),
                    flagged,
                )
            if self.engine.dialect.name == "postgresql":
                # concurrent writers (several receivers) of one conversation take turns, in a fixed order
                for chunk in _chunks(sorted(conversations)):
                    conn.execute(
                        select(conv_table.c.id)
                        .where(conv_table.c.id.in_(chunk))
                        .order_by(conv_table.c.id)
                        .with_for_update()
                    )
            # spans after the conversations' locks, in key order: concurrent writers never cross
            # (one writer at a time on SQLite: no order needed)
            ordered = self.engine.dialect.name == "postgresql"
            key = itemgetter(span_columns.index("trace_id"), span_columns.index("span_id"))
            new = insert_rows(
                conn,
                span_table,
                span_columns,
                sorted(spans, key=key) if ordered else spans,
                "nothing",
                ["trace_id", "span_id"],
            )
            rows = [turn_row(cid, t) for cid, (_, ts) in conversations.items() for t in ts]
            if ordered:
                rows.sort(key=itemgetter(0))
            insert_rows(conn, turn_table, TURN_COLUMNS, rows, "update", ["trace_id"])
            moved = [
                (t, cid)
                for cid, (_, ts) in conversations.items()
                for t in (x.trace_id for x in ts)
                if previous.get(t, cid) != cid
            ]
            for trace_id, cid in moved:
                conn.execute(
                    span_table.update().where(span_table.c.trace_id == trace_id).values(conversation_id=cid)
                )
            touched = {cid: ch for cid, (ch, _) in conversations.items() if cid not in flags_by_conv}
            emptied = []
            for old in {previous[t] for t, _ in moved} - set(conversations):
                old_channel = conn.execute(
                    select(conv_table.c.channel).where(conv_table.c.id == old)
                ).scalar()
                remaining = conn.execute(
                    select(func.count()).select_from(turn_table).where(turn_table.c.conversation_id == old)
                ).scalar()
                if remaining:
                    touched[old] = old_channel or ""
                else:
                    emptied.append(old)
            if emptied:
                conn.execute(delete(FlagRow).where(col(FlagRow.conversation_id).in_(emptied)))
                conn.execute(delete(ReviewRow).where(col(ReviewRow.conversation_id).in_(emptied)))
                conn.execute(delete(ConversationRow).where(col(ConversationRow.id).in_(emptied)))
            flag_table = FlagRow.__table__  # type: ignore[attr-defined]
            insert_dicts(
                conn, flag_table, [r for c, fs in flags_by_conv.items() for r in flag_rows(c, fs, now)]
            )
            flags_by_conv.update(self._recompute(conn, touched, flag_rules, now))
        return new, flags_by_conv

    def _recompute(
        self,
        conn: Connection,
        touched: dict[str, str],
        flag_rules: Callable[[Conversation], list[Flag]],
        now: datetime,
    ) -> dict[str, list[Flag]]:
        """Conversations' rows and rule flags, from all their stored turns; human flags are kept."""
        ids = list(touched)
        stored: dict[str, list[Turn]] = {cid: [] for cid in ids}
        human: dict[str, list[Flag]] = {cid: [] for cid in ids}
        turn_table = TurnRow.__table__  # type: ignore[attr-defined]
        for chunk in _chunks(ids):
            query = (
                select(turn_table)
                .where(turn_table.c.conversation_id.in_(chunk))
                .order_by(turn_table.c.started_at)
            )
            for r in conn.execute(query):
                stored[r.conversation_id].append(row_turn(dict(r._mapping)))
            for row in conn.execute(
                select(FlagRow).where(col(FlagRow.conversation_id).in_(chunk), FlagRow.source == "human")
            ):
                human[row.conversation_id].append(flag_of_row(row))
            conn.execute(
                delete(FlagRow).where(col(FlagRow.conversation_id).in_(chunk), col(FlagRow.source) == "rule")
            )
        flags_by_conv: dict[str, list[Flag]] = {}
        new_flags, updates = [], []
        for cid, channel in touched.items():
            turns = stored[cid]
            if not turns:
                continue
            flags = flag_rules(Conversation(cid, channel, turns))
            flags_by_conv[cid] = flags
            new_flags += flag_rows(cid, flags, now)
            values = conversation_values(cid, channel, turns, flags, human[cid])
            values["b_id"] = values.pop("id")
            updates.append(values)
        insert_dicts(conn, FlagRow.__table__, new_flags)  # type: ignore[attr-defined]
        if updates:
            table = ConversationRow.__table__  # type: ignore[attr-defined]
            conn.execute(table.update().where(table.c.id == bindparam("b_id")), updates)
        return flags_by_conv

    # --- reads ---------------------------------------------------------------------------------------

    def list_conversations(
        self,
        flag: str | None = None,
        status: str | None = None,
        limit: int = 50,
        severity: Severity | None = None,
    ) -> list[ConversationSummary]:
        """Conversations by review priority (incidents, then severity), newest first; `severity` keeps
        that level and above."""
        with self._session() as s:
            query = select(ConversationRow, ReviewRow.status).join(
                ReviewRow, col(ReviewRow.conversation_id) == col(ConversationRow.id), isouter=True
            )
            if flag:
                query = query.where(col(ConversationRow.flag_kinds).contains(f'"{flag}"'))
            if severity is not None:
                query = query.where(col(ConversationRow.priority) <= at_least(severity))
            if status:
                if status == ReviewStatus.OPEN:
                    query = query.where(claimable(datetime.now(UTC)))  # an expired claim is open again
                else:
                    query = query.where(col(ReviewRow.status) == status)
            query = query.order_by(
                col(ConversationRow.priority), col(ConversationRow.last_at).desc(), col(ConversationRow.id)
            ).limit(limit)
            rows = list(s.exec(query))
            ids = [c.id for c, _ in rows]
            tools: dict[str, list[str]] = {i: [] for i in ids}
            flags: dict[str, list[Flag]] = {i: [] for i in ids}
            for chunk in _chunks(ids):
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
