"""Spans → turns → conversations, by the OpenTelemetry GenAI conventions. The one reader of span semantics.

A turn is a trace. Its conversation is `gen_ai.conversation.id` (else the trace itself). Tools come from
`execute_tool` spans, or, for agents that have none, from `tool_call` parts of the model's output
messages, their arguments and results out of framework envelopes (`tracing.tool_calls`). The user's text is the agent span's input, or the newest user message in the input of the
turn's first model call (earlier ones are history); the answer is the agent span's output, or the last
model text of the turn.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any, NamedTuple

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes import error_attributes

from filon.miner.core.model import ToolCall, Turn
from filon.miner.rules.config import CONVERSATION_KEYS as DEFAULT_KEYS
from filon.miner.rules.config import is_escalation
from filon.tracing.conventions import JUST_GENAI, read, readable
from filon.tracing.history import earlier_turns
from filon.tracing.instructions import instructions_of
from filon.tracing.records import SpanRecord
from filon.tracing.tool_calls import messages, tool_calls

MODEL_OPS = frozenset(
    ("generate_content", "chat", "text_completion", "chat.completions", "completion", "generate")
)
_start = attrgetter("start_ns")


# attribute names from the semantic conventions package where it has them (GenAI: incubating)
CONVERSATION = gen_ai.GEN_AI_CONVERSATION_ID
OPERATION = gen_ai.GEN_AI_OPERATION_NAME
INPUT = gen_ai.GEN_AI_INPUT_MESSAGES
OUTPUT = gen_ai.GEN_AI_OUTPUT_MESSAGES
TOOL_NAME = gen_ai.GEN_AI_TOOL_NAME
TOOL_ARGUMENTS = gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS
TOOL_RESULT = gen_ai.GEN_AI_TOOL_CALL_RESULT
INPUT_TOKENS = gen_ai.GEN_AI_USAGE_INPUT_TOKENS
OUTPUT_TOKENS = gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS
RESPONSE_MODEL = gen_ai.GEN_AI_RESPONSE_MODEL
ERROR_TYPE = error_attributes.ERROR_TYPE
CONVERSATION_KEYS = tuple(DEFAULT_KEYS)  # `conversation_keys` in the configuration changes them
# a quota error, wherever a stack puts it: `error.type`, the status message, an exception event, HTTP status
RATE_LIMITED = re.compile(
    r"\b429\b|RESOURCE_EXHAUSTED|Resource has been exhausted|Too Many Requests|rate.?limit", re.IGNORECASE
)
HTTP_STATUS = ("http.response.status_code", "http.status_code")
# where stacks put the authenticated customer: the identity they gave, not a stranger's (docs/traces.md, "Other agents")
USER_KEYS = (
    "user.id",
    "enduser.id",
    "traceloop.association.properties.user_id",
    "ai.telemetry.metadata.userId",
)
# a plain attribute, read on the turn's own span only (its agent span, else its root): the app's span
# (`logfire.span("turn", user_id=…)`), never a helper's (`@logfire.instrument` records a function's
# arguments: `load_customer(user_id)` names whose record it loads, not who is asking)
PLAIN_USER = "user_id"
_USER_KEYS = frozenset(USER_KEYS)
CHANNEL = "support.channel"  # filon's own: the reference agent's channel (web, whatsapp)
FEEDBACK = ("feedback.score", "support.feedback")  # no convention yet: the names agents use


class TurnOf(NamedTuple):
    conversation_id: str
    channel: str
    turn: Turn
    model_versions: set[str]
    stacks: frozenset[str] = frozenset()  # the conventions of its spans; none: a trace not about the model
    earlier: tuple[Turn, ...] = ()  # with no conversation id, the turns its model call replays (`history`)


class _Spans(NamedTuple):
    """A trace's spans sorted by start and sorted by role, in one pass, with the conversation ids seen."""

    ordered: list[SpanRecord]
    agent: SpanRecord | None
    models: list[SpanRecord]
    tools: list[SpanRecord]
    failed: list[SpanRecord]
    candidates: list[tuple[int, bool, int, str]]  # (which key, not an agent span, start, conversation id)
    users: list[SpanRecord]  # the spans that carry a user id (`USER_KEYS`)
    runs: tuple[SpanRecord, ...] = ()  # the agent span's later siblings: a turn of several runs in a row

    @property
    def last(self) -> SpanRecord | None:
        return self.runs[-1] if self.runs else None


def op(span: SpanRecord) -> str:
    attrs = span.attributes
    named = attrs.get(OPERATION)
    if named:
        return str(named)
    kind = span.name.split(" ", 1)[0]
    if kind in MODEL_OPS or kind in ("execute_tool", "invoke_agent"):
        return kind
    if TOOL_NAME in attrs:
        return "execute_tool"  # a tool run that names no operation (Koog's `tool.NAME`)
    if INPUT in attrs or OUTPUT in attrs:
        return "chat"  # a model call that names no operation (OpenLIT's, Semantic Kernel's)
    return kind


def last_text(value: Any, role: str | None = None) -> str:
    """The last text part of the messages in `value` (of the given role, when one is given), or ""."""
    for message in reversed(messages(value)):
        if type(message) is not dict or (role is not None and message.get("role") != role):
            continue
        parts = message.get("parts")
        if not parts or type(parts) is not list:
            continue
        for part in reversed(parts):
            if type(part) is dict and part.get("type") == "text":
                return str(part.get("content", ""))
    return ""


def _int(value: Any) -> int:
    if type(value) is int:
        return value
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def by_trace(records: Iterable[SpanRecord]) -> dict[str, list[SpanRecord]]:
    out: dict[str, list[SpanRecord]] = defaultdict(list)
    for r in records:
        out[r.trace_id].append(r)
    return out


def root_of(spans: Sequence[SpanRecord]) -> SpanRecord:
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if not s.parent_span_id or s.parent_span_id not in ids]
    return min(roots or spans, key=lambda s: s.start_ns)


# what Logfire writes in place of a value whose name looks secret ("session", "auth"…): every conversation
# would have this one id; the trace is the conversation instead, and `traces doctor` says why
SCRUBBED = "[Scrubbed due to "
MAX_ID = 256  # a conversation id is a key: longer ones keep their start and a digest of the whole


def bounded(conversation_id: str) -> str:
    """The id as stored: as given up to `MAX_ID` characters; beyond, its first 200 and a digest of the
    whole (the same id always gives the same key; an 8 KB id would not fit an index)."""
    if len(conversation_id) <= MAX_ID:
        return conversation_id
    import hashlib

    digest = hashlib.sha256(conversation_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{conversation_id[:200]}…{digest}"


def _pick(candidates: list[tuple[int, bool, int, str]], trace_id: str) -> str:
    """The one ranking of conversation ids: by key (`CONVERSATION_KEYS`), an agent span's first, then the
    earliest; else the trace."""
    return bounded(min(candidates)[3]) if candidates else f"trace:{trace_id}"


# what an exporter writes for an id it did not have: never a conversation (every customer's run would be
# one); the trace is the conversation instead, and `traces doctor` names the attribute
PLACEHOLDERS = frozenset({"", "null", "none", "nil", "undefined", "nan", "n/a"})


def placeholder(value: object) -> bool:
    """Whether a conversation id is a placeholder an exporter wrote for a missing one."""
    said = str(value).strip().lower()
    return said in PLACEHOLDERS or (said.strip("\"'") in PLACEHOLDERS and said.strip("\"'") != "")


def _conversation_key(
    span: SpanRecord, kind: str, keys: Sequence[str] = CONVERSATION_KEYS
) -> tuple[int, bool, int, str] | None:
    attrs = span.attributes
    for rank, key in enumerate(keys):
        value = attrs.get(key)
        if value and not str(value).startswith(SCRUBBED) and not placeholder(value):
            return (rank, kind != "invoke_agent", span.start_ns, str(value))
    return None


def conversation_of(spans: Sequence[SpanRecord], keys: Sequence[str] = CONVERSATION_KEYS) -> str:
    """The agent span's conversation id (the earliest agent span that has one), else the earliest span's
    that has one, else the trace's own id."""
    spans = readable(spans)
    candidates = [key for s in spans if (key := _conversation_key(s, op(s), keys)) is not None]
    return _pick(candidates, min(spans, key=_start).trace_id)


def _sort(spans: Sequence[SpanRecord], keys: Sequence[str] = CONVERSATION_KEYS) -> _Spans:
    ordered = sorted(spans, key=_start)
    agent: SpanRecord | None = None
    runs: list[SpanRecord] = []
    models: list[SpanRecord] = []
    tools: list[SpanRecord] = []
    failed: list[SpanRecord] = []
    candidates: list[tuple[int, bool, int, str]] = []
    users: list[SpanRecord] = []
    for s in ordered:
        kind = op(s)
        if kind == "invoke_agent":
            if agent is None:
                agent = s
            elif s.parent_span_id == agent.parent_span_id:
                runs.append(s)
        elif kind == "execute_tool":
            tools.append(s)
        elif kind in MODEL_OPS:
            models.append(s)
        if s.status == "ERROR":
            failed.append(s)
        key = _conversation_key(s, kind, keys)
        if key is not None:
            candidates.append(key)
        if not _USER_KEYS.isdisjoint(s.attributes):
            users.append(s)
    return _Spans(ordered, agent, models, tools, failed, candidates, users, tuple(runs))


def _channel(head: SpanRecord, conversation_id: str) -> str:
    channel = str(head.attributes.get(CHANNEL) or "")
    if channel:
        return channel
    prefix = conversation_id.split(":", 1)[0]
    return prefix if prefix in ("whatsapp", "web") else "unknown"


def _said(spans: _Spans) -> tuple[str, str]:
    """The user's text and the answer: the agent span's, else the model calls' (the newest user message
    of the first call that has one: earlier ones are history; the last text of the last call that has
    one)."""
    agent, models = spans.agent, spans.models
    user = last_text(agent.attributes.get(INPUT), "user") if agent else ""
    for model in models if not user else ():  # the first call that has the message (LlamaIndex's first
        user = last_text(model.attributes.get(INPUT), "user")  # "LLM" span only prepares the tools)
        if user:
            break
    answer = last_text(spans.last.attributes.get(OUTPUT)) if spans.last else ""  # the last run's, where
    if not answer:  # the turn was several runs one after the other (the AI SDK's generateText calls)
        answer = last_text(agent.attributes.get(OUTPUT)) if agent else ""
    if not answer:
        for source in reversed(models):
            answer = last_text(source.attributes.get(OUTPUT))
            if answer:
                break
    return user, answer


def _usage(spans: _Spans) -> tuple[int, int, set[str]]:
    """Tokens in and out over the model calls (else the agent span's), and the model versions."""
    input_tokens = output_tokens = 0
    versions: set[str] = set()
    models = spans.models
    if len(models) > 1:  # a model call nested in another (ADK 1.x: call_llm > generate_content) counts once
        ids = {s.span_id for s in models}
        models = [s for s in models if s.parent_span_id not in ids]
    for s in models:
        attrs = s.attributes
        tokens = attrs.get(INPUT_TOKENS)
        input_tokens += tokens if type(tokens) is int else _int(tokens)
        tokens = attrs.get(OUTPUT_TOKENS)
        output_tokens += tokens if type(tokens) is int else _int(tokens)
        version = attrs.get(RESPONSE_MODEL)
        if version:
            versions.add(str(version))
    if not input_tokens and spans.agent:
        input_tokens = _int(spans.agent.attributes.get(INPUT_TOKENS))
        output_tokens = _int(spans.agent.attributes.get(OUTPUT_TOKENS))
    return input_tokens, output_tokens, versions


def _feedback(head: SpanRecord) -> float | None:
    value = head.attributes.get(FEEDBACK[0], head.attributes.get(FEEDBACK[1]))
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def error_type(span: SpanRecord) -> str:
    """What a failed span's error was: "429" for a quota error however the stack reports it (the flag
    rules read that), else `error.type`, the status message or the exception's type."""
    attrs = span.attributes
    if any(str(attrs.get(key)) == "429" for key in HTTP_STATUS):
        return "429"
    said = (
        attrs.get(ERROR_TYPE),
        span.status_message,
        attrs.get("exception.type"),
        attrs.get("exception.message"),
    )
    if any(text and RATE_LIMITED.search(str(text)) for text in said):
        return "429"
    return str(next((text for text in said[:3] if text), "error"))


def _user_id(spans: _Spans, head: SpanRecord) -> str | None:
    """The customer's id as the stack gives it, the agent span's (or the head's) first; else a plain
    `user_id` on the head itself."""
    if not spans.users:
        plain = head.attributes.get(PLAIN_USER)
        return str(plain) if plain else None
    for span in (head, *spans.users):
        attrs = span.attributes
        for key in USER_KEYS:
            value = attrs.get(key)
            if value:
                return str(value)
    return None


def _escalated(tools: list[ToolCall], escalation_tools: Sequence[str]) -> bool:
    return any(is_escalation(t.name, escalation_tools) for t in tools)


def turn_of(
    spans: Sequence[SpanRecord],
    escalation_tools: Sequence[str],
    conversation_id: str | None = None,
    conversation_keys: Sequence[str] = CONVERSATION_KEYS,
) -> TurnOf:
    """A trace read as one turn, step by step (it runs on every trace the sampler decides).
    `conversation_id`, when the caller already has it, is `conversation_of(spans)`."""
    spans, stacks = read(spans)
    sorted_spans = _sort(spans, conversation_keys)
    if stacks is None:  # GenAI spans, or none about the model (an HTTP health check)
        about = sorted_spans.agent or sorted_spans.models or sorted_spans.tools or sorted_spans.candidates
        stacks = JUST_GENAI if about else frozenset()
    head = sorted_spans.agent or root_of(sorted_spans.ordered)
    conversation_id = conversation_id or _pick(sorted_spans.candidates, sorted_spans.ordered[0].trace_id)
    channel = _channel(head, conversation_id)
    user, answer = _said(sorted_spans)
    tools = tool_calls(
        sorted_spans.tools,
        sorted_spans.models,
        alone=sorted_spans.agent is None,
        run=sorted_spans.agent,
        later_runs=sorted_spans.runs,
    )
    input_tokens, output_tokens, versions = _usage(sorted_spans)
    failed = sorted_spans.failed
    turn = Turn(
        trace_id=head.trace_id,
        started_at=datetime.fromtimestamp(head.start_ns / 1e9, UTC),
        user=user,
        agent=answer,
        tools=tools,
        escalated=_escalated(tools, escalation_tools),
        latency_ms=head.duration_ms,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        error_types=[error_type(s) for s in failed],
        failed_spans=[s.name for s in failed],
        feedback=_feedback(head),
        sender=conversation_id.split(":", 1)[1]
        if channel == "whatsapp" and ":" in conversation_id
        else _user_id(sorted_spans, head),
        instructions=instructions_of(spans),
    )
    earlier: tuple[Turn, ...] = ()
    if conversation_id.startswith("trace:"):  # no conversation id: this trace is the whole conversation
        replaying = sorted_spans.models or ([sorted_spans.agent] if sorted_spans.agent else [])
        earlier = tuple(earlier_turns(replaying, head.trace_id, turn.started_at, turn.sender))
    return TurnOf(conversation_id, channel, turn, versions, stacks, earlier)
