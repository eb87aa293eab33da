"""Ordered, recorded schema migrations. A blank database and an old one end at the same schema.

Each migration runs once, in order, inside a transaction, and is recorded in `filon_migrations`. Each
spells out its DDL (`miner/store/ddl.py`): a migration never reads the table classes, so it does the same
thing to a database today as on the day it was released. New tables and columns come with new
migrations appended here; a released migration is never edited.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, inspect

from filon.miner.store import ddl, tables
from filon.miner.store.ddl import statements, steps
from filon.miner.store.regroup import recount_all

MIGRATIONS: list[tuple[int, str, Callable[[Connection], None]]] = [
    (1, "migrations ledger", statements(ddl.LEDGER)),
    (2, "eval runs and results", statements(*ddl.EVAL_RUNS)),
    (3, "conversations, turns, spans, flags, reviews, case links", statements(*ddl.TRACES)),
    (4, "review queue index", statements(*ddl.QUEUE_INDEX)),
    (5, "eval comparisons", statements(*ddl.COMPARISONS)),
    (6, "flag causes; the queue by severity", statements(*ddl.CAUSES)),
    (7, "case verdicts in their own table", steps(statements(*ddl.VERDICTS), ddl.move_verdicts)),
    (8, "eval runs and results in English", statements(*ddl.ENGLISH_STORE)),
    (9, "conversations' failure signatures", statements(*ddl.SIGNATURES)),
    (10, "failure groups kept up to date", steps(statements(*ddl.FAILURE_GROUPS), recount_all)),
    (11, "a failure group's flagged members in queue order", statements(*ddl.GROUP_INDEX)),
]


def applied(engine: Engine) -> list[int]:
    if not inspect(engine).has_table("filon_migrations"):
        return []
    with engine.connect() as conn:
        rows = conn.execute(tables.Migration.__table__.select())  # type: ignore[attr-defined]
        return sorted(r.version for r in rows)


MIGRATION_LOCK = 0x66696C6F6E  # "filon": one advisory lock for every process migrating this database


def migrate(engine: Engine, upto: int | None = None) -> list[int]:
    """Apply what is missing (up to version `upto`, for the upgrade tests); returns the versions applied
    now. Processes starting together (several receivers, reviewers, CI jobs) take turns: an advisory
    lock on PostgreSQL, a write lock on SQLite."""
    with engine.connect() as lock_conn:
        if engine.dialect.name == "postgresql":
            lock_conn.exec_driver_sql(f"SELECT pg_advisory_lock({MIGRATION_LOCK})")
        try:
            return _migrate(engine, upto)
        finally:
            if engine.dialect.name == "postgresql":
                lock_conn.exec_driver_sql(f"SELECT pg_advisory_unlock({MIGRATION_LOCK})")
                lock_conn.commit()


def _migrate(engine: Engine, upto: int | None) -> list[int]:
    done = set(applied(engine))
    now = []
    for version, name, apply in MIGRATIONS:
        if version in done or (upto is not None and version > upto):
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
