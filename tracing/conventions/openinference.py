"""OpenInference (Arize Phoenix's conventions), as its instrumentors and `OITracer` emit them.

A span is OpenInference's when it carries `openinference.span.kind`. Its flattened attributes
(`llm.input_messages.N.message.role`…) become the GenAI ones: the operation from the span kind, the
conversation from `session.id`, messages with their text and tool calls, tokens, the model; a TOOL span
gives the tool's name and its real arguments and result (`input.value`, `output.value`), never the JSON
schema in `tool.parameters`. Recorded from `openinference-instrumentation-google-genai` 1.4 against the
scripted model: `tests/tracing/fixtures/record_openinference.py`.
"""

from __future__ import annotations

from typing import Any

from tracing.conventions import indexed
from tracing.records import SpanRecord, with_attributes

KIND = "openinference.span.kind"
NAME, LABEL = "openinference", "OpenInference"
MARKS = (KIND,)
SESSION = "wrap each turn in openinference.instrumentation.using_session(session_id)"
CAPTURE = "OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS unset (or false)"
OPERATIONS = {"AGENT": "invoke_agent", "CHAIN": "invoke_agent", "LLM": "chat", "TOOL": "execute_tool"}
TABLE = {  # OpenInference attribute → GenAI attribute, copied as they are
    "session.id": "gen_ai.conversation.id",
    "llm.model_name": "gen_ai.response.model",
    "llm.token_count.prompt": "gen_ai.usage.input_tokens",
    "llm.token_count.completion": "gen_ai.usage.output_tokens",
    "tool.name": "gen_ai.tool.name",
    "input.value": "gen_ai.tool.call.arguments",  # TOOL spans only
    "output.value": "gen_ai.tool.call.result",  # TOOL spans only
}
ROLES = {"model": "assistant", "ai": "assistant"}


def _count(attrs: dict[str, Any], side: str) -> int:
    """How many messages a side has (each has a role)."""
    return indexed.count(lambda i: f"llm.{side}.{i}.message.role" in attrs)


def _message(attrs: dict[str, Any], side: str, i: int) -> dict[str, Any]:
    """One flattened message as a GenAI message: role, text, tool calls."""
    base = f"llm.{side}.{i}.message."
    role = str(attrs.get(base + "role", ""))
    parts: list[dict[str, Any]] = []
    content = attrs.get(base + "content")
    if content not in (None, ""):
        parts.append({"type": "text", "content": str(content)})
    n = 0
    while (name := attrs.get(f"{base}tool_calls.{n}.tool_call.function.name")) is not None:
        arguments = attrs.get(f"{base}tool_calls.{n}.tool_call.function.arguments", "{}")
        parts.append({"type": "tool_call", "name": str(name), "arguments": arguments})
        n += 1
    return {"role": ROLES.get(role, role), "parts": parts}


def _both(attrs: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The input from the newest user message that has text (the history before it is never read: the
    turn is that message and what answers it) and the whole output, as GenAI messages."""
    count = _count(attrs, "input_messages")
    start = count - 1
    while start > 0 and not (
        attrs.get(f"llm.input_messages.{start}.message.role") == "user"
        and attrs.get(f"llm.input_messages.{start}.message.content")
    ):
        start -= 1
    inputs = [_message(attrs, "input_messages", i) for i in range(max(start, 0), count)]
    outputs = [_message(attrs, "output_messages", i) for i in range(_count(attrs, "output_messages"))]
    return inputs, outputs


def to_genai(span: SpanRecord) -> SpanRecord:
    """The span with GenAI attributes added (its own kept)."""
    attrs = span.attributes
    kind = str(attrs.get(KIND, "")).upper()
    added: dict[str, Any] = {"gen_ai.operation.name": OPERATIONS.get(kind, kind.lower())}
    for source, target in TABLE.items():
        if source in attrs and (kind == "TOOL" or not source.endswith(".value")):
            added[target] = attrs[source]
    if kind == "LLM":
        added["gen_ai.input.messages"], added["gen_ai.output.messages"] = _both(attrs)
    elif (
        kind in ("AGENT", "CHAIN")
        and attrs.get("output.mime_type") == "text/plain"
        and attrs.get("output.value")
    ):
        answer = [{"role": "assistant", "parts": [{"type": "text", "content": str(attrs["output.value"])}]}]
        added["gen_ai.output.messages"] = answer
    return with_attributes(span, {**attrs, **added})
