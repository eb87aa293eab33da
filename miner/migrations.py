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


MIGRATIONS: list[tuple[int, str, Callable[[Connection], None]]] = [
    (1, "migrations ledger", _create("filon_migrations")),
    (2, "eval runs and results", _create("eval_runs", "eval_results")),
    (
        3,
        "conversations, turns, spans, flags, reviews, case links",
        _create("conversations", "turns", "spans", "flags", "reviews", "case_links"),
    ),
    (4, "review queue index", _queue_index),
]


def applied(engine: Engine) -> list[int]:
    if not inspect(engine).has_table("filon_migrations"):
        return []
    with engine.connect() as conn:
        rows = conn.execute(tables.Migration.__table__.select())  # type: ignore[attr-defined]
        return sorted(r.version for r in rows)


def migrate(engine: Engine) -> list[int]:
    """Apply what is missing; returns the versions applied now."""
    done = set(applied(engine))
    now = []
    for version, name, apply in MIGRATIONS:
        if version in done:
            continue
        with engine.begin() as conn:
            apply(conn)
            conn.execute(
                tables.Migration.__table__.insert().values(  # type: ignore[attr-defined]
                    version=version, name=name, applied_at=datetime.now(UTC)
                )
            )
        now.append(version)
    return now
