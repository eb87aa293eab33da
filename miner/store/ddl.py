"""The DDL of every released migration, written out, so that none changes when a table class does.

`miner/store/tables.py` describes the schema as the code reads it; this file is how the schema came to be. The
two must agree: `tests/miner/test_migrations.py` checks the columns and indexes a blank database ends
with against the table classes, on SQLite and PostgreSQL. Types that differ between the two are the
placeholders `{ts}` (a timestamp) and `{serial}` (an integer key the database numbers).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlalchemy import Connection, text

from filon.miner.core.severity import NO_FLAG

TYPES = {
    "sqlite": {"ts": "DATETIME", "serial": "INTEGER"},
    "postgresql": {"ts": "TIMESTAMP WITH TIME ZONE", "serial": "SERIAL"},
}

LEDGER = """
CREATE TABLE filon_migrations (
    version {serial} NOT NULL, name VARCHAR NOT NULL, applied_at {ts} NOT NULL, PRIMARY KEY (version)
)"""

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

TRACES = (
    """CREATE TABLE conversations (
    id VARCHAR NOT NULL, channel VARCHAR NOT NULL, started_at {ts} NOT NULL, last_at {ts} NOT NULL,
    turn_count INTEGER NOT NULL, escalated BOOLEAN NOT NULL, flag_kinds VARCHAR NOT NULL,
    priority INTEGER NOT NULL, PRIMARY KEY (id)
)""",
    "CREATE INDEX ix_conversations_priority ON conversations (priority)",
    "CREATE INDEX ix_conversations_started_at ON conversations (started_at)",
    """CREATE TABLE turns (
    trace_id VARCHAR NOT NULL, conversation_id VARCHAR NOT NULL, started_at {ts} NOT NULL,
    user_text VARCHAR NOT NULL, agent_text VARCHAR NOT NULL, tools VARCHAR NOT NULL,
    escalated BOOLEAN NOT NULL, latency_ms FLOAT NOT NULL, input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL, error_types VARCHAR NOT NULL, failed_spans VARCHAR NOT NULL,
    feedback FLOAT, sender VARCHAR, PRIMARY KEY (trace_id),
    FOREIGN KEY(conversation_id) REFERENCES conversations (id)
)""",
    "CREATE INDEX ix_turns_conversation_id ON turns (conversation_id)",
    """CREATE TABLE spans (
    trace_id VARCHAR NOT NULL, span_id VARCHAR NOT NULL, parent_span_id VARCHAR,
    conversation_id VARCHAR NOT NULL, name VARCHAR NOT NULL, kind VARCHAR NOT NULL,
    start_ns BIGINT NOT NULL, end_ns BIGINT NOT NULL, status VARCHAR NOT NULL,
    status_message VARCHAR NOT NULL, attributes VARCHAR NOT NULL, resource VARCHAR NOT NULL,
    scope VARCHAR NOT NULL, PRIMARY KEY (trace_id, span_id)
)""",
    "CREATE INDEX ix_spans_conversation_id ON spans (conversation_id)",
    """CREATE TABLE flags (
    id {serial} NOT NULL, conversation_id VARCHAR NOT NULL, trace_id VARCHAR NOT NULL,
    turn INTEGER NOT NULL, kind VARCHAR NOT NULL, severity VARCHAR NOT NULL, reason VARCHAR NOT NULL,
    source VARCHAR NOT NULL, created_at {ts} NOT NULL, PRIMARY KEY (id),
    FOREIGN KEY(conversation_id) REFERENCES conversations (id)
)""",
    "CREATE INDEX ix_flags_conversation_id ON flags (conversation_id)",
    "CREATE INDEX ix_flags_kind ON flags (kind)",
    """CREATE TABLE reviews (
    conversation_id VARCHAR NOT NULL, status VARCHAR NOT NULL, reviewer VARCHAR, claimed_at {ts},
    expires_at {ts}, note VARCHAR NOT NULL, updated_at {ts}, PRIMARY KEY (conversation_id),
    FOREIGN KEY(conversation_id) REFERENCES conversations (id)
)""",
    "CREATE INDEX ix_reviews_status ON reviews (status)",
    """CREATE TABLE case_links (
    id {serial} NOT NULL, case_id VARCHAR NOT NULL, conversation_id VARCHAR NOT NULL,
    provenance VARCHAR NOT NULL, created_at {ts} NOT NULL, PRIMARY KEY (id)
)""",
    "CREATE INDEX ix_case_links_case_id ON case_links (case_id)",
    "CREATE INDEX ix_case_links_conversation_id ON case_links (conversation_id)",
)

QUEUE_INDEX = (
    "CREATE INDEX IF NOT EXISTS ix_conversations_queue ON conversations (priority, last_at DESC, id)",
)

COMPARISONS = (
    # released with a timestamp without time zone on PostgreSQL: kept as released
    "CREATE TABLE eval_comparisons (id {key}, created_at {stamp} NOT NULL, a_run_id VARCHAR NOT NULL, "
    "b_run_id VARCHAR NOT NULL, verdict VARCHAR NOT NULL, exit_code INTEGER NOT NULL, delta FLOAT, "
    "p_value FLOAT)",
    "CREATE INDEX ix_eval_comparisons_b_run_id ON eval_comparisons (b_run_id)",
)

POSTGRES_ONLY = "-- postgresql only\n"

# a flag's cause, from what the rules wrote before causes existed (their reason texts, fixed by then)
_OLD_CAUSE = """CASE
    WHEN kind = 'incident' THEN 'reported'
    WHEN kind = 'security' AND reason LIKE 'injection pattern%' THEN 'injection_refused'
    WHEN kind = 'security' AND reason LIKE 'the answer exposes%' THEN 'leak'
    WHEN kind = 'security' THEN 'exposure'
    WHEN kind = 'escalation' THEN 'transferred'
    WHEN kind = 'promise' THEN 'unbacked_promise'
    WHEN kind = 'error' AND reason = 'the agent answered nothing' THEN 'empty_answer'
    WHEN kind = 'error' THEN 'span_error'
    WHEN kind = 'rate_limit' THEN 'quota'
    WHEN kind = 'tool_error' THEN 'tool_failed'
    WHEN kind = 'loop' THEN 'repeated_call'
    WHEN kind = 'latency' THEN 'slow_turn'
    WHEN kind = 'feedback' THEN 'negative_feedback'
    ELSE '' END"""
_SEVERITY_OF_CAUSE = """CASE cause
    WHEN 'reported' THEN 'critical' WHEN 'leak' THEN 'critical' WHEN 'injection_obeyed' THEN 'critical'
    WHEN 'injection_refused' THEN 'low' WHEN 'slow_turn' THEN 'low'
    WHEN 'transferred' THEN 'high' WHEN 'unbacked_promise' THEN 'high'
    WHEN '' THEN severity ELSE 'medium' END"""
_RANK = (
    "CASE WHEN f.kind = 'incident' THEN 0 WHEN f.severity = 'critical' THEN 1 "
    "WHEN f.severity = 'high' THEN 2 WHEN f.severity = 'medium' THEN 3 ELSE 4 END"
)
CAUSES = (
    "ALTER TABLE flags ADD COLUMN cause VARCHAR NOT NULL DEFAULT ''",
    "ALTER TABLE conversations ADD COLUMN reason VARCHAR NOT NULL DEFAULT ''",
    f"UPDATE flags SET cause = {_OLD_CAUSE}",
    f"UPDATE flags SET severity = {_SEVERITY_OF_CAUSE}",
    # the queue's order becomes incidents, then severity: 0 incident, 1 critical … 4 low, 9 none
    f"UPDATE conversations SET priority = COALESCE((SELECT MIN({_RANK}) FROM flags f "
    "WHERE f.conversation_id = conversations.id), 9)",
    f"UPDATE conversations SET reason = COALESCE((SELECT f.reason FROM flags f "
    f"WHERE f.conversation_id = conversations.id ORDER BY {_RANK}, f.turn, f.id LIMIT 1), '')",
    # migration 5 made this column without time zone on PostgreSQL, unlike every other timestamp
    POSTGRES_ONLY + "ALTER TABLE eval_comparisons ALTER COLUMN created_at TYPE TIMESTAMP WITH TIME ZONE "
    "USING created_at AT TIME ZONE 'UTC'",
)


VERDICTS = (
    """CREATE TABLE case_verdicts (
    id {serial} NOT NULL, case_id VARCHAR NOT NULL, verdict VARCHAR NOT NULL, note VARCHAR NOT NULL,
    reviewer VARCHAR NOT NULL, created_at {ts} NOT NULL, PRIMARY KEY (id)
)""",
    "CREATE INDEX ix_case_verdicts_case_id ON case_verdicts (case_id)",
)


ENGLISH_STORE = (
    # the store speaks English (docs/architecture.md, "the language rule"); the report stays French
    "ALTER TABLE eval_runs RENAME COLUMN seuil TO threshold",
    "ALTER TABLE eval_results RENAME COLUMN categorie TO category",
    "ALTER TABLE eval_results RENAME COLUMN statut TO status",
    "ALTER TABLE eval_results RENAME COLUMN outils TO tools",
    "ALTER TABLE eval_results RENAME COLUMN ecarts TO gaps",
    "ALTER TABLE eval_results RENAME COLUMN erreur TO error",
    "UPDATE eval_results SET status = CASE status WHEN 'ok' THEN 'passed' WHEN 'echec' THEN 'failed' "
    "WHEN 'erreur' THEN 'error' ELSE status END",
    "UPDATE eval_comparisons SET verdict = CASE verdict WHEN 'pas pire' THEN 'not worse' "
    "WHEN 'pire' THEN 'worse' WHEN 'non concluant' THEN 'inconclusive' "
    "WHEN 'ne s''apparient pas' THEN 'unpaired' ELSE verdict END",
)


# a failure group's flagged members in queue order: its first page read as the queue's, at any size. Partial:
# the unflagged majority of traffic does not pay for it on ingest (the signature's own index serves them)
GROUP_INDEX = (
    "CREATE INDEX IF NOT EXISTS ix_conversations_group ON conversations (signature, priority, last_at DESC, id)"
    f" WHERE priority < {NO_FLAG}",
)

SIGNATURES = (  # conversations grouped by failure (`miner.store.signature`); rows stored before it have none yet
    "ALTER TABLE conversations ADD COLUMN signature VARCHAR NOT NULL DEFAULT ''",
    "CREATE INDEX ix_conversations_signature ON conversations (signature)",
)


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


def move_verdicts(conn: Connection) -> None:
    """Verdicts were stored as case links without a conversation, their fields in the provenance JSON:
    they move to their own table (read with `json` here, the same on both databases)."""
    rows = conn.execute(
        text("SELECT id, case_id, provenance, created_at FROM case_links WHERE conversation_id = ''")
    ).all()
    for row in rows:
        fields = json.loads(row.provenance or "{}")
        conn.execute(
            text(
                "INSERT INTO case_verdicts (case_id, verdict, note, reviewer, created_at) "
                "VALUES (:case_id, :verdict, :note, :reviewer, :created_at)"
            ),
            {
                "case_id": row.case_id,
                "verdict": str(fields.get("verdict", "")),
                "note": str(fields.get("note", "")),
                "reviewer": str(fields.get("reviewer", "")),
                "created_at": row.created_at,
            },
        )
    conn.execute(text("DELETE FROM case_links WHERE conversation_id = ''"))


def steps(*parts: Callable[[Connection], None]) -> Callable[[Connection], None]:
    """A migration made of several steps, run in order in its one transaction."""

    def apply(conn: Connection) -> None:
        for part in parts:
            part(conn)

    return apply


def statements(*ddl: str) -> Callable[[Connection], None]:
    """A migration step that runs the statements in order, with the dialect's types filled in."""

    def apply(conn: Connection) -> None:
        postgres = conn.dialect.name == "postgresql"
        types = {
            **TYPES["postgresql" if postgres else "sqlite"],
            "key": "SERIAL PRIMARY KEY" if postgres else "INTEGER PRIMARY KEY AUTOINCREMENT",
            "stamp": "TIMESTAMP WITHOUT TIME ZONE" if postgres else "DATETIME",
        }
        for statement in ddl:
            if statement.startswith(POSTGRES_ONLY) and not postgres:
                continue
            conn.execute(text(statement.format(**types) if "{" in statement else statement))

    return apply
