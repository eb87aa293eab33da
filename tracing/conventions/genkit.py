"""Genkit's own attributes (Firebase Genkit, Go and JS), as its tracer writes each action.

A span is Genkit's when it carries `genkit:type`. A model action (`genkit:metadata:subtype` = model) has
its request in `genkit:input` (`messages`, each with `content` blocks: `{"text"}`, `{"toolRequest"}`,
`{"toolResponse"}`) and its reply in `genkit:output` (`message`): made GenAI messages here. A tool action
(`genkit:metadata:subtype` = tool) is a tool run: `genkit:name`, its input and output. A reply whose text
is an object (a structured output) is no answer text. Read from Langfuse's OTLP ingestion test fixture
(`tests/corpus/peers`).
"""

from __future__ import annotations

from typing import Any

from filon.miner.core.jsontext import parsed
from filon.tracing.conventions import shapes
from filon.tracing.records import SpanRecord, with_attributes

NAME, LABEL = "genkit", "Genkit"
KIND = "genkit:type"
MARKS = (KIND,)
SESSION = "stack.genkit.session"  # its words: miner/core/messages.toml
CAPTURE = "stack.genkit.capture"  # its words: miner/core/messages.toml


def _message(value: Any) -> dict[str, Any] | None:
    if type(value) is not dict:
        return None
    parts: list[dict[str, Any]] = []
    for block in value.get("content") or []:
        if type(block) is not dict:
            continue
        if type(block.get("text")) is str:
            parts.append({"type": "text", "content": block["text"]})
        elif type(block.get("toolRequest")) is dict:
            asked = block["toolRequest"]
            parts.append(
                {
                    "type": "tool_call",
                    "id": asked.get("ref"),
                    "name": asked.get("name"),
                    "arguments": asked.get("input"),
                }
            )
        elif type(block.get("toolResponse")) is dict:
            given = block["toolResponse"]
            parts.append(
                {"type": "tool_call_response", "id": given.get("ref"), "response": given.get("output")}
            )
    role = str(value.get("role") or "user")
    return {"role": shapes.ROLES.get(role, role), "parts": parts}


def to_genai(span: SpanRecord) -> SpanRecord:
    """The span with GenAI attributes added (its own kept)."""
    attrs = span.attributes
    subtype = attrs.get("genkit:metadata:subtype")
    given, returned = parsed(attrs.get("genkit:input")), parsed(attrs.get("genkit:output"))
    if subtype == "model":
        inputs = given.get("messages") if type(given) is dict else None
        output = returned.get("message") if type(returned) is dict else None
        added: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": [m for m in map(_message, inputs or []) if m is not None],
            "gen_ai.output.messages": [m for m in [_message(output)] if m is not None],
        }
    elif subtype == "tool":
        added = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": attrs.get("genkit:name"),
            "gen_ai.tool.call.arguments": given,
            "gen_ai.tool.call.result": returned,
        }
    else:
        return span
    return with_attributes(span, {**attrs, **added})
