"""The one dialect-specific piece of SQL: an INSERT that knows `ON CONFLICT` (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlalchemy.dialects import postgresql, sqlite


def upsert_insert(engine: Engine, table: Any) -> Any:
    """`INSERT` for `table` with `.on_conflict_do_nothing()` / `.on_conflict_do_update()` available."""
    dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
    return dialect.insert(table)
