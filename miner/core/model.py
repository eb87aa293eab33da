"""What flags and drafts read: a conversation as turns, tools and answers. Plain data, no database."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from filon.miner.core.causes import FIELDS, cause_of
from filon.miner.core.messages import Said
from filon.miner.core.results import failed_result
from filon.miner.core.severity import priority_of


@dataclass(slots=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    error: str | None = None
    arguments_recorded: bool = True  # False: the span carried no arguments (not the same as none taken)
    call_id: str | None = None  # the model's id for the call, where the stack gives one (not stored)
    earlier: bool = (
        False  # read from the history of a trace's only model calls: maybe another trace's (not stored)
    )

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments, "result": self.result, "error": self.error}

    @classmethod
    def named(
        cls, name: str, args: dict[str, Any] | None = None, result: Any = None, error: str | None = None
    ) -> ToolCall:
        """A call as a reviewer's example or the report gives it: `args` None where none was recorded
        (checked by its name only, never taken as `{}`)."""
        return cls(name, args or {}, result, error, args is not None)

    @property
    def args(self) -> dict[str, Any] | None:
        """The arguments, or None where the span recorded none (not the same as none taken)."""
        return self.arguments if self.arguments_recorded else None

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def succeeded(self) -> bool:
        """Neither its span nor its result says it failed (`miner.core.results`)."""
        return self.error is None and failed_result(self.result) is None


NO_TIME = datetime(1970, 1, 1, tzinfo=UTC)  # a turn no trace timed


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
    instructions: str = ""  # the agent's instructions (system prompt) its spans recorded: what it was told
    # a model call of the turn asked for tools the stack recorded nowhere (a tool-call step joined with no
    # call: OpenLLMetry's instrumentor alone); not stored, `join_steps` tells it again at every reading
    unseen_calls: bool = False

    @classmethod
    def exchange(
        cls, user: str = "", agent: str = "", tools: list[ToolCall] | None = None, escalated: bool = False
    ) -> Turn:
        """A turn known by what was said and done only (a reviewer's example, a report's): no trace, no time."""
        return cls("", NO_TIME, user, agent, list(tools or []), escalated)

    @property
    def captured(self) -> bool:
        """Whether the stack recorded this turn's messages. Without them (content capture off) neither the
        question nor the answer is known: a "content not captured" notice, never the agent's failure."""
        return bool(self.user.strip() or self.agent.strip())


def join_steps(turns: list[Turn]) -> list[Turn]:
    """The turns of a conversation as the customer lived them. Where a stack has no span per user turn
    (one trace per model call: OpenLLMetry's instrumentor alone), a tool-call step comes as a trace of
    its own, with the customer's message and no answer; it is joined to the next trace that answers the
    same newest message: one turn, its tools, tokens and time summed. A failed call is never a step (the
    failure stays on its turn). `turns` in order; returned as they are when nothing joins."""
    if len(turns) < 2 or not any(_is_step(t, n) for t, n in pairwise(turns)):
        return turns
    out: list[Turn] = []
    for turn in turns:
        if out and _is_step(out[-1], turn):
            turn = _joined(out.pop(), turn)
        out.append(turn)
    return out


def _is_step(turn: Turn, after: Turn) -> bool:
    return (
        bool(turn.user.strip())
        and not turn.agent.strip()
        and not turn.failed_spans
        and after.user == turn.user
    )


def _joined(step: Turn, turn: Turn) -> Turn:
    end = max(
        step.started_at.timestamp() * 1000 + step.latency_ms,
        turn.started_at.timestamp() * 1000 + turn.latency_ms,
    )
    return Turn(
        trace_id=step.trace_id,
        started_at=step.started_at,
        user=turn.user,
        agent=turn.agent,
        tools=[*step.tools, *turn.tools],
        escalated=step.escalated or turn.escalated,
        latency_ms=end - step.started_at.timestamp() * 1000,
        input_tokens=step.input_tokens + turn.input_tokens,
        output_tokens=step.output_tokens + turn.output_tokens,
        error_types=[*step.error_types, *turn.error_types],
        failed_spans=[*step.failed_spans, *turn.failed_spans],
        feedback=turn.feedback if turn.feedback is not None else step.feedback,
        sender=step.sender or turn.sender,
        instructions=turn.instructions or step.instructions,
        unseen_calls=step.unseen_calls or turn.unseen_calls or not (step.tools or turn.tools),
    )


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
    reason: str  # in English, as the store keeps it (a person's note: as written)
    trace_id: str = ""
    cause: str = ""  # what happened (`miner.core.causes`), which fixes kind and severity
    # the reason as a code of the catalogue (`miner.core.messages`), said in either language; None for a
    # person's note and a flag stored before codes (then its English is all there is)
    said: Said | None = field(default=None, compare=False)

    @classmethod
    def of(cls, cause: str, turn: int, reason: Said | str, trace_id: str = "") -> Flag:
        """A flag from its cause: kind and severity come from where the cause is registered. Its reason is
        a sentence of the catalogue (a plain string, as a rule of one's own may give, is kept as written)."""
        kind, severity = FIELDS.get(cause) or FIELDS[cause_of(cause).name]  # cause_of: raises, naming it
        if isinstance(reason, str):
            return cls(kind, severity, turn, reason, trace_id, cause)
        return cls(kind, severity, turn, reason.render("en"), trace_id, cause, reason)

    def say(self, lang: str) -> str:
        """The reason in `lang` (fr, en): from its code; as stored where it has none, or one this version
        cannot say (a code since removed, values that no longer fit its template)."""
        if self.said is None:
            return self.reason
        try:
            return self.said.render(lang)
        except (KeyError, IndexError, ValueError):
            return self.reason

    @property
    def priority(self) -> int:
        return priority_of(self.kind, self.severity)
