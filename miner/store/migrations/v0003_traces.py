"""Migration 3: conversations, turns, spans, flags, reviews, case links."""

from __future__ import annotations

from filon.miner.store.migrations._ddl import statements

NAME = "conversations, turns, spans, flags, reviews, case links"

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

apply = statements(*TRACES)
