"""Migration 7: case verdicts in their own table."""

from __future__ import annotations

import json

from sqlalchemy import Connection, text

from filon.miner.store.migrations._ddl import statements, steps

NAME = "case verdicts in their own table"

VERDICTS = (
    """CREATE TABLE case_verdicts (
    id {serial} NOT NULL, case_id VARCHAR NOT NULL, verdict VARCHAR NOT NULL, note VARCHAR NOT NULL,
    reviewer VARCHAR NOT NULL, created_at {ts} NOT NULL, PRIMARY KEY (id)
)""",
    "CREATE INDEX ix_case_verdicts_case_id ON case_verdicts (case_id)",
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


apply = steps(statements(*VERDICTS), move_verdicts)
