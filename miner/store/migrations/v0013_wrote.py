"""Migration 13: whether the agent changed the customer's records in a conversation (`wrote`).

Within one severity the queue shows first the conversations where a write succeeded (a `write_made`
flag): a changed record is where a mistake costs most, and on real conversations (tau-bench's airline
agent) it is where the failed ones are. The column is derived from the flags, as `priority` is, and
written with them; a conversation stored before this migration reads false until its flags are next
written."""

from __future__ import annotations

from filon.miner.core.severity import NO_FLAG
from filon.miner.store.migrations._ddl import statements

NAME = "a conversation's write, for the queue's order"

# the queue's and a group's indexes, in the queue's new order (migrations 4 and 11 made them without it)
apply = statements(
    "ALTER TABLE conversations ADD COLUMN wrote BOOLEAN NOT NULL DEFAULT FALSE",
    "DROP INDEX IF EXISTS ix_conversations_queue",
    "CREATE INDEX ix_conversations_queue ON conversations (priority, wrote DESC, last_at DESC, id)",
    "DROP INDEX IF EXISTS ix_conversations_group",
    "CREATE INDEX ix_conversations_group ON conversations (signature, priority, wrote DESC, last_at DESC, id)"
    f" WHERE priority < {NO_FLAG}",
)
