"""Migration 4: review queue index."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements

NAME = "review queue index"

QUEUE_INDEX = (
    "CREATE INDEX IF NOT EXISTS ix_conversations_queue ON conversations (priority, last_at DESC, id)",
)

apply = statements(*QUEUE_INDEX)
