"""Reading a turn back from its spans, so any traced agent can be gated, not only ours.

Tools come from `execute_tool` spans, or from the `tool_call` parts of the model's output messages when
an agent has none; the answer from the agent span's output messages, or the last model text.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import StatusCode


class TraceCollector(SpanProcessor):
    """Keeps finished spans by trace id until the runner takes them."""

    def __init__(self) -> None:
        self._spans: dict[int, list[ReadableSpan]] = defaultdict(list)
        self._lock = threading.Lock()

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        return

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is None:
            return
        with self._lock:
            self._spans[span.context.trace_id].append(span)

    def take(self, trace_id: int) -> list[ReadableSpan]:
        with self._lock:
            return self._spans.pop(trace_id, [])

    def shutdown(self) -> None:
        return

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


@dataclass
class TurnFacts:
    tools: list[str] = field(default_factory=list)
    answer: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    agent_ms: float | None = None
    error_types: list[str] = field(default_factory=list)
    model_versions: set[str] = field(default_factory=set)


def _messages(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, str):
        return []
    try:
        parsed = json.loads(value)
    except ValueError:
        return []
    return [m for m in parsed if isinstance(m, dict)] if isinstance(parsed, list) else []


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float | str) and str(value).lstrip("-").isdigit() else 0


def _op(span: ReadableSpan) -> str:
    attrs = span.attributes or {}
    return str(attrs.get("gen_ai.operation.name") or span.name.split(" ", 1)[0])


def facts(spans: list[ReadableSpan]) -> TurnFacts:
    out = TurnFacts()
    ordered = sorted(spans, key=lambda s: s.start_time or 0)
    tool_spans = [s for s in ordered if _op(s) == "execute_tool"]
    model_spans = [s for s in ordered if _op(s) in ("generate_content", "chat", "text_completion")]
    agents = [s for s in ordered if _op(s) == "invoke_agent"]
    if tool_spans:
        out.tools = [
            str((s.attributes or {}).get("gen_ai.tool.name", s.name.removeprefix("execute_tool ")))
            for s in tool_spans
        ]
    else:
        for s in model_spans:
            for message in _messages((s.attributes or {}).get("gen_ai.output.messages")):
                for part in message.get("parts") or []:
                    if part.get("type") == "tool_call" and part.get("name"):
                        out.tools.append(str(part["name"]))
    for s in model_spans:
        attrs = s.attributes or {}
        out.input_tokens += _int(attrs.get("gen_ai.usage.input_tokens", 0))
        out.output_tokens += _int(attrs.get("gen_ai.usage.output_tokens", 0))
        if attrs.get("gen_ai.response.model"):
            out.model_versions.add(str(attrs["gen_ai.response.model"]))
    texts: list[str] = []
    for s in agents or model_spans:
        for message in _messages((s.attributes or {}).get("gen_ai.output.messages")):
            texts.extend(
                str(p.get("content", "")) for p in message.get("parts") or [] if p.get("type") == "text"
            )
    out.answer = texts[-1] if texts else ""
    if agents and agents[0].end_time and agents[0].start_time:
        out.agent_ms = (agents[0].end_time - agents[0].start_time) / 1e6
        if not out.input_tokens:
            attrs = agents[0].attributes or {}
            out.input_tokens = _int(attrs.get("gen_ai.usage.input_tokens", 0))
            out.output_tokens = _int(attrs.get("gen_ai.usage.output_tokens", 0))
    for s in ordered:
        if s.status.status_code is StatusCode.ERROR:
            out.error_types.append(str((s.attributes or {}).get("error.type", "error")))
    return out
