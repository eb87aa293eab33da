"""What every migration's DDL shares: the types that differ between SQLite and PostgreSQL, statements run
with them filled in, and a migration made of several steps."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, text

TYPES = {
    "sqlite": {"ts": "DATETIME", "serial": "INTEGER"},
    "postgresql": {"ts": "TIMESTAMP WITH TIME ZONE", "serial": "SERIAL"},
}

POSTGRES_ONLY = "-- postgresql only\n"


def steps(*parts: Callable[[Connection], None]) -> Callable[[Connection], None]:
    """A migration made of several steps, run in order in its one transaction."""

    def apply(conn: Connection) -> None:
        for part in parts:
            part(conn)

    return apply


def statements(*ddl: str) -> Callable[[Connection], None]:
    """A migration step that runs the statements in order, with the dialect's types filled in."""

    def apply(conn: Connection) -> None:
        postgres = conn.dialect.name == "postgresql"
        types = {
            **TYPES["postgresql" if postgres else "sqlite"],
            "key": "SERIAL PRIMARY KEY" if postgres else "INTEGER PRIMARY KEY AUTOINCREMENT",
            "stamp": "TIMESTAMP WITHOUT TIME ZONE" if postgres else "DATETIME",
        }
        for statement in ddl:
            if statement.startswith(POSTGRES_ONLY) and not postgres:
                continue
            conn.execute(text(statement.format(**types) if "{" in statement else statement))

    return apply
