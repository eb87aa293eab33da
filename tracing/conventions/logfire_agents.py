"""Logfire's OpenAI Agents SDK integration (`logfire.instrument_openai_agents()`), which writes the SDK's
own trace as Logfire spans: detected by their instrumentation scope, `logfire.openai_agents`.

A run is one trace whose root, "OpenAI Agents trace: …", carries the SDK's `group_id` (the conversation,
as the SDK's docs say to link a conversation's runs) and its `metadata` (the user id, when the app puts
one there: `user_id`). A "Responses API with …" span is a model call: `gen_ai.operation.name` is
there, the messages are not; its input is `raw_input` and its output the `response`'s `output`, both
as Responses API items (messages, `function_call`, `function_call_output`), made GenAI messages here;
with the SDK's Chat Completions model, a "Chat completion with …" span, whose `input` and `output` are
Chat Completions messages (`tool_calls`, `tool` messages), made GenAI messages too.
A "Function: …" span is a tool run: `name`, `input` (the arguments), `output` (the result); a "Handoff:
…" span the hand-off tool the model called (`transfer_to_<agent>`, its arguments from the model's
request, its result the SDK's `{"assistant": <agent>}`). A model
call that failed (a 429) records no input: that turn has no customer text. Logfire's other integrations
(`instrument_openai`, pydantic-ai) write the GenAI attributes themselves. Recorded from logfire 5.4
with openai-agents 0.24 against a scripted model: `tests/tracing/fixtures/record_openai_agents.py`.
"""

from __future__ import annotations

from typing import Any

from filon.miner.core.jsontext import parsed
from filon.tracing.records import SpanRecord, with_attributes

NAME, LABEL = "logfire_agents", "Logfire (OpenAI Agents SDK)"
MARKS = ("agent_trace_id",)  # the root's; the other spans are told by their scope
SCOPES = ("logfire.openai_agents",)
SESSION = "stack.logfire_agents.session"  # its words: miner/core/messages.toml
CAPTURE = "stack.logfire_agents.capture"  # its words: miner/core/messages.toml
USER_KEYS = ("user_id", "userId", "user")
TOOL_TEMPLATE = "Function: {name}"
HANDOFF_TEMPLATE = "Handoff: {from_agent} → {to_agent}"
CHAT_TEMPLATE = "Chat completion with {gen_ai.request.model!r}"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def messages(items: Any) -> list[dict[str, Any]]:
    """Responses API items as GenAI messages."""
    items = parsed(items)
    if isinstance(items, str):
        return [{"role": "user", "parts": [{"type": "text", "content": items}]}]
    out: list[dict[str, Any]] = []
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "function_call":
            call = {
                "type": "tool_call",
                "id": item.get("call_id"),
                "name": item.get("name"),
                "arguments": item.get("arguments"),
            }
            out.append({"role": "assistant", "parts": [call]})
        elif kind == "function_call_output":
            response = {
                "type": "tool_call_response",
                "id": item.get("call_id"),
                "response": item.get("output"),
            }
            out.append({"role": "tool", "parts": [response]})
        elif item.get("role"):
            text = _text(item.get("content"))
            out.append(
                {"role": str(item["role"]), "parts": [{"type": "text", "content": text}] if text else []}
            )
    return out


def chat_messages(items: Any) -> list[dict[str, Any]]:
    """Chat Completions messages (role, content, `tool_calls`, a `tool` message's `tool_call_id`) as
    GenAI messages."""
    items = parsed(items)
    out: list[dict[str, Any]] = []
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict) or not item.get("role"):
            continue
        role, text = str(item["role"]), _text(item.get("content"))
        if role == "tool":
            response = {"type": "tool_call_response", "id": item.get("tool_call_id"), "response": text}
            out.append({"role": role, "parts": [response]})
            continue
        parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
        calls = item.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and function.get("name"):
                parts.append(
                    {
                        "type": "tool_call",
                        "id": call.get("id"),
                        "name": function["name"],
                        "arguments": function.get("arguments"),
                    }
                )
        out.append({"role": role, "parts": parts})
    return out


def _root(attrs: dict[str, Any]) -> dict[str, Any]:
    added: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent"}
    if attrs.get("group_id"):
        added["gen_ai.conversation.id"] = attrs["group_id"]
    metadata = parsed(attrs.get("metadata"))
    if isinstance(metadata, dict):
        user = next((metadata[k] for k in USER_KEYS if metadata.get(k)), None)
        if user is not None:
            added["user.id"] = str(user)
    return added


def to_genai(span: SpanRecord) -> SpanRecord:
    """The span with GenAI attributes added (its own kept)."""
    attrs = span.attributes
    if "agent_trace_id" in attrs:
        added = _root(attrs)
    elif attrs.get("gen_ai.operation.name") == "chat" and "gen_ai.input.messages" not in attrs:
        response = parsed(attrs.get("response"))
        output = response.get("output") if isinstance(response, dict) else None
        added = {
            "gen_ai.input.messages": messages(attrs.get("raw_input")),
            "gen_ai.output.messages": messages(output),
        }
    elif attrs.get("logfire.msg_template") == CHAT_TEMPLATE:  # the SDK's Chat Completions model
        added = {
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": chat_messages(attrs.get("input")),
            "gen_ai.output.messages": chat_messages(attrs.get("output")),
        }
    elif attrs.get("logfire.msg_template") == HANDOFF_TEMPLATE and attrs.get("to_agent"):
        target = str(attrs["to_agent"])  # the SDK's hand-off is a tool the model calls, `transfer_to_<agent>`
        added = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": f"transfer_to_{target}",
            "gen_ai.tool.call.result": {"assistant": target},
        }
    elif attrs.get("logfire.msg_template") == TOOL_TEMPLATE:
        added = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": attrs.get("name"),
            "gen_ai.tool.call.arguments": attrs.get("input"),
            "gen_ai.tool.call.result": attrs.get("output"),
        }
    else:
        return span
    return with_attributes(span, {**attrs, **added})
