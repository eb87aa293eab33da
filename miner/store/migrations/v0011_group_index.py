"""Migration 11: a failure group's flagged members in queue order."""

from __future__ import annotations

from filon.miner.core.severity import NO_FLAG
from filon.miner.store.migrations._ddl import statements

NAME = "a failure group's flagged members in queue order"

# a failure group's flagged members in queue order: its first page read as the queue's, at any size. Partial:
# the unflagged majority of traffic does not pay for it on ingest (the signature's own index serves them)
GROUP_INDEX = (
    "CREATE INDEX IF NOT EXISTS ix_conversations_group ON conversations (signature, priority, last_at DESC, id)"
    f" WHERE priority < {NO_FLAG}",
)

apply = statements(*GROUP_INDEX)
