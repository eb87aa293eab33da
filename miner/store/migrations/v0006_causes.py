"""Migration 6: flag causes; the queue by severity."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import POSTGRES_ONLY, statements

NAME = "flag causes; the queue by severity"

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

apply = statements(*CAUSES)
