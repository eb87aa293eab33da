"""Migration 2: eval runs and results."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements

NAME = "eval runs and results"

EVAL_RUNS = (
    """CREATE TABLE eval_runs (
    id VARCHAR NOT NULL, started_at {ts} NOT NULL, duration_s FLOAT NOT NULL, backend VARCHAR NOT NULL,
    model VARCHAR NOT NULL, prompt_path VARCHAR NOT NULL, prompt_sha256 VARCHAR NOT NULL,
    goldens VARCHAR NOT NULL, seuil FLOAT NOT NULL, score FLOAT, decision VARCHAR NOT NULL,
    rule VARCHAR NOT NULL, passed INTEGER NOT NULL, valid INTEGER NOT NULL, errors INTEGER NOT NULL,
    report_path VARCHAR NOT NULL, PRIMARY KEY (id)
)""",
    "CREATE INDEX ix_eval_runs_started_at ON eval_runs (started_at)",
    """CREATE TABLE eval_results (
    id {serial} NOT NULL, run_id VARCHAR NOT NULL, case_id VARCHAR NOT NULL, categorie VARCHAR NOT NULL,
    attempt INTEGER NOT NULL, statut VARCHAR NOT NULL, outils VARCHAR NOT NULL, ecarts VARCHAR NOT NULL,
    erreur VARCHAR, latency_ms FLOAT NOT NULL, input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL, PRIMARY KEY (id), FOREIGN KEY(run_id) REFERENCES eval_runs (id)
)""",
    "CREATE INDEX ix_eval_results_case_id ON eval_results (case_id)",
    "CREATE INDEX ix_eval_results_run_id ON eval_results (run_id)",
)

apply = statements(*EVAL_RUNS)
