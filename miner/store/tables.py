"""SQLModel tables of filon's store: how the code reads it. Created only by migrations (`miner.store.migrations`,
which spell out their DDL, one file each in `miner/store/migrations/`), never ad hoc."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger
from sqlmodel import Field, SQLModel


class Migration(SQLModel, table=True):
    __tablename__ = "filon_migrations"
    version: int = Field(primary_key=True)
    name: str
    applied_at: datetime


class EvalRun(SQLModel, table=True):
    __tablename__ = "eval_runs"
    id: str = Field(primary_key=True)
    started_at: datetime = Field(index=True)
    duration_s: float
    backend: str
    model: str
    prompt_path: str
    prompt_sha256: str
    goldens: str
    threshold: float  # the gate's seuil
    score: float | None
    decision: str
    rule: str
    passed: int
    valid: int
    errors: int
    report_path: str = ""


class EvalComparison(SQLModel, table=True):
    """`filon eval compare`: run B against run A, the verdict and its figures (migration 5 spells the DDL)."""

    __tablename__ = "eval_comparisons"
    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime
    a_run_id: str
    b_run_id: str = Field(index=True)
    verdict: str
    exit_code: int
    delta: float | None = None
    p_value: float | None = None


class EvalAttemptRow(SQLModel, table=True):
    """One attempt of one case in one `filon eval` run."""

    __tablename__ = "eval_results"
    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="eval_runs.id", index=True)
    case_id: str = Field(index=True)
    category: str
    attempt: int
    status: str  # passed, failed, error, not_runnable
    tools: str  # JSON list, in call order
    gaps: str  # JSON list: what the grader found wrong (the report's "ecarts")
    error: str | None = None
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0


class ConversationRow(SQLModel, table=True):
    __tablename__ = "conversations"
    id: str = Field(primary_key=True)
    channel: str
    started_at: datetime = Field(index=True)
    last_at: datetime
    turn_count: int = 0
    escalated: bool = False
    flag_kinds: str = "[]"  # JSON list of kinds, in review priority order
    priority: int = Field(
        default=9, index=True
    )  # 0 incident, 1 critical … 4 low, 9 none (`core/severity.py`)
    reason: str = ""  # the reason of the flag that sets the priority
    signature: str = Field(default="", index=True)  # its failure (`miner.store.signature`): one group each
    wrote: bool = False  # a write succeeded (a `write_made` flag): first within its severity (migration 13)


_QUEUED = ConversationRow.__table__.c  # type: ignore[attr-defined]
# the review queue's order, for every reader of it (the list, the TUI's keyset pages, claim next, a group's
# members and representative): incidents and severity, a changed record first, the newest, then the id
QUEUE_ORDER = (_QUEUED.priority, _QUEUED.wrote.desc(), _QUEUED.last_at.desc(), _QUEUED.id)


class TurnRow(SQLModel, table=True):
    __tablename__ = "turns"
    trace_id: str = Field(primary_key=True)
    conversation_id: str = Field(foreign_key="conversations.id", index=True)
    started_at: datetime
    user_text: str = ""
    agent_text: str = ""
    tools: str = "[]"  # JSON list of {name, arguments, result, error}, in call order
    escalated: bool = False
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    error_types: str = "[]"
    failed_spans: str = "[]"
    feedback: float | None = None
    sender: str | None = None
    instructions: str = ""  # the agent's instructions its spans recorded (migration 15)


class SpanRow(SQLModel, table=True):
    __tablename__ = "spans"
    trace_id: str = Field(primary_key=True)
    span_id: str = Field(primary_key=True)
    parent_span_id: str | None = None
    conversation_id: str = Field(index=True)
    name: str
    kind: str = "INTERNAL"
    start_ns: int = Field(sa_type=BigInteger)
    end_ns: int = Field(sa_type=BigInteger)
    status: str = "UNSET"
    status_message: str = ""
    attributes: str = "{}"
    resource: str = "{}"
    scope: str = ""


class FlagRow(SQLModel, table=True):
    __tablename__ = "flags"
    id: int | None = Field(default=None, primary_key=True)
    conversation_id: str = Field(foreign_key="conversations.id", index=True)
    trace_id: str = ""
    turn: int = 0
    kind: str = Field(index=True)
    severity: str  # a `Severity`
    reason: str
    source: str = "rule"  # rule, or human (incident)
    created_at: datetime
    cause: str = ""  # `miner.core.causes` (migration 6 added it, hence last)
    reason_code: str = ""  # the reason as a code and its values, JSON (migration 12); '' for a person's note


class ReviewRow(SQLModel, table=True):
    __tablename__ = "reviews"
    conversation_id: str = Field(primary_key=True, foreign_key="conversations.id")
    status: str = Field(default="open", index=True)  # open, claimed, dismissed, done
    reviewer: str | None = None
    claimed_at: datetime | None = None
    expires_at: datetime | None = None
    note: str = ""
    updated_at: datetime | None = None


class CaseLink(SQLModel, table=True):
    __tablename__ = "case_links"
    id: int | None = Field(default=None, primary_key=True)
    case_id: str = Field(index=True)
    conversation_id: str = Field(index=True)
    provenance: str = "{}"
    created_at: datetime


class CaseVerdict(SQLModel, table=True):
    """A reviewer's word on a failing case, from the failures screen: "the case is wrong" or "agent
    regression", with a note (migration 7)."""

    __tablename__ = "case_verdicts"
    id: int | None = Field(default=None, primary_key=True)
    case_id: str = Field(index=True)
    verdict: str
    note: str
    reviewer: str
    created_at: datetime


class FailureGroupRow(SQLModel, table=True):
    """A failure group, kept up to date on ingest (`miner.store.groups`): its size, its most urgent member's
    priority and the member that shows it, first and last seen (migration 10)."""

    __tablename__ = "failure_groups"
    signature: str = Field(primary_key=True)
    size: int = 0
    priority: int = Field(default=9, index=True)
    first_seen: datetime
    last_seen: datetime
    representative: str = ""
    reason: str = ""


class FailureGroupDayRow(SQLModel, table=True):
    """A failure group's conversations by the day they started: windows and trends without a scan."""

    __tablename__ = "failure_group_days"
    signature: str = Field(primary_key=True)
    day: str = Field(primary_key=True, index=True)  # YYYY-MM-DD, UTC
    size: int = 0


class PendingTraceRow(SQLModel, table=True):
    """A trace whose spans are stored and redacted but not read yet (migration 14)."""

    __tablename__ = "pending_traces"
    trace_id: str = Field(primary_key=True)
    received_ns: int = Field(sa_type=BigInteger, index=True)  # its first span waiting: the lag's measure
    last_ns: int = Field(sa_type=BigInteger)  # its last span: a worker clears only what it read
