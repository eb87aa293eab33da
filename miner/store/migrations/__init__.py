"""Ordered, recorded schema migrations. A blank database and an old one end at the same schema.

One file per migration in this package, `vNNNN_what.py`, its version in its name, with `NAME` (recorded in
the ledger) and `apply(conn)`. Each runs once, in order, inside a transaction, and is recorded in
`filon_migrations`. Each spells out its DDL: a migration never reads the table classes, so it does the
same thing to a database today as on the day it was released. A new table or column is a new file with
the next version; a released migration is never edited.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, inspect

from filon.miner.store import tables

Step = tuple[int, str, Callable[[Connection], None]]  # version, name (the ledger's), apply


def _discovered() -> list[Step]:
    """Every `vNNNN_*.py` of this package, in version order; versions run 1, 2, 3… with none missing."""
    found = []
    for module in pkgutil.iter_modules(__path__):
        named = re.fullmatch(r"v(\d{4})_\w+", module.name)
        if named is None:
            continue
        loaded = importlib.import_module(f"{__name__}.{module.name}")
        found.append((int(named.group(1)), loaded.NAME, loaded.apply))
    found.sort(key=lambda m: m[0])
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must number 1, 2, 3… with none missing or twice: {versions}")
    return found


MIGRATIONS: list[Step] = _discovered()


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
