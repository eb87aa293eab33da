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
MESSAGE_PREFIXES = ("llm.input_messages.", "llm.output_messages.")
ROLES = {"model": "assistant", "ai": "assistant"}


def _both(attributes: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`llm.input_messages.N.message.*` and `llm.output_messages.N.message.*` back into GenAI messages,
    in one pass over the attributes, one split per key."""
    found: dict[str, dict[int, dict[str, Any]]] = {"input_messages": {}, "output_messages": {}}
    for key, value in attributes.items():
        if not key.startswith(MESSAGE_PREFIXES):
            continue
        pieces = key.split(".", 4)  # llm, input_messages|output_messages, N, message, field
        if len(pieces) == 5 and pieces[3] == "message" and pieces[2].isdigit():
            found[pieces[1]].setdefault(int(pieces[2]), {})[pieces[4]] = value
    return _messages(found["input_messages"]), _messages(found["output_messages"])


def _messages(found: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each message's fields as a GenAI message: role, text, tool calls."""
    out = []
    for _, fields in sorted(found.items()):
        role = str(fields.get("role", ""))
        parts: list[dict[str, Any]] = []
        if fields.get("content") not in (None, ""):
            parts.append({"type": "text", "content": str(fields["content"])})
        calls = sorted({int(k.split(".")[1]) for k in fields if k.startswith("tool_calls.")})
        for n in calls:
            name = fields.get(f"tool_calls.{n}.tool_call.function.name")
            if name:
                arguments = fields.get(f"tool_calls.{n}.tool_call.function.arguments", "{}")
                parts.append({"type": "tool_call", "name": str(name), "arguments": arguments})
        out.append({"role": ROLES.get(role, role), "parts": parts})
    return out


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
