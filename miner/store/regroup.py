"""Failure groups kept up to date as conversations are written, so that reading them never scans the
conversations: `failure_groups` (one row per signature: size, most urgent priority and the member that
shows it, first and last seen) and `failure_group_days` (its conversations by the day they started).

On ingest, `regroup` applies a batch's changes in a few statements: each conversation that joined a
signature (new, or whose signature changed with a new flag) adds one to it, and one that left takes one
from its old one; a joining member more urgent (or as urgent and newer) than the group's representative
becomes it. A member leaving never makes the group less urgent: the group keeps the worst it has seen,
until it is counted again. `recount` counts given groups (or all) again from the conversations: after an
incident is marked or removed, after the gate's replays are set apart, after a prune, and once when the
tables were made. Both leave the gate's own replays out, as `filon traces list` does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, text

GATE = "filon eval"  # `miner.store.reviews.GATE`, spelled out: a migration runs this, and must not change with code


@dataclass
class Member:
    """A conversation as a batch leaves it: its signature and start day before (None: new) and after."""

    conversation_id: str
    before: tuple[str, str] | None  # (signature, day)
    signature: str
    day: str
    priority: int
    started_at: datetime
    last_at: datetime
    reason: str


def day_of(when: datetime) -> str:
    """The UTC day a time falls on (a stored time without zone is UTC already)."""
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%d")


def members(rows: dict[str, dict[str, Any]], before: dict[str, tuple[str, str]]) -> list[Member]:
    """The batch's conversations (their rows by column name) as group members, each with where it was."""
    return [
        Member(
            cid,
            before.get(cid),
            row["signature"],
            day_of(row["started_at"]),
            row["priority"],
            row["started_at"],
            row["last_at"],
            row["reason"],
        )
        for cid, row in rows.items()
    ]


def _day(conn: Connection, column: str) -> str:
    if conn.dialect.name == "postgresql":
        return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
    return f"substr({column}, 1, 10)"


def recount(conn: Connection, signatures: Sequence[str] | None = None) -> None:
    """Count the groups of `signatures` (all when None) again from the stored conversations."""
    if signatures is not None and not signatures:
        return
    chosen = ""
    params: dict[str, Any] = {}
    if signatures is not None:
        names = [f"s{i}" for i in range(len(signatures))]
        params = dict(zip(names, signatures, strict=True))
        chosen = f" AND c.signature IN ({', '.join(':' + n for n in names)})"
        delete_where = f" WHERE signature IN ({', '.join(':' + n for n in names)})"
    else:
        delete_where = ""
    production = (
        "FROM conversations c LEFT JOIN reviews r ON r.conversation_id = c.id "
        f"WHERE (r.reviewer IS NULL OR r.reviewer <> '{GATE}'){chosen}"
    )
    conn.execute(text("DELETE FROM failure_groups" + delete_where), params)
    conn.execute(text("DELETE FROM failure_group_days" + delete_where), params)
    conn.execute(
        text(
            "INSERT INTO failure_groups (signature, size, priority, first_seen, last_seen, representative, reason) "
            f"SELECT c.signature, COUNT(*), MIN(c.priority), MIN(c.started_at), MAX(c.last_at), '', '' {production} "
            "GROUP BY c.signature"
        ),
        params,
    )
    top = (
        "SELECT {col} FROM conversations c LEFT JOIN reviews r ON r.conversation_id = c.id "
        f"WHERE c.signature = failure_groups.signature AND (r.reviewer IS NULL OR r.reviewer <> '{GATE}') "
        "ORDER BY c.priority, c.last_at DESC, c.id LIMIT 1"
    )
    conn.execute(
        text(
            f"UPDATE failure_groups SET representative = ({top.format(col='c.id')}), "
            f"reason = ({top.format(col='c.reason')})" + delete_where
        ),
        params,
    )
    day = _day(conn, "c.started_at")
    conn.execute(
        text(
            f"INSERT INTO failure_group_days (signature, day, size) SELECT c.signature, {day}, COUNT(*) "
            f"{production} GROUP BY c.signature, {day}"
        ),
        params,
    )


def recount_all(conn: Connection) -> None:
    recount(conn, None)


def regroup(conn: Connection, members: list[Member]) -> None:
    """A batch's changes to the groups: joins and leaves, by signature and by day, in signature order
    (two writers lock group rows in one order, after the conversations they touched)."""
    joined: dict[str, dict[str, Any]] = {}
    days: dict[tuple[str, str], int] = {}
    left: dict[str, int] = {}
    left_days: dict[tuple[str, str], int] = {}
    for m in members:
        moved = m.before is None or m.before != (m.signature, m.day)
        group = joined.get(m.signature)
        row = {
            "signature": m.signature,
            "size": int(moved),
            "priority": m.priority,
            "first_seen": m.started_at,
            "last_seen": m.last_at,
            "representative": m.conversation_id,
            "reason": m.reason,
        }
        if group is None:
            joined[m.signature] = row
        else:
            better = (m.priority, -m.last_at.timestamp()) < (
                group["priority"],
                -group["last_seen"].timestamp(),
            )
            group["size"] += int(moved)
            group["first_seen"] = min(group["first_seen"], m.started_at)
            if better:
                group.update(priority=m.priority, representative=m.conversation_id, reason=m.reason)
            group["last_seen"] = max(group["last_seen"], m.last_at)
        if moved:
            days[(m.signature, m.day)] = days.get((m.signature, m.day), 0) + 1
            if m.before is not None:
                left[m.before[0]] = left.get(m.before[0], 0) + 1
                left_days[m.before] = left_days.get(m.before, 0) + 1
    if joined:
        rows = [tuple(joined[s][c] for c in GROUP_COLUMNS) for s in sorted(joined)]
        _upsert(conn, _groups_upsert, rows, (3, 4))
    if days:
        _upsert(conn, _days_upsert, [(s, d, n) for (s, d), n in sorted(days.items())], ())
    for signature, n in sorted(left.items()):
        conn.execute(
            text("UPDATE failure_groups SET size = size - :n WHERE signature = :s"), {"n": n, "s": signature}
        )
    for (signature, day), n in sorted(left_days.items()):
        conn.execute(
            text("UPDATE failure_group_days SET size = size - :n WHERE signature = :s AND day = :d"),
            {"n": n, "s": signature, "d": day},
        )
    if left:
        conn.execute(text("DELETE FROM failure_groups WHERE size <= 0"))
        conn.execute(text("DELETE FROM failure_group_days WHERE size <= 0"))


GROUP_COLUMNS = ("signature", "size", "priority", "first_seen", "last_seen", "representative", "reason")


@lru_cache(maxsize=64)
def _groups_upsert(postgres: bool, rows: int) -> str:
    """The multi-row upsert of the groups, spelled out once per dialect and size (SQLAlchemy would compile
    it anew for every batch): sizes add up, the most urgent priority stays, first and last seen widen, and
    a joining member more urgent (or as urgent and newer) becomes the representative."""
    mark = "%s" if postgres else "?"
    least, greatest = ("LEAST", "GREATEST") if postgres else ("MIN", "MAX")
    one = f"({', '.join([mark] * len(GROUP_COLUMNS))})"
    old, new = "failure_groups", "excluded"
    better = f"{new}.priority < {old}.priority OR ({new}.priority = {old}.priority AND {new}.last_seen >= {old}.last_seen)"
    return (
        f"INSERT INTO failure_groups ({', '.join(GROUP_COLUMNS)}) VALUES {', '.join([one] * rows)} "
        f"ON CONFLICT (signature) DO UPDATE SET size = {old}.size + {new}.size, "
        f"priority = {least}({old}.priority, {new}.priority), "
        f"first_seen = {least}({old}.first_seen, {new}.first_seen), "
        f"last_seen = {greatest}({old}.last_seen, {new}.last_seen), "
        f"representative = CASE WHEN {better} THEN {new}.representative ELSE {old}.representative END, "
        f"reason = CASE WHEN {better} THEN {new}.reason ELSE {old}.reason END"
    )


@lru_cache(maxsize=64)
def _days_upsert(postgres: bool, rows: int) -> str:
    mark = "%s" if postgres else "?"
    one = f"({mark}, {mark}, {mark})"
    return (
        f"INSERT INTO failure_group_days (signature, day, size) VALUES {', '.join([one] * rows)} "
        "ON CONFLICT (signature, day) DO UPDATE SET size = failure_group_days.size + excluded.size"
    )


def _upsert(
    conn: Connection, sql: Callable[[bool, int], str], rows: list[tuple[Any, ...]], dates: Sequence[int]
) -> None:
    """Rows through the driver, in statements of at most 200 rows, dates as the column type stores them."""
    from filon.miner.store.sql import _processors
    from filon.miner.store.tables import FailureGroupRow

    postgres = conn.dialect.name == "postgresql"
    converted = (
        [c for i, c in _processors(FailureGroupRow.__table__, conn.dialect, GROUP_COLUMNS) if i in dates]  # type: ignore[attr-defined]
        if dates
        else []
    )
    cursor = conn.connection.cursor()
    try:
        for start in range(0, len(rows), 200):
            part = rows[start : start + 200]
            params: list[Any] = []
            for row in part:
                values = list(row)
                for i, convert in zip(dates, converted, strict=False):
                    values[i] = convert(values[i])
                params += values
            cursor.execute(sql(postgres, len(part)), params)
    finally:
        cursor.close()
