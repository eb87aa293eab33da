"""Ordered, recorded schema migrations. A blank database and an old one end at the same schema.

Each migration runs once, in order, inside a transaction, and is recorded in `filon_migrations`. New
tables come with new migrations appended here; a released migration is never edited.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, inspect
from sqlmodel import SQLModel

from miner import tables


def _create(*names: str) -> Callable[[Connection], None]:
    def apply(conn: Connection) -> None:
        SQLModel.metadata.create_all(conn, tables=[SQLModel.metadata.tables[n] for n in names])

    return apply


def _queue_index(conn: Connection) -> None:
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_conversations_queue ON conversations (priority, last_at DESC, id)"
    )


def _comparisons(conn: Connection) -> None:
    """Written out in full: it must not change when `tables.EvalComparison` does."""
    key = "SERIAL PRIMARY KEY" if conn.dialect.name == "postgresql" else "INTEGER PRIMARY KEY AUTOINCREMENT"
    stamp = "TIMESTAMP WITHOUT TIME ZONE" if conn.dialect.name == "postgresql" else "DATETIME"
    conn.exec_driver_sql(
        f"CREATE TABLE eval_comparisons (id {key}, created_at {stamp} NOT NULL, a_run_id VARCHAR NOT NULL, "
        "b_run_id VARCHAR NOT NULL, verdict VARCHAR NOT NULL, exit_code INTEGER NOT NULL, delta FLOAT, "
        "p_value FLOAT)"
    )
    conn.exec_driver_sql("CREATE INDEX ix_eval_comparisons_b_run_id ON eval_comparisons (b_run_id)")


MIGRATIONS: list[tuple[int, str, Callable[[Connection], None]]] = [
    (1, "migrations ledger", _create("filon_migrations")),
    (2, "eval runs and results", _create("eval_runs", "eval_results")),
    (
        3,
        "conversations, turns, spans, flags, reviews, case links",
        _create("conversations", "turns", "spans", "flags", "reviews", "case_links"),
    ),
    (4, "review queue index", _queue_index),
    (5, "eval comparisons", _comparisons),
]


def applied(engine: Engine) -> list[int]:
    if not inspect(engine).has_table("filon_migrations"):
        return []
    with engine.connect() as conn:
        rows = conn.execute(tables.Migration.__table__.select())  # type: ignore[attr-defined]
        return sorted(r.version for r in rows)


MIGRATION_LOCK = 0x66696C6F6E  # "filon": one advisory lock for every process migrating this database


def migrate(engine: Engine) -> list[int]:
    """Apply what is missing; returns the versions applied now. Processes starting together (several
    receivers, reviewers, CI jobs) take turns: an advisory lock on PostgreSQL, a write lock on SQLite."""
    with engine.connect() as lock_conn:
        if engine.dialect.name == "postgresql":
            lock_conn.exec_driver_sql(f"SELECT pg_advisory_lock({MIGRATION_LOCK})")
        try:
            return _migrate(engine)
        finally:
            if engine.dialect.name == "postgresql":
                lock_conn.exec_driver_sql(f"SELECT pg_advisory_unlock({MIGRATION_LOCK})")
                lock_conn.commit()


def _migrate(engine: Engine) -> list[int]:
    done = set(applied(engine))
    now = []
    for version, name, apply in MIGRATIONS:
        if version in done:
            continue
        with engine.begin() as conn:
            if engine.dialect.name == "sqlite":
                conn.exec_driver_sql("SELECT 1")  # the transaction starts; the DDL below takes the write lock
            if version in set(applied_in(conn)):
                continue  # another process applied it while we waited
            apply(conn)
            conn.execute(
                tables.Migration.__table__.insert().values(  # type: ignore[attr-defined]
                    version=version, name=name, applied_at=datetime.now(UTC)
                )
            )
        now.append(version)
    return now


def applied_in(conn: Connection) -> list[int]:
    if not inspect(conn).has_table("filon_migrations"):
        return []
    return sorted(r.version for r in conn.execute(tables.Migration.__table__.select()))  # type: ignore[attr-defined]
