"""Why a conversation is in the queue, and how urgently: every flag's cause, its kind and its severity, in
one table.

A reviewer's time goes where the flags send it. A refused injection attempt and a customer reading
another's order are both `security`, but only the second is an incident in the making: the kind says what
area a flag is about, the cause says what happened, and the severity (from the cause, never from the
kind) orders the queue. An incident, raised by a person, is above every severity.
"""

from __future__ import annotations

from dataclasses import dataclass
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


class Cause(StrEnum):
    REPORTED = "reported"
    LEAK = "leak"
    INJECTION_OBEYED = "injection_obeyed"
    EXPOSURE = "exposure"
    UNVERIFIED = "unverified_record"
    INJECTION_REFUSED = "injection_refused"
    UNBACKED_PROMISE = "unbacked_promise"
    TRANSFERRED = "transferred"
    SPAN_ERROR = "span_error"
    EMPTY_ANSWER = "empty_answer"
    QUOTA = "quota"
    TOOL_FAILED = "tool_failed"
    REPEATED_CALL = "repeated_call"
    SLOW_TURN = "slow_turn"
    NEGATIVE_FEEDBACK = "negative_feedback"
    CUSTOMER_CORRECTED = "customer_corrected"
    CLAIMED_ACTION = "claimed_action"
    UNGROUNDED_FACT = "ungrounded_fact"
    TRANSFER_ASKED = "transfer_asked"
    UNCONFIRMED_WRITE = "unconfirmed_write"
    UNGROUNDED_WRITE = "ungrounded_write"
    REPEATED_WRITE = "repeated_write"
    WRITE_MADE = "write_made"
    SEVERAL_WRITES = "several_writes"
    FAILURE_UNSAID = "failure_unsaid"
    IDENTITY_UNVERIFIED = "identity_unverified"
    NO_LOOKUP = "no_lookup"


@dataclass(frozen=True)
class Rule:
    kind: FlagKind
    severity: Severity
    why: str


CAUSES: dict[Cause, Rule] = {
    Cause.REPORTED: Rule(
        FlagKind.INCIDENT, Severity.CRITICAL, "a person said so; above every severity in the queue"
    ),
    Cause.LEAK: Rule(
        FlagKind.SECURITY,
        Severity.CRITICAL,
        "another customer's data reached the customer: the seeds' incident",
    ),
    Cause.INJECTION_OBEYED: Rule(
        FlagKind.SECURITY, Severity.CRITICAL, "the agent did what an injected instruction asked"
    ),
    Cause.EXPOSURE: Rule(
        FlagKind.SECURITY,
        Severity.MEDIUM,
        "another customer's record reached the model, not the answer: one prompt change from a leak",
    ),
    Cause.UNVERIFIED: Rule(
        FlagKind.SECURITY,
        Severity.LOW,
        "a customer record shown to a user whose identity the spans do not carry: whose it is cannot be "
        "told (most agents set no user id), so never an alarm; `user.id` on the spans makes it a leak or nothing",
    ),
    Cause.INJECTION_REFUSED: Rule(
        FlagKind.SECURITY, Severity.LOW, "an attempt the agent refused: worth a case, not an alarm"
    ),
    Cause.UNBACKED_PROMISE: Rule(
        FlagKind.PROMISE, Severity.HIGH, "a commitment (refund, voucher) nobody will honour without a human"
    ),
    Cause.TRANSFERRED: Rule(
        FlagKind.ESCALATION,
        Severity.MEDIUM,
        "a customer handed to a person they did not ask for: the costliest outcome, to check, though most "
        "agents' policies send there what they may not do",
    ),
    Cause.TRANSFER_ASKED: Rule(
        FlagKind.ESCALATION,
        Severity.LOW,
        "a customer handed to the person they asked for: what every policy allows",
    ),
    Cause.SPAN_ERROR: Rule(FlagKind.ERROR, Severity.MEDIUM, "a step failed; the customer may have no answer"),
    Cause.EMPTY_ANSWER: Rule(FlagKind.ERROR, Severity.MEDIUM, "the customer got nothing back"),
    Cause.QUOTA: Rule(
        FlagKind.RATE_LIMIT, Severity.MEDIUM, "a 429: an infrastructure failure the customer saw"
    ),
    Cause.TOOL_FAILED: Rule(
        FlagKind.TOOL_ERROR, Severity.MEDIUM, "a tool failed; the answer may rest on nothing"
    ),
    Cause.REPEATED_CALL: Rule(
        FlagKind.LOOP,
        Severity.MEDIUM,
        "the same call over and over burns quota and time; the answer is usually still right",
    ),
    Cause.SLOW_TURN: Rule(
        FlagKind.LATENCY, Severity.LOW, "slow is annoying but rarely changes what the customer was told"
    ),
    Cause.NEGATIVE_FEEDBACK: Rule(
        FlagKind.FEEDBACK,
        Severity.MEDIUM,
        "the customer said it went badly: often the policy, not the agent, so not above a failure",
    ),
    Cause.CUSTOMER_CORRECTED: Rule(
        FlagKind.FEEDBACK,
        Severity.MEDIUM,
        "the customer corrected the agent (« actually », « that's not what I asked », « en fait »): it "
        "misunderstood, or acted on the wrong record (on tau-bench's airline, 15 of the 17 trials so were wrong)",
    ),
    Cause.CLAIMED_ACTION: Rule(
        FlagKind.GROUNDING,
        Severity.HIGH,
        "the answer says the agent did something no call of the conversation did: the customer waits for nothing",
    ),
    Cause.UNGROUNDED_FACT: Rule(
        FlagKind.GROUNDING,
        Severity.HIGH,
        "a figure, date, status, carrier or place the agent saw nowhere: a made-up fact the customer acts on",
    ),
    Cause.UNCONFIRMED_WRITE: Rule(
        FlagKind.WRITE,
        Severity.HIGH,
        "the customer's records changed before they said yes, where the agent's policy asks them to",
    ),
    Cause.UNGROUNDED_WRITE: Rule(
        FlagKind.WRITE,
        Severity.HIGH,
        "a write with an id, amount, date or name the agent read nowhere: it wrote what it made up",
    ),
    Cause.WRITE_MADE: Rule(
        FlagKind.WRITE,
        Severity.LOW,
        "the customer's records changed (a booking, a cancellation, a return): where a wrong answer costs "
        "the most, worth a look before a conversation that changed nothing",
    ),
    Cause.IDENTITY_UNVERIFIED: Rule(
        FlagKind.SECURITY,
        Severity.CRITICAL,
        "a record's details told before a lookup tied it to the customer: the step before the seeds' leak",
    ),
    Cause.FAILURE_UNSAID: Rule(
        FlagKind.TOOL_ERROR,
        Severity.MEDIUM,
        "a call failed and the answer says nothing of it: an error ignored, or a refused write made again "
        "with other arguments the customer was not told of",
    ),
    Cause.SEVERAL_WRITES: Rule(
        FlagKind.WRITE,
        Severity.MEDIUM,
        "the customer's records changed more than once: each change is one more chance of a wrong one (on "
        "tau-bench's airline, 15 of the 17 trials that wrote twice or more were wrong)",
    ),
    Cause.NO_LOOKUP: Rule(
        FlagKind.GROUNDING,
        Severity.MEDIUM,
        "several turns answered without a single call: the agent answered from memory or sent the "
        "customer away without looking anything up",
    ),
    Cause.REPEATED_WRITE: Rule(
        FlagKind.WRITE,
        Severity.MEDIUM,
        "the same record changed twice: the first change was wrong, or this one duplicates it",
    ),
}


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
