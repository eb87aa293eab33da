"""One batch of traces written in one transaction: the store's primitives for the ingest path.

The store holds no rule here: it reads and writes rows, in a fixed number of statements whatever the
batch's size. What to flag, and in what order to do things, is the caller's (`tracing.ingest`, which reads
top to bottom). On PostgreSQL, `lock` takes the conversations' rows in key order, and spans and turns are
written in key order, so concurrent writers (several receivers) take turns and never cross.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, or_, select

from filon.miner.core.model import Flag, Turn
from filon.miner.store.regroup import day_of, members, recount, regroup
from filon.miner.store.rows import (
    CONVERSATION_COLUMNS,
    FLAG_FIELDS,
    SPAN_COLUMNS,
    TURN_COLUMNS,
    flag_of_row,
    flag_rows,
    row_turn,
    turn_row,
)
from filon.miner.store.sql import (
    delete_in,
    insert_dicts,
    insert_rows,
    placeholder,
    returning_supported,
    select_in,
    select_rows,
    update_rows,
)
from filon.miner.store.tables import ConversationRow, FlagRow, PendingTraceRow, ReviewRow, SpanRow, TurnRow

CONVERSATIONS = ConversationRow.__table__  # type: ignore[attr-defined]
TURNS = TurnRow.__table__  # type: ignore[attr-defined]
SPANS = SpanRow.__table__  # type: ignore[attr-defined]
FLAGS = FlagRow.__table__  # type: ignore[attr-defined]
REVIEWS = ReviewRow.__table__  # type: ignore[attr-defined]
PENDING = PendingTraceRow.__table__  # type: ignore[attr-defined]
HUMAN_FLAG_COLUMNS = ("conversation_id", *FLAG_FIELDS)


def chunks(items: Sequence[str], size: int = 500) -> list[Sequence[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


class TraceBatch:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.ordered = conn.dialect.name == "postgresql"  # concurrent writers: a fixed order

    def stored_turns(self, trace_ids: Sequence[str]) -> dict[str, str]:
        """The traces already stored (as turns), with their conversation."""
        if not trace_ids:
            return {}
        sql = "SELECT trace_id, conversation_id FROM turns WHERE trace_id IN ({})"
        return dict(select_in(self.conn, sql, trace_ids))

    def spans_of(self, trace_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The stored spans of these traces, by column name."""
        rows = select_rows(self.conn, SPANS, SPAN_COLUMNS, "trace_id IN ({})", trace_ids)
        return [dict(zip(SPAN_COLUMNS, r, strict=True)) for r in rows]

    def insert_conversations(self, rows: list[tuple[Any, ...]]) -> set[str]:
        """Insert the conversations not stored yet (rows in `CONVERSATION_COLUMNS` order); the ids of
        those inserted. Those stored already, by an earlier batch or another writer meanwhile, are left
        as they are (and are read back whole by the caller)."""
        if returning_supported(self.conn.dialect):
            inserted: list[str] = []
            insert_rows(self.conn, CONVERSATIONS, CONVERSATION_COLUMNS, rows, "nothing", ["id"], inserted)
            return set(inserted)
        ids = [r[0] for r in rows]
        sql = "SELECT id FROM conversations WHERE id IN ({})"
        existing = {cid for (cid,) in select_in(self.conn, sql, ids)}
        fresh = [r for r in rows if r[0] not in existing]
        if insert_rows(self.conn, CONVERSATIONS, CONVERSATION_COLUMNS, fresh, "nothing", ["id"]) < len(fresh):
            return set()  # another writer made some of them meanwhile: all are read back whole
        return {r[0] for r in fresh}

    def lock(self, conversation_ids: Sequence[str]) -> None:
        """Concurrent writers of one conversation take turns (PostgreSQL; SQLite has one writer)."""
        if not self.ordered:
            return
        for chunk in chunks(sorted(conversation_ids)):
            query = select(CONVERSATIONS.c.id).where(CONVERSATIONS.c.id.in_(chunk))
            self.conn.execute(query.order_by(CONVERSATIONS.c.id).with_for_update())

    def write_spans(self, rows: list[tuple[Any, ...]]) -> int:
        """Spans (rows in `SPAN_COLUMNS` order, the attributes' JSON as text or as its UTF-8 bytes); one
        stored already is skipped. Returns how many are new."""
        if self.ordered:
            rows = sorted(rows, key=itemgetter(SPAN_COLUMNS.index("trace_id"), SPAN_COLUMNS.index("span_id")))
        keys = ["trace_id", "span_id"]
        return insert_rows(self.conn, SPANS, SPAN_COLUMNS, rows, "nothing", keys, utf8=("attributes",))

    def note_pending(self, trace_ids: Sequence[str], received_ns: int) -> None:
        """Traces whose spans were just stored, to be read by the settling worker (`tracing.settle`). One
        waiting already keeps its first arrival (the lag's measure) and takes this one as its last."""
        mark = placeholder(self.conn.dialect)
        sql = (
            f"INSERT INTO pending_traces (trace_id, received_ns, last_ns) VALUES ({mark}, {mark}, {mark})"
            " ON CONFLICT (trace_id) DO UPDATE SET last_ns = excluded.last_ns"
        )
        self.conn.exec_driver_sql(sql, [(t, received_ns, received_ns) for t in sorted(set(trace_ids))])

    def take_pending(self, limit: int) -> list[tuple[str, int]]:
        """The oldest traces waiting to be read, at most `limit`, each with its last arrival. On PostgreSQL
        they stay locked to this transaction and another worker takes the next ones (`SKIP LOCKED`)."""
        query = select(PENDING.c.trace_id, PENDING.c.last_ns)
        query = query.order_by(PENDING.c.received_ns, PENDING.c.trace_id).limit(limit)
        if self.ordered:
            query = query.with_for_update(skip_locked=True)
        return [(trace_id, last) for trace_id, last in self.conn.execute(query)]

    def done_pending(self, taken: Sequence[tuple[str, int]]) -> None:
        """The traces read, no longer waiting; one whose span arrived since it was taken (its `last_ns`
        moved) stays, to be read again with it."""
        mark = placeholder(self.conn.dialect)
        sql = f"DELETE FROM pending_traces WHERE trace_id = {mark} AND last_ns = {mark}"
        if taken:
            self.conn.exec_driver_sql(sql, list(taken))

    def place_spans(self, placed: Sequence[tuple[str, str]], dropped: Sequence[str]) -> None:
        """Spans stored before they were read: each (conversation id, trace id) placed in its
        conversation; the traces `dropped` (not kept by the sample rate, or of no GenAI convention)
        deleted, as an inline ingest would never have written them."""
        update_rows(self.conn, SPANS, ["conversation_id"], "trace_id", sorted(placed, key=itemgetter(1)))
        delete_in(self.conn, SPANS, "trace_id IN ({})", sorted(dropped))

    def write_turns(self, conversations: dict[str, tuple[str, list[Turn]]]) -> None:
        """Turns, replaced when stored already."""
        rows = [turn_row(cid, t) for cid, (_, turns) in conversations.items() for t in turns]
        if self.ordered:
            rows.sort(key=itemgetter(0))
        insert_rows(self.conn, TURNS, TURN_COLUMNS, rows, "update", ["trace_id"])

    def drop_derived_turns(self, trace_ids: Sequence[str], separator: str, keep: set[str]) -> set[str]:
        """The turns an earlier reading of these traces took from a model call's history (`TRACE~1`…,
        `tracing.history`) that this reading does not take again (`keep`): deleted. Read from a partial
        trace (its session id in a span not yet come), they were a conversation of their own; read whole,
        the trace names its conversation and the turns are its own. Returns the conversations they were in."""
        if not trace_ids:
            return set()
        escaped = [t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for t in trace_ids]
        found: list[tuple[str, str]] = []
        for chunk in chunks(escaped):
            like = or_(*(TURNS.c.trace_id.like(f"{t}{separator}%", escape="\\") for t in chunk))
            found += list(self.conn.execute(select(TURNS.c.trace_id, TURNS.c.conversation_id).where(like)))
        gone = sorted(t for t, _ in found if t not in keep)
        delete_in(self.conn, TURNS, "trace_id IN ({})", gone)
        return {c for t, c in found if t not in keep}

    def move_spans(self, moves: list[tuple[str, str]]) -> None:
        """(trace id, conversation id): a turn's spans follow it to the conversation a late span named."""
        for trace_id, cid in moves:
            self.conn.execute(SPANS.update().where(SPANS.c.trace_id == trace_id).values(conversation_id=cid))

    def channels_of_remaining(self, conversation_ids: set[str]) -> tuple[dict[str, str], list[str]]:
        """Of conversations that lost turns: those that still have some (with their channel), and those
        left empty."""
        remaining: dict[str, str] = {}
        emptied: list[str] = []
        for cid in sorted(conversation_ids):
            count = select(func.count()).select_from(TURNS).where(TURNS.c.conversation_id == cid)
            if self.conn.execute(count).scalar():
                channel = self.conn.execute(select(CONVERSATIONS.c.channel).where(CONVERSATIONS.c.id == cid))
                remaining[cid] = channel.scalar() or ""
            else:
                emptied.append(cid)
        return remaining, emptied

    def drop_conversations(self, conversation_ids: list[str]) -> None:
        """Conversations left without a turn: their flags and review go with them, and they leave their
        failure groups (a tool span exported on its own, read as `trace:…` until its turn's span came, was
        counted by `goldens coverage` as a conversation of its own)."""
        if not conversation_ids:
            return
        signatures = sorted({signature for signature, _ in self.group_keys(conversation_ids).values()})
        for table, column in ((FLAGS, FLAGS.c.conversation_id), (REVIEWS, REVIEWS.c.conversation_id)):
            self.conn.execute(delete(table).where(column.in_(conversation_ids)))
        self.conn.execute(delete(CONVERSATIONS).where(CONVERSATIONS.c.id.in_(conversation_ids)))
        recount(self.conn, signatures)

    def stored_conversations(
        self, conversation_ids: Sequence[str]
    ) -> tuple[dict[str, list[Turn]], dict[str, list[Flag]]]:
        """All stored turns of these conversations (in order) and their human flags (incidents)."""
        turns: dict[str, list[Turn]] = {cid: [] for cid in conversation_ids}
        human: dict[str, list[Flag]] = {cid: [] for cid in conversation_ids}
        where = "conversation_id IN ({}) ORDER BY started_at"
        for row in select_rows(self.conn, TURNS, TURN_COLUMNS, where, conversation_ids):
            turn = dict(zip(TURN_COLUMNS, row, strict=True))
            turns[turn["conversation_id"]].append(row_turn(turn))
        where = "source = 'human' AND conversation_id IN ({})"
        for row in select_rows(self.conn, FLAGS, HUMAN_FLAG_COLUMNS, where, conversation_ids):
            flag = dict(zip(HUMAN_FLAG_COLUMNS, row, strict=True))
            human[flag["conversation_id"]].append(flag_of_row(flag))
        return turns, human

    def replace_flags(self, flags: dict[str, list[Flag]], new: set[str]) -> None:
        """The rule flags of these conversations, replaced (those `new` in this batch have none yet);
        human flags stay."""
        now = datetime.now(UTC)
        stored = [cid for cid in flags if cid not in new]
        delete_in(self.conn, FLAGS, "source = 'rule' AND conversation_id IN ({})", stored)
        insert_dicts(self.conn, FLAGS, [r for cid, fs in flags.items() for r in flag_rows(cid, fs, now)])

    def group_keys(self, conversation_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """Stored conversations' failure signature and start day, before a batch changes them."""
        out: dict[str, tuple[str, str]] = {}
        for chunk in chunks(sorted(conversation_ids)):
            query = select(CONVERSATIONS.c.id, CONVERSATIONS.c.signature, CONVERSATIONS.c.started_at)
            for cid, signature, started in self.conn.execute(query.where(CONVERSATIONS.c.id.in_(chunk))):
                out[cid] = (signature, day_of(started))
        return out

    def regroup(self, rows: dict[str, dict[str, Any]], before: dict[str, tuple[str, str]]) -> None:
        """The failure groups after this batch (`miner.store.regroup`): each conversation written, by its row."""
        regroup(self.conn, members(rows, before))

    def update_conversations(self, rows: list[dict[str, Any]], columns: Sequence[str] | None = None) -> None:
        """Conversation rows (by column name), recomputed: all their columns, or only `columns`."""
        if not rows:
            return
        keep = [k for k in rows[0] if k != "id" and (columns is None or k in columns)]
        update_rows(self.conn, CONVERSATIONS, keep, "id", [(*(r[k] for k in keep), r["id"]) for r in rows])


@contextmanager
def trace_batch(engine: Engine) -> Iterator[TraceBatch]:
    """One transaction for a batch of traces: committed when the block ends, rolled back on error."""
    with engine.begin() as conn:
        yield TraceBatch(conn)
