"""The dialect-specific pieces of SQL (SQLite and PostgreSQL): an INSERT that knows `ON CONFLICT`, and the
bulk insert of the ingest path, which hands rows straight to the driver in multi-row statements
(`RETURNING` the new keys where asked).

SQLAlchemy's per-row parameter handling costs more than SQLite's own insert on the ingest path, so
`insert_rows` builds multi-row statements once per shape and converts only the columns whose type needs
it (dates on SQLite), with the type's own bind processor: the stored text is the same as through the ORM.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from itertools import chain
from typing import Any, Literal

from sqlalchemy import Boolean, Connection, DateTime, Engine, Float, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlmodel.sql.sqltypes import UTCDateTime


def upsert_insert(engine: Engine, table: Any) -> Any:
    """`INSERT` for `table` with `.on_conflict_do_nothing()` / `.on_conflict_do_update()` available."""
    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    return dialect.insert(table)


Conflict = Literal["error", "nothing", "update"]
# psycopg parses a statement's placeholders anew each time it has more than 50 (it caches the others): on a
# multi-row INSERT of a batch, most of the ingest's time on PostgreSQL. Past this many values, rows go by
# COPY (`miner.store.pg_copy`).
COPY_FROM_PARAMETERS = 50
MAX_PARAMETERS = 32_000  # SQLite allows 32,766 host parameters per statement (since 3.32), PostgreSQL 65,535
# SQLite parses a statement once per connection and size: with 256 rows, preparing statements was 22 M of
# the 125 M instructions of the minimal spans' acknowledgement (1,600 spans); with 32 rows, the whole
# acknowledgement counts 18 M fewer (callgrind). The GIL is still released once per 32 rows, not once per row.
ROWS_PER_STATEMENT = 32


def placeholder(dialect: Dialect) -> str:
    """The driver's placeholder: `?` for sqlite3, `%s` for psycopg."""
    return "?" if dialect.paramstyle == "qmark" else "%s"


@lru_cache(maxsize=128)
def insert_statement(
    table: Table,
    dialect: Dialect,
    names: tuple[str, ...],
    rows: int,
    conflict: Conflict,
    keys: tuple[str, ...],
    returning: str | None = None,
    utf8: tuple[str, ...] = (),
) -> str:
    """`utf8`: text columns whose values may come as their UTF-8 bytes (`insert_rows`); SQLite casts
    them back to text, as the column's type."""
    quote = dialect.identifier_preparer.quote
    mark = placeholder(dialect)
    casts = dialect.name == "sqlite"
    one = f"({', '.join(f'CAST({mark} AS TEXT)' if casts and n in utf8 else mark for n in names)})"
    sql = f"INSERT INTO {quote(table.name)} ({', '.join(quote(n) for n in names)}) VALUES {', '.join([one] * rows)}"
    if conflict != "error":
        sql += f" ON CONFLICT ({', '.join(quote(k) for k in keys)}) DO "
        updated = [n for n in names if n not in keys]
        if conflict == "update" and updated:
            sql += "UPDATE SET " + ", ".join(f"{quote(n)} = excluded.{quote(n)}" for n in updated)
        else:
            sql += "NOTHING"
    if returning:
        sql += f" RETURNING {quote(returning)}"
    return sql


def returning_supported(dialect: Dialect) -> bool:
    """`INSERT … RETURNING`: PostgreSQL, and SQLite from 3.35."""
    return dialect.name != "sqlite" or sqlite3.sqlite_version_info >= (3, 35, 0)


_SQLITE_DATES: dict[datetime, str] = {}  # a turn's date is also its conversation's: formatted once for both


def _sqlite_datetime(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """SQLite stores dates as text; the type's conversion (to UTC, then formatted field by field) is
    Python work for every date of every row. An aware date in UTC with a four-digit year gets the same
    text from one `isoformat`; any other value goes through the type's own conversion."""

    def fast(value: Any) -> Any:
        if type(value) is datetime and value.tzinfo is UTC and value.year >= 1000:
            text = _SQLITE_DATES.get(value)
            if text is None:
                if len(_SQLITE_DATES) >= 4096:
                    _SQLITE_DATES.clear()
                text = _SQLITE_DATES[value] = value.isoformat(" ", "microseconds")[:-6]  # without "+00:00"
            return text
        return convert(value)

    return fast


def _text(value: Any) -> Any:
    """A text column's value given as UTF-8 bytes, as text (PostgreSQL's driver would send bytes as bytea)."""
    return value.decode() if type(value) is bytes else value


@lru_cache(maxsize=64)
def _processors(
    table: Table, dialect: Dialect, names: tuple[str, ...], utf8: tuple[str, ...] = ()
) -> list[tuple[int, Callable[[Any], Any]]]:
    """The columns whose values the driver cannot take as they are (dates on SQLite; on PostgreSQL, text
    given as UTF-8 bytes, `utf8`), with the type's own conversion."""
    out: list[tuple[int, Callable[[Any], Any]]] = []
    for i, name in enumerate(names):
        if name in utf8 and dialect.name != "sqlite":
            out.append((i, _text))
            continue
        column_type = table.c[name].type
        convert: Callable[[Any], Any] | None = column_type.dialect_impl(dialect).bind_processor(dialect)
        if convert is None or (dialect.name == "sqlite" and isinstance(column_type, Boolean | Float)):
            continue  # the driver stores a bool as 0 or 1, a REAL column an int as a float: as the type would
        if dialect.name == "sqlite" and isinstance(column_type, DateTime | UTCDateTime):
            convert = _sqlite_datetime(convert)
        out.append((i, convert))
    return out


def insert_rows(
    conn: Connection,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[tuple[Any, ...]],
    conflict: Conflict = "error",
    keys: Sequence[str] = (),
    returned: list[Any] | None = None,
    utf8: tuple[str, ...] = (),
) -> int:
    """Insert rows (tuples in the order of `columns`) with multi-row `INSERT … VALUES` statements of
    `ROWS_PER_STATEMENT` rows at most (`statement_sizes`); returns the rows inserted or updated (a row skipped by
    `ON CONFLICT DO NOTHING` does not count). With `returned` (where `returning_supported`), the first
    key of each row inserted or updated is appended to it: which rows were new, with no query before.
    `utf8`: text columns whose values may be given as their UTF-8 bytes (JSON as orjson writes it): on
    SQLite they are bound as bytes and cast to text by the statement, never decoded to a `str` that the
    driver would encode again (on French text, most of the cost of writing a span's attributes).

    One statement for dozens of rows rather than `executemany`: the same speed alone, but the driver
    releases the GIL once per statement instead of once per row, so an agent's thread running beside
    the exporter's is not made to hand the GIL back and forth for every stored span."""
    if not rows:
        return 0
    names = tuple(columns)
    converted = _processors(table, conn.dialect, names, utf8)
    width = len(names)
    back = keys[0] if returned is not None else None
    if conn.dialect.name == "postgresql" and len(rows) * width > COPY_FROM_PARAMETERS:
        from filon.miner.store.pg_copy import copied

        return copied(conn, table, names, rows, conflict, tuple(keys), back, returned, converted)
    per_statement = max(1, min(ROWS_PER_STATEMENT, MAX_PARAMETERS // width))
    changed = 0
    cursor = conn.connection.cursor()  # the transaction's own connection, without the per-call machinery
    try:
        for start, size in statement_sizes(len(rows), per_statement):
            part = rows[start : start + size]
            sql = insert_statement(table, conn.dialect, names, len(part), conflict, tuple(keys), back, utf8)
            params = list(chain.from_iterable(part))
            for i, convert in converted:  # in place, column by column: no copy of each row
                for at in range(i, len(params), width):
                    if params[at] is not None:
                        params[at] = convert(params[at])
            cursor.execute(sql, params)
            if returned is not None:
                got = [r[0] for r in cursor.fetchall()]
                returned += got
                changed += len(got)
            else:
                changed += max(0, cursor.rowcount)
    finally:
        cursor.close()
    return changed


def statement_sizes(count: int, per_statement: int) -> Iterator[tuple[int, int]]:
    """Where each statement of a `count`-row insert starts, and how many rows it takes: full statements,
    then what remains in powers of two (45 rows: 32, 8, 4, 1). A table then has a handful of statement
    texts whatever its batches' sizes, each prepared once and kept by the driver's statement cache
    (128 statements), rather than up to one per remainder (31 texts for each table)."""
    start = 0
    while start < count:
        size = min(per_statement, count - start)
        if size < per_statement:
            size = 1 << (size.bit_length() - 1)
        yield start, size
        start += size


def insert_dicts(
    conn: Connection,
    table: Table,
    rows: Sequence[Mapping[str, Any]],
    conflict: Conflict = "error",
    keys: Sequence[str] = (),
) -> int:
    """`insert_rows` for rows given as dicts that all have the same keys, in the same order."""
    if not rows:
        return 0
    return insert_rows(conn, table, tuple(rows[0]), [tuple(r.values()) for r in rows], conflict, keys)


def _in_chunks(conn: Connection, sql: str, values: Sequence[Any], chunk: int, fetch: bool) -> list[Any]:
    """`sql`, whose one `{}` is the place of an `IN (...)` list, run through the driver for all `values`
    in chunks; the rows it returns when `fetch`."""
    mark = placeholder(conn.dialect)
    rows: list[Any] = []
    cursor = conn.connection.cursor()
    try:
        for start in range(0, len(values), chunk):
            part = tuple(values[start : start + chunk])
            cursor.execute(sql.format(", ".join([mark] * len(part))), part)
            if fetch:
                rows += cursor.fetchall()
    finally:
        cursor.close()
    return rows


def select_in(conn: Connection, sql: str, values: Sequence[Any], chunk: int = 500) -> list[Any]:
    """Rows of `sql`, whose one `{}` is the place of an `IN (...)` list, for all `values` (in chunks),
    through the driver: the ingest path asks this for every batch."""
    return _in_chunks(conn, sql, values, chunk, fetch=True)


@lru_cache(maxsize=64)
def _readers(
    table: Table, dialect: Dialect, names: tuple[str, ...]
) -> list[tuple[int, Callable[[Any], Any]]]:
    """The columns whose stored value the driver hands back in another form than the type's (dates as
    text on SQLite), with the type's own conversion: what SQLAlchemy's result would have done."""
    out: list[tuple[int, Callable[[Any], Any]]] = []
    for i, name in enumerate(names):
        column_type = table.c[name].type
        if not isinstance(column_type, DateTime | UTCDateTime):
            continue
        convert = column_type.dialect_impl(dialect).result_processor(dialect, None)
        if convert is not None:
            out.append((i, convert))
    return out


def select_rows(
    conn: Connection, table: Table, columns: Sequence[str], where: str, values: Sequence[Any]
) -> list[tuple[Any, ...]]:
    """`SELECT columns FROM table WHERE …` through the driver, `where` holding one `{}` for the place of
    an `IN (...)` list of `values`; dates come back as the type gives them (aware `datetime`)."""
    names = tuple(columns)
    quote = conn.dialect.identifier_preparer.quote
    sql = f"SELECT {', '.join(quote(n) for n in names)} FROM {quote(table.name)} WHERE {where}"
    rows = select_in(conn, sql, values)
    readers = _readers(table, conn.dialect, names)
    if not readers:
        return [tuple(r) for r in rows]
    out = []
    for r in rows:
        row = list(r)
        for i, convert in readers:
            row[i] = convert(row[i])
        out.append(tuple(row))
    return out


def update_rows(
    conn: Connection, table: Table, columns: Sequence[str], key: str, rows: Sequence[tuple[Any, ...]]
) -> None:
    """`UPDATE table SET columns… WHERE key = …` for each row (tuples: the columns, then the key),
    through the driver's `executemany`, values converted as `insert_rows` does."""
    if not rows:
        return
    names = (*columns, key)
    quote = conn.dialect.identifier_preparer.quote
    mark = placeholder(conn.dialect)
    sets = ", ".join(f"{quote(n)} = {mark}" for n in columns)
    sql = f"UPDATE {quote(table.name)} SET {sets} WHERE {quote(key)} = {mark}"
    converted = _processors(table, conn.dialect, names)
    params: Sequence[Sequence[Any]] = rows
    if converted:
        params = [list(r) for r in rows]
        for row in params:
            for i, convert in converted:
                if row[i] is not None:
                    row[i] = convert(row[i])  # type: ignore[index]
    cursor = conn.connection.cursor()
    try:
        cursor.executemany(sql, params)
    finally:
        cursor.close()


def delete_in(conn: Connection, table: Table, where: str, values: Sequence[Any]) -> None:
    """`DELETE FROM table WHERE …`, `where` holding one `{}` for the place of an `IN (...)` list."""
    sql = f"DELETE FROM {conn.dialect.identifier_preparer.quote(table.name)} WHERE {where}"
    _in_chunks(conn, sql, values, 500, fetch=False)
