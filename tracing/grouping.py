"""Spans → turns → conversations, by the OpenTelemetry GenAI conventions. The one reader of span semantics.

A turn is a trace. Its conversation is `gen_ai.conversation.id` (else the trace itself). Tools come from
`execute_tool` spans, or, for agents that have none, from `tool_call` parts of the model's output
messages. The user's text is the agent span's input, or the newest user message in the input of the
turn's first model call (earlier ones are history); the answer is the agent span's output, or the last
model text of the turn.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from miner.model import ToolCall, Turn
from tracing.records import SpanRecord

MODEL_OPS = ("generate_content", "chat", "text_completion")


@dataclass
class TurnOf:
    conversation_id: str
    channel: str
    turn: Turn
    model_versions: set[str]


def op(span: SpanRecord) -> str:
    return str(span.attributes.get("gen_ai.operation.name") or span.name.split(" ", 1)[0])


def _json(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _messages(value: Any) -> list[dict[str, Any]]:
    parsed = _json(value)
    return [m for m in parsed if isinstance(m, dict)] if isinstance(parsed, list) else []


def _texts(message: dict[str, Any]) -> list[str]:
    return [
        str(p.get("content", ""))
        for p in message.get("parts") or []
        if isinstance(p, dict) and p.get("type") == "text"
    ]


def _int(value: Any) -> int:
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
    for s in sorted(spans, key=lambda s: (op(s) != "invoke_agent", s.start_ns)):
        value = s.attributes.get("gen_ai.conversation.id")
        if value:
            return str(value)
    return f"trace:{spans[0].trace_id}"


def turn_of(spans: Sequence[SpanRecord], escalation_tools: Sequence[str]) -> TurnOf:
    ordered = sorted(spans, key=lambda s: s.start_ns)
    agent = next((s for s in ordered if op(s) == "invoke_agent"), None)
    head = agent or root_of(ordered)
    models = [s for s in ordered if op(s) in MODEL_OPS]
    tool_spans = [s for s in ordered if op(s) == "execute_tool"]
    conversation_id = conversation_of(ordered)
    channel = str(head.attributes.get("support.channel") or "")
    if not channel:
        prefix = conversation_id.split(":", 1)[0]
        channel = prefix if prefix in ("whatsapp", "web") else "unknown"

    user = ""
    for source in ([agent] if agent else []) + models[:1]:
        users = [
            m for m in _messages(source.attributes.get("gen_ai.input.messages")) if m.get("role") == "user"
        ]
        texts = [t for m in users for t in _texts(m)]
        if texts:
            user = texts[-1]
            break
    answer = ""
    for source in ([agent] if agent else []) or list(reversed(models)):
        texts = [t for m in _messages(source.attributes.get("gen_ai.output.messages")) for t in _texts(m)]
        if texts:
            answer = texts[-1]
            break
    if not answer and agent:
        for source in reversed(models):
            texts = [t for m in _messages(source.attributes.get("gen_ai.output.messages")) for t in _texts(m)]
            if texts:
                answer = texts[-1]
                break

    tools: list[ToolCall] = []
    for s in tool_spans:
        args = _json(s.attributes.get("gen_ai.tool.call.arguments"))
        error = None
        if s.status == "ERROR":
            error = str(s.attributes.get("error.type") or s.status_message or "error")
        tools.append(
            ToolCall(
                name=str(s.attributes.get("gen_ai.tool.name") or s.name.removeprefix("execute_tool ")),
                arguments=args if isinstance(args, dict) else {},
                result=_json(s.attributes.get("gen_ai.tool.call.result")),
                error=error,
            )
        )
    if not tool_spans:
        for s in models:
            for message in _messages(s.attributes.get("gen_ai.output.messages")):
                for part in message.get("parts") or []:
                    if isinstance(part, dict) and part.get("type") == "tool_call" and part.get("name"):
                        args = _json(part.get("arguments"))
                        tools.append(ToolCall(str(part["name"]), args if isinstance(args, dict) else {}))

    input_tokens = sum(_int(s.attributes.get("gen_ai.usage.input_tokens")) for s in models)
    output_tokens = sum(_int(s.attributes.get("gen_ai.usage.output_tokens")) for s in models)
    if not input_tokens and agent:
        input_tokens = _int(agent.attributes.get("gen_ai.usage.input_tokens"))
        output_tokens = _int(agent.attributes.get("gen_ai.usage.output_tokens"))
    failed = [s for s in ordered if s.status == "ERROR"]
    feedback = head.attributes.get("feedback.score", head.attributes.get("support.feedback"))
    turn = Turn(
        trace_id=head.trace_id,
        started_at=datetime.fromtimestamp(head.start_ns / 1e9, UTC),
        user=user,
        agent=answer,
        tools=tools,
        escalated=any(t.name in escalation_tools for t in tools),
        latency_ms=head.duration_ms,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        error_types=[str(s.attributes.get("error.type") or s.status_message or "error") for s in failed],
        failed_spans=[s.name for s in failed],
        feedback=float(feedback) if isinstance(feedback, int | float) else None,
        sender=conversation_id.split(":", 1)[1] if channel == "whatsapp" and ":" in conversation_id else None,
    )
    versions = {
        str(s.attributes["gen_ai.response.model"])
        for s in models
        if s.attributes.get("gen_ai.response.model")
    }
    return TurnOf(conversation_id, channel, turn, versions)
