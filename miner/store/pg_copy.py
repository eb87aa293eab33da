"""Bulk inserts on PostgreSQL by COPY: what `miner.store.sql.insert_rows` does there for a batch.

psycopg parses the placeholders of a statement with more than 50 values anew each time (it caches the
others): a multi-row INSERT of a batch spent most of the ingest's time there. A batch now goes by COPY:
straight into its table behind a savepoint, since its rows are new as a rule; when one is there already
(a replayed request, a late span, another receiver's), the savepoint is undone and the rows go through
a staging table of the session (temporary, emptied at commit) and one INSERT … SELECT with the same
conflict clause as the multi-row INSERT. The staging table is made once per session: the CREATE is sent
until a transaction that made it has committed (a rollback would have undone it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Table, event
from sqlalchemy.engine import Dialect

from filon.miner.store.sql import Conflict, insert_statement


@lru_cache(maxsize=128)
def _staged(
    table: Table,
    dialect: Dialect,
    names: tuple[str, ...],
    conflict: Conflict,
    keys: tuple[str, ...],
    returning: str | None,
) -> tuple[str, str, str]:
    """The three statements of a staged insert: the staging table (temporary, its rows gone at commit),
    the COPY into it, and the INSERT … SELECT that empties it into the table (in key order: concurrent
    writers take rows in one order), with the conflict clause of `miner.store.sql.insert_statement`."""
    quote = dialect.identifier_preparer.quote
    staging = quote(f"filon_staging_{table.name}")
    columns = ", ".join(quote(n) for n in names)
    create = (
        f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging} "
        f"(LIKE {quote(table.name)} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
    )
    copy = f"COPY {staging} ({columns}) FROM STDIN"
    single = insert_statement(table, dialect, names, 1, conflict, keys, returning)
    head, values = single.split(" VALUES ", 1)
    tail = values[values.index(")") + 1 :]  # the ON CONFLICT and RETURNING clauses, if any
    order = f" ORDER BY {', '.join(quote(k) for k in keys)}" if keys else ""
    insert = (
        f"WITH moved AS (DELETE FROM {staging} RETURNING {columns}) "
        f"{head} SELECT {columns} FROM moved{order}{tail}"
    )
    return create, copy, insert


def copied(
    conn: Connection,
    table: Table,
    names: tuple[str, ...],
    rows: Sequence[tuple[Any, ...]],
    conflict: Conflict,
    keys: tuple[str, ...],
    back: str | None,
    returned: list[Any] | None,
    converted: list[tuple[int, Callable[[Any], Any]]],
) -> int:
    """`insert_rows` on PostgreSQL for many rows: COPY into the staging table, then one INSERT … SELECT."""
    create, copy_sql, insert = _staged(table, conn.dialect, names, conflict, keys, back)
    made = _staging_made(conn)
    cursor: Any = conn.connection.cursor()
    if _copied_straight(cursor, table, names, rows, converted):  # all new: the usual case
        cursor.close()
        if returned is not None and back is not None:
            at = names.index(back)
            returned += [row[at] for row in rows]
        return len(rows)
    try:
        if table.name not in made:
            cursor.execute(create)
            made.pending.add(table.name)
        with cursor.copy(copy_sql) as copy:
            _write_rows(copy, rows, converted)
        cursor.execute(insert)
        if returned is not None:
            got = [r[0] for r in cursor.fetchall()]
            returned += got
            return len(got)
        return int(max(0, cursor.rowcount))
    except Exception:
        made.discard(table.name)  # whatever went wrong, the next batch makes sure the table is there
        raise
    finally:
        cursor.close()


def _write_rows(
    copy: Any, rows: Sequence[tuple[Any, ...]], converted: list[tuple[int, Callable[[Any], Any]]]
) -> None:
    if not converted:
        for row in rows:
            copy.write_row(row)
        return
    for row in rows:
        values = list(row)
        for i, convert in converted:
            if values[i] is not None:
                values[i] = convert(values[i])
        copy.write_row(values)


def _copied_straight(
    cursor: Any,
    table: Table,
    names: tuple[str, ...],
    rows: Sequence[tuple[Any, ...]],
    converted: list[tuple[int, Callable[[Any], Any]]],
) -> bool:
    """Rows that are new as a rule (the same span or turn twice is the exception: a replayed request,
    a late span, another receiver's) COPY'd straight into the table, behind a savepoint: True when they
    all were; False, the savepoint undone, when one was there already, and the staged insert does what
    its conflict clause says with it."""
    import psycopg

    columns = ", ".join(f'"{n}"' for n in names)
    try:
        cursor.execute("SAVEPOINT filon_copy")
        try:
            with cursor.copy(f'COPY "{table.name}" ({columns}) FROM STDIN') as copy:
                _write_rows(copy, rows, converted)
        except psycopg.errors.UniqueViolation:
            cursor.execute("ROLLBACK TO SAVEPOINT filon_copy")
            return False
        cursor.execute("RELEASE SAVEPOINT filon_copy")
        return True
    except Exception:
        cursor.close()
        raise


class _Made(set[str]):
    """The staging tables a connection's session holds for sure (made in a transaction since committed);
    `pending`, made in the transaction under way, which a rollback would undo."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: set[str] = set()


def _staging_made(conn: Connection) -> _Made:
    """This session's staging tables (kept in the pooled connection's `info`, which lives as long as the
    session): the CREATE is sent only until a transaction that made the table has committed."""
    info = conn.connection.info
    made = info.get("filon_staging")
    if made is None:
        made = info["filon_staging"] = _Made()
    engine = conn.engine
    if not event.contains(engine, "commit", _committed):
        event.listen(engine, "commit", _committed)
        event.listen(engine, "rollback", _rolled_back)
    return made


def _info_made(conn: Connection) -> _Made | None:
    """This session's bookkeeping, or None where the connection is gone: a listener must never raise
    (it would hide the error that made the transaction end)."""
    try:
        if conn.invalidated or conn.closed:
            return None
        made = conn.connection.info.get("filon_staging")
    except Exception:
        return None
    return made if isinstance(made, _Made) else None


def _committed(conn: Connection) -> None:
    made = _info_made(conn)
    if made is not None:
        made |= made.pending
        made.pending.clear()


def _rolled_back(conn: Connection) -> None:
    made = _info_made(conn)
    if made is not None:
        made.pending.clear()
