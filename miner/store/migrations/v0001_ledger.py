"""Migration 1: migrations ledger."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements

NAME = "migrations ledger"

LEDGER = """
CREATE TABLE filon_migrations (
    version {serial} NOT NULL, name VARCHAR NOT NULL, applied_at {ts} NOT NULL, PRIMARY KEY (version)
)"""

apply = statements(LEDGER)
