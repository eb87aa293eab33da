"""Migration 15: the agent's instructions a turn's spans recorded (`turns.instructions`).

What the agent was told (its system prompt) is part of what it saw: `fait_non_fonde` reads it as it
reads a team's declared `sources` (`tracing.instructions`). A turn stored before this migration reads no
instructions, as a stack that records none."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements

NAME = "a turn's instructions, for what the agent was told"

apply = statements("ALTER TABLE turns ADD COLUMN instructions VARCHAR NOT NULL DEFAULT ''")
