"""How urgently a conversation is in the queue: severities, flag kinds and review states (each flag's cause,
which fixes its kind and severity, is registered beside its detector: `miner.core.causes`).

A reviewer's time goes where the flags send it. A refused injection attempt and a customer reading
another's order are both `security`, but only the second is an incident in the making: the kind says what
area a flag is about, the cause says what happened, and the severity (from the cause, never from the
kind) orders the queue. An incident, raised by a person, is above every severity.
"""

from __future__ import annotations

from enum import StrEnum


class Severity(StrEnum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def rank(self) -> int:
        """1 for critical … 4 for low: the queue's priority column (0 is an incident, `NO_FLAG` none)."""
        return _RANKS[self]


_RANKS = {Severity.CRITICAL: 1, Severity.HIGH: 2, Severity.MEDIUM: 3, Severity.LOW: 4}
INCIDENT_PRIORITY = 0
NO_FLAG = 9  # the priority of a conversation with no flag: it is not in the queue


class ReviewStatus(StrEnum):
    """Where a flagged conversation stands in review."""

    OPEN = "open"
    CLAIMED = "claimed"
    DISMISSED = "dismissed"
    DONE = "done"


class FlagKind(StrEnum):
    INCIDENT = "incident"
    SECURITY = "security"
    ESCALATION = "escalation"
    ERROR = "error"
    RATE_LIMIT = "rate_limit"
    TOOL_ERROR = "tool_error"
    LOOP = "loop"
    PROMISE = "promise"
    LATENCY = "latency"
    FEEDBACK = "feedback"
    GROUNDING = "grounding"
    WRITE = "write"


def priority_of(kind: str, severity: str) -> int:
    """A flag's place in the queue: incidents first, then by severity."""
    if kind == FlagKind.INCIDENT:
        return INCIDENT_PRIORITY
    return Severity(severity).rank


def severity_of_priority(priority: int) -> Severity | None:
    """The severity a conversation's priority stands for (an incident shows as critical); None unflagged."""
    if priority == INCIDENT_PRIORITY:
        return Severity.CRITICAL
    return next((s for s, r in _RANKS.items() if r == priority), None)


def at_least(level: Severity) -> int:
    """The highest priority value of `level` and above: `priority <= at_least(level)`."""
    return level.rank
