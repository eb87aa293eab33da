"""Migration 9: conversations' failure signatures."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements

NAME = "conversations' failure signatures"

SIGNATURES = (  # conversations grouped by failure (`miner.store.signature`); rows stored before it have none yet
    "ALTER TABLE conversations ADD COLUMN signature VARCHAR NOT NULL DEFAULT ''",
    "CREATE INDEX ix_conversations_signature ON conversations (signature)",
)

apply = statements(*SIGNATURES)
