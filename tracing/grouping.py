"""Spans → turns → conversations, by the OpenTelemetry GenAI conventions. The one reader of span semantics.

A turn is a trace. Its conversation is `gen_ai.conversation.id` (else the trace itself). Tools come from
`execute_tool` spans, or, for agents that have none, from `tool_call` parts of the model's output
messages. The user's text is the agent span's input, or the newest user message in the input of the
turn's first model call (earlier ones are history); the answer is the agent span's output, or the last
model text of the turn.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any, NamedTuple

from miner.jsontext import loads
from miner.model import ToolCall, Turn
from tracing.records import SpanRecord

MODEL_OPS = frozenset(("generate_content", "chat", "text_completion"))
_start = attrgetter("start_ns")


class TurnOf(NamedTuple):
    conversation_id: str
    channel: str
    turn: Turn
    model_versions: set[str]


CONVERSATION = "gen_ai.conversation.id"


def op(span: SpanRecord) -> str:
    return str(span.attributes.get("gen_ai.operation.name") or span.name.split(" ", 1)[0])


def _json(value: Any) -> Any:
    if type(value) is not str:
        return value
    try:
        return loads(value)
    except ValueError:
        return value


def _messages(value: Any) -> list[Any]:
    """The messages in an attribute (JSON text or already parsed); entries that are not objects are left
    for the readers to skip."""
    if type(value) is str:
        try:
            value = loads(value)
        except ValueError:
            return []
    return value if type(value) is list else []


def _last_text(value: Any, role: str | None = None) -> str:
    """The last text part of the messages in `value` (of the given role, when one is given), or ""."""
    for message in reversed(_messages(value)):
        if type(message) is not dict or (role is not None and message.get("role") != role):
            continue
        parts = message.get("parts")
        if not parts:
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


def conversation_of(spans: Sequence[SpanRecord]) -> str:
    """The agent span's conversation id (the earliest agent span that has one), else the earliest span's
    that has one, else the trace's own id."""
    best: tuple[bool, int] | None = None
    found = ""
    for s in spans:
        value = s.attributes.get(CONVERSATION)
        if value:
            key = (op(s) != "invoke_agent", s.start_ns)
            if best is None or key < best:
                best, found = key, str(value)
    return found or f"trace:{spans[0].trace_id}"


def turn_of(
    spans: Sequence[SpanRecord], escalation_tools: Sequence[str], conversation_id: str | None = None
) -> TurnOf:
    """One pass over the trace's spans (it runs on every trace the sampler decides).
    `conversation_id`, when the caller already has it, is `conversation_of(spans)`."""
    ordered = sorted(spans, key=_start)
    agent: SpanRecord | None = None
    models: list[SpanRecord] = []
    tool_spans: list[SpanRecord] = []
    failed: list[SpanRecord] = []
    best: tuple[bool, int] | None = None  # conversation_of, in the same pass
    found = ""
    for s in ordered:
        attrs = s.attributes
        kind = op(s)
        if kind == "invoke_agent":
            if agent is None:
                agent = s
        elif kind == "execute_tool":
            tool_spans.append(s)
        elif kind in MODEL_OPS:
            models.append(s)
        if s.status == "ERROR":
            failed.append(s)
        if conversation_id is None:
            value = attrs.get(CONVERSATION)
            if value:
                key = (kind != "invoke_agent", s.start_ns)
                if best is None or key < best:
                    best, found = key, str(value)
    head = agent or root_of(ordered)
    if conversation_id is None:
        conversation_id = found or f"trace:{ordered[0].trace_id}"
    channel = str(head.attributes.get("support.channel") or "")
    if not channel:
        prefix = conversation_id.split(":", 1)[0]
        channel = prefix if prefix in ("whatsapp", "web") else "unknown"

    user = _last_text(agent.attributes.get("gen_ai.input.messages"), "user") if agent else ""
    if not user and models:
        user = _last_text(models[0].attributes.get("gen_ai.input.messages"), "user")
    answer = _last_text(agent.attributes.get("gen_ai.output.messages")) if agent else ""
    if not answer:
        for source in reversed(models):
            answer = _last_text(source.attributes.get("gen_ai.output.messages"))
            if answer:
                break

    tools: list[ToolCall] = []
    for s in tool_spans:
        attrs = s.attributes
        args = _json(attrs.get("gen_ai.tool.call.arguments"))
        error = None
        if s.status == "ERROR":
            error = str(attrs.get("error.type") or s.status_message or "error")
        tools.append(
            ToolCall(
                name=str(attrs.get("gen_ai.tool.name") or s.name.removeprefix("execute_tool ")),
                arguments=args if isinstance(args, dict) else {},
                result=_json(attrs.get("gen_ai.tool.call.result")),
                error=error,
            )
        )
    if not tool_spans:
        for s in models:
            for message in _messages(s.attributes.get("gen_ai.output.messages")):
                if type(message) is not dict:
                    continue
                for part in message.get("parts") or []:
                    if isinstance(part, dict) and part.get("type") == "tool_call" and part.get("name"):
                        args = _json(part.get("arguments"))
                        tools.append(ToolCall(str(part["name"]), args if isinstance(args, dict) else {}))

    input_tokens = output_tokens = 0
    versions: set[str] = set()
    for s in models:
        attrs = s.attributes
        tokens = attrs.get("gen_ai.usage.input_tokens")
        input_tokens += tokens if type(tokens) is int else _int(tokens)
        tokens = attrs.get("gen_ai.usage.output_tokens")
        output_tokens += tokens if type(tokens) is int else _int(tokens)
        version = attrs.get("gen_ai.response.model")
        if version:
            versions.add(str(version))
    if not input_tokens and agent:
        input_tokens = _int(agent.attributes.get("gen_ai.usage.input_tokens"))
        output_tokens = _int(agent.attributes.get("gen_ai.usage.output_tokens"))
    feedback = head.attributes.get("feedback.score", head.attributes.get("support.feedback"))
    escalated = False
    for t in tools:
        if t.name in escalation_tools:
            escalated = True
            break
    turn = Turn(
        trace_id=head.trace_id,
        started_at=datetime.fromtimestamp(head.start_ns / 1e9, UTC),
        user=user,
        agent=answer,
        tools=tools,
        escalated=escalated,
        latency_ms=head.duration_ms,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        error_types=[str(s.attributes.get("error.type") or s.status_message or "error") for s in failed]
        if failed
        else [],
        failed_spans=[s.name for s in failed] if failed else [],
        feedback=None
        if feedback is None
        else float(feedback)
        if isinstance(feedback, (int, float))
        else None,
        sender=conversation_id.split(":", 1)[1] if channel == "whatsapp" and ":" in conversation_id else None,
    )
    return TurnOf(conversation_id, channel, turn, versions)
