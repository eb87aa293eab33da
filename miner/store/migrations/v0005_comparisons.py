"""Migration 5: eval comparisons."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements

NAME = "eval comparisons"

COMPARISONS = (
    # released with a timestamp without time zone on PostgreSQL: kept as released
    "CREATE TABLE eval_comparisons (id {key}, created_at {stamp} NOT NULL, a_run_id VARCHAR NOT NULL, "
    "b_run_id VARCHAR NOT NULL, verdict VARCHAR NOT NULL, exit_code INTEGER NOT NULL, delta FLOAT, "
    "p_value FLOAT)",
    "CREATE INDEX ix_eval_comparisons_b_run_id ON eval_comparisons (b_run_id)",
)

apply = statements(*COMPARISONS)
