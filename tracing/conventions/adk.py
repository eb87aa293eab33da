"""Google's Agent Development Kit, 1.x (`gcp.vertex.agent.*`), as its own tracing emits it.

A span is ADK's when it carries one of its `gcp.vertex.agent.*` attributes. `call_llm` is the model call:
its `gcp.vertex.agent.llm_request` (the request: contents with text, function calls and responses) and
`llm_response` become GenAI messages. Recent 1.x releases also open a `generate_content` span under it
with the same tokens, counted once (`tracing.grouping` counts a model call nested in another once). `execute_tool` gets its real
arguments and result from `tool_call_args` and `tool_response`. The conversation is the ADK session
(`gen_ai.conversation.id` on the agent span, `gcp.vertex.agent.session_id` on the model call). With
`ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false` the request and response are `{}`: nothing was captured.
ADK 2.x writes the GenAI attributes themselves (its messages only with
`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY`); its spans still carry
`gcp.vertex.agent.*` ids, so they are told as ADK's and the setting named is 2.x's too. Recorded from google-adk 1.39 against the scripted
model: `tests/tracing/fixtures/record_adk.py`.
"""

from __future__ import annotations

from typing import Any

from filon.miner.core.jsontext import parsed
from filon.tracing.records import SpanRecord, with_attributes

NAME, LABEL = "adk", "ADK"
SESSION = "stack.adk.session"  # its words: miner/core/messages.toml
CAPTURE = "stack.adk.capture"  # its words: miner/core/messages.toml
PREFIX = "gcp.vertex.agent."
MARKS = (PREFIX + "llm_request", PREFIX + "tool_call_args", PREFIX + "invocation_id", PREFIX + "session_id")
EMPTY = ("", "{}", "N/A", None)
ROLES = {"model": "assistant"}


def _parts(content: Any) -> list[dict[str, Any]]:
    """A `types.Content` dumped by ADK (snake_case) as GenAI parts."""
    parts: list[dict[str, Any]] = []
    for part in (content or {}).get("parts") or [] if isinstance(content, dict) else []:
        if not isinstance(part, dict):
            continue
        if part.get("text") and not part.get("thought"):
            parts.append({"type": "text", "content": str(part["text"])})
        elif isinstance(part.get("function_call"), dict):
            call = part["function_call"]
            parts.append({"type": "tool_call", "name": call.get("name"), "arguments": call.get("args") or {}})
        elif isinstance(part.get("function_response"), dict):
            done = part["function_response"]
            parts.append(
                {"type": "tool_call_response", "name": done.get("name"), "response": done.get("response")}
            )
    return parts


def _message(content: Any) -> dict[str, Any]:
    role = str(content.get("role") or "user") if isinstance(content, dict) else "user"
    return {"role": ROLES.get(role, role), "parts": _parts(content)}


def to_genai(span: SpanRecord) -> SpanRecord:
    """The span with GenAI attributes added (its own kept)."""
    attrs = span.attributes
    added: dict[str, Any] = {}
    if (
        PREFIX + "llm_request" in attrs
        and "gen_ai.input.messages" not in attrs
        and not span.name.startswith("execute_tool")
    ):
        added["gen_ai.operation.name"] = "chat"
        request, response = (
            parsed(attrs.get(PREFIX + "llm_request")),
            parsed(attrs.get(PREFIX + "llm_response")),
        )
        if request:  # {} when content capture is off
            contents = request.get("contents") if isinstance(request, dict) else None
            added["gen_ai.input.messages"] = [_message(c) for c in contents or []]
            # the agent's instructions, where ADK 1 records them (`tracing.instructions` reads them)
            config = request.get("config") if isinstance(request, dict) else None
            told = config.get("system_instruction") if isinstance(config, dict) else None
            if isinstance(told, str) and told.strip() and "gen_ai.system_instructions" not in attrs:
                added["gen_ai.system_instructions"] = told
        if response and isinstance(response, dict) and response.get("content"):
            added["gen_ai.output.messages"] = [_message(response["content"])]
        session = attrs.get(PREFIX + "session_id")
        if session and "gen_ai.conversation.id" not in attrs:
            added["gen_ai.conversation.id"] = session
    elif PREFIX + "tool_call_args" in attrs:
        added["gen_ai.operation.name"] = "execute_tool"
        for source, target in (
            ("tool_call_args", "gen_ai.tool.call.arguments"),
            ("tool_response", "gen_ai.tool.call.result"),
        ):
            value = attrs.get(PREFIX + source)
            if value not in EMPTY and target not in attrs:
                added[target] = value
    return with_attributes(span, {**attrs, **added})
