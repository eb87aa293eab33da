"""What flags and drafts read: a conversation as turns, tools and answers. Plain data, no database."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from miner.severity import CAUSES, Cause, priority_of


@dataclass(slots=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "result": self.result, "error": self.error}


@dataclass(slots=True)
class Turn:
    trace_id: str
    started_at: datetime
    user: str = ""
    agent: str = ""
    tools: list[ToolCall] = field(default_factory=list)
    escalated: bool = False
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    error_types: list[str] = field(default_factory=list)  # error.type of spans that ended in error
    failed_spans: list[str] = field(default_factory=list)  # names of spans that ended in error
    feedback: float | None = None  # negative means a negative feedback for this turn
    sender: str | None = None  # the customer's own identity: the WhatsApp number, or the stack's user id

    @property
    def captured(self) -> bool:
        """Whether the stack recorded this turn's messages. Without them (content capture off) neither the
        question nor the answer is known: a "content not captured" notice, never the agent's failure."""
        return bool(self.user.strip() or self.agent.strip())


@dataclass
class Conversation:
    id: str
    channel: str
    turns: list[Turn] = field(default_factory=list)


@dataclass(frozen=True)
class Flag:
    kind: str  # a `FlagKind`
    severity: str  # a `Severity`: critical, high, medium, low
    turn: int  # index of the turn in the conversation, 0-based
    reason: str
    trace_id: str = ""
    cause: str = ""  # a `Cause`: what happened, which fixes kind and severity

    @classmethod
    def of(cls, cause: Cause, turn: int, reason: str, trace_id: str = "") -> Flag:
        """A flag from its cause: kind and severity come from the table in `miner/severity.py`."""
        kind, severity, name = _FIELDS[cause]
        return cls(kind, severity, turn, reason, trace_id, name)

    @property
    def priority(self) -> int:
        return priority_of(self.kind, self.severity)


# plain strings (not enum members) for the store's drivers, looked up once per cause
_FIELDS = {cause: (rule.kind.value, rule.severity.value, cause.value) for cause, rule in CAUSES.items()}
