"""The Vercel AI SDK's telemetry (`experimental_telemetry: {isEnabled: true}`), as `ai` 6 emits it.

A span is the SDK's when it carries `ai.operationId`. `ai.generateText` / `ai.streamText` (one per call
of the application, so one per user turn) is the agent span: its input from `ai.prompt`, its answer from
`ai.response.text`. Each `….doGenerate` / `….doStream` is a model call: `ai.prompt.messages` and the
answer or `ai.response.toolCalls`. `ai.toolCall` is a tool run with its real `ai.toolCall.args` and
`ai.toolCall.result`. The conversation is `ai.telemetry.metadata.sessionId` (`tracing.grouping`).
Recorded from `ai` 6.0 against the scripted model: `tests/tracing/fixtures/record_vercel_ai.mjs`.
"""

from __future__ import annotations

from typing import Any

from filon.miner.core.jsontext import parsed
from filon.tracing.records import SpanRecord, with_attributes

KIND = "ai.operationId"
NAME, LABEL = "vercel_ai", "Vercel AI SDK"
MARKS = (KIND,)
SESSION = "stack.vercel_ai.session"  # its words: miner/core/messages.toml
CAPTURE = "stack.vercel_ai.capture"  # its words: miner/core/messages.toml
AGENT_OPS = ("ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject")
MODEL_SUFFIXES = (".doGenerate", ".doStream")


def _parts(content: Any) -> list[dict[str, Any]]:
    """The SDK's message content (a string, or parts) as GenAI parts."""
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    parts: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            parts.append({"type": "text", "content": str(part.get("text", ""))})
        elif part.get("type") == "tool-call":
            parts.append(
                {
                    "type": "tool_call",
                    "id": part.get("toolCallId"),
                    "name": part.get("toolName"),
                    "arguments": part.get("input", part.get("args")),
                }
            )
        # a result read back: `result`, or v5's `output` {type, value}
        elif part.get("type") == "tool-result":
            given = part.get("output", part.get("result"))
            if isinstance(given, dict) and given.keys() <= {"type", "value"} and "value" in given:
                given = given["value"]
            parts.append({"type": "tool_call_response", "id": part.get("toolCallId"), "response": given})
    return parts


def _messages(value: Any) -> list[dict[str, Any]]:
    found = parsed(value)
    if isinstance(found, dict):  # `ai.prompt`: {"system", "prompt" or "messages"}
        if found.get("prompt"):
            return [{"role": "user", "parts": _parts(found["prompt"])}]
        found = found.get("messages") or []
    if not isinstance(found, list):
        return []
    return [{"role": m.get("role"), "parts": _parts(m.get("content"))} for m in found if isinstance(m, dict)]


def _answer(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if attrs.get("ai.response.text"):
        parts.append({"type": "text", "content": str(attrs["ai.response.text"])})
    elif attrs.get("ai.response.object"):  # generateObject: the structured answer, as the model wrote it
        parts.append({"type": "text", "content": str(attrs["ai.response.object"])})
    calls = parsed(attrs.get("ai.response.toolCalls"))
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict) and call.get("toolName"):
            parts.append(
                {
                    "type": "tool_call",
                    "id": call.get("toolCallId"),
                    "name": call["toolName"],
                    "arguments": call.get("input", call.get("args")),
                }
            )
    return [{"role": "assistant", "parts": parts}] if parts else []


def to_genai(span: SpanRecord) -> SpanRecord:
    """The span with GenAI attributes added (its own kept)."""
    attrs = span.attributes
    operation = str(attrs.get(KIND, ""))
    added: dict[str, Any] = {}
    if operation in AGENT_OPS:
        added["gen_ai.operation.name"] = "invoke_agent"
        added["gen_ai.input.messages"] = _messages(attrs.get("ai.prompt"))
        added["gen_ai.output.messages"] = _answer(attrs)
    elif operation.endswith(MODEL_SUFFIXES):
        added["gen_ai.operation.name"] = "chat"
        added["gen_ai.input.messages"] = _messages(attrs.get("ai.prompt.messages"))
        added["gen_ai.output.messages"] = _answer(attrs)
        if "gen_ai.usage.input_tokens" not in attrs:
            added["gen_ai.usage.input_tokens"] = attrs.get(
                "ai.usage.inputTokens", attrs.get("ai.usage.promptTokens")
            )
            added["gen_ai.usage.output_tokens"] = attrs.get(
                "ai.usage.outputTokens", attrs.get("ai.usage.completionTokens")
            )
    elif operation == "ai.toolCall":
        added["gen_ai.operation.name"] = "execute_tool"
        added["gen_ai.tool.name"] = attrs.get("ai.toolCall.name") or (  # else its span's name says it
            span.name.removeprefix("ai.toolCall").strip() or None
        )
        added["gen_ai.tool.call.arguments"] = attrs.get("ai.toolCall.args")
        added["gen_ai.tool.call.result"] = attrs.get("ai.toolCall.result")
        added["gen_ai.tool.call.id"] = attrs.get("gen_ai.tool.call.id", attrs.get("ai.toolCall.id"))
    return with_attributes(span, {**attrs, **{k: v for k, v in added.items() if v is not None}})
