"""Migration 12: a flag's reason as a code of the catalogue (`miner.core.messages`), beside its English.

The reason column keeps the English sentence for whoever reads the store with SQL; `reason_code` holds
the same sentence as its code and values (JSON), so the reason can be said in French or English and a
rule's gap takes the words a flag quoted from its values, not from its text. A person's note, and a flag
stored before this migration, has none ('')."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements

NAME = "a flag's reason as a code"

apply = statements("ALTER TABLE flags ADD COLUMN reason_code VARCHAR NOT NULL DEFAULT ''")
