"""Migration 10: failure groups kept up to date."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements, steps
from filon.miner.store.regroup import recount_all

NAME = "failure groups kept up to date"

FAILURE_GROUPS = (  # the groups kept up to date on ingest (`miner.store.groups`), filled from what is stored
    """CREATE TABLE failure_groups (
    signature VARCHAR NOT NULL, size INTEGER NOT NULL, priority INTEGER NOT NULL, first_seen {ts} NOT NULL,
    last_seen {ts} NOT NULL, representative VARCHAR NOT NULL, reason VARCHAR NOT NULL, PRIMARY KEY (signature)
)""",
    "CREATE INDEX ix_failure_groups_priority ON failure_groups (priority)",
    """CREATE TABLE failure_group_days (
    signature VARCHAR NOT NULL, day VARCHAR NOT NULL, size INTEGER NOT NULL, PRIMARY KEY (signature, day)
)""",
    "CREATE INDEX ix_failure_group_days_day ON failure_group_days (day)",
)

apply = steps(statements(*FAILURE_GROUPS), recount_all)
