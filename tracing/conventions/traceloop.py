"""OpenLLMetry / Traceloop's own attributes, as its instrumentors and `traceloop-sdk` decorators emit them.

A span is Traceloop's when it carries `traceloop.span.kind`, `llm.request.type` or a flattened message
(`gen_ai.prompt.0.*`, `gen_ai.completion.0.*`, the form its instrumentors used before the GenAI
conventions had message attributes). A model call's `gen_ai.prompt.N.role/content` (and
`.tool_calls.M.name/arguments`) and `gen_ai.completion.N.*` become GenAI messages, its `llm.usage.*` /
`gen_ai.usage.prompt_tokens` tokens; a `@workflow` or `@agent` span is the agent span, its input and
output from `traceloop.entity.input/output`; a `@tool` span is a tool run with its real arguments. The
conversation is `traceloop.association.properties.session_id` (`tracing.grouping`), the customer
`traceloop.association.properties.user_id`. Current OpenLLMetry instrumentors write the GenAI
attributes themselves. Recorded from traceloop-sdk 0.39 against the scripted model:
`tests/tracing/fixtures/record_traceloop.py`.
"""

from __future__ import annotations

from typing import Any

from filon.miner.core.jsontext import parsed
from filon.tracing.conventions import indexed, shapes
from filon.tracing.records import SpanRecord, with_attributes

NAME, LABEL = "traceloop", "OpenLLMetry / Traceloop"
KIND = "traceloop.span.kind"
MARKS = (
    KIND,
    "llm.request.type",
    "gen_ai.prompt.0.role",
    "gen_ai.prompt.0.content",
    "gen_ai.completion.0.content",
)
SESSION = "stack.traceloop.session"  # its words: miner/core/messages.toml
CAPTURE = "stack.traceloop.capture"  # its words: miner/core/messages.toml
AGENT_KINDS = ("workflow", "agent")
ROLES = {"model": "assistant", "ai": "assistant"}
TOKENS = (
    ("gen_ai.usage.input_tokens", ("gen_ai.usage.prompt_tokens", "llm.usage.prompt_tokens")),
    ("gen_ai.usage.output_tokens", ("gen_ai.usage.completion_tokens", "llm.usage.completion_tokens")),
)


def _count(attrs: dict[str, Any], side: str) -> int:
    """How many messages a side has (each has a role or a content)."""
    return indexed.count(
        lambda i: f"gen_ai.{side}.{i}.role" in attrs or f"gen_ai.{side}.{i}.content" in attrs
    )


def _message(attrs: dict[str, Any], base: str) -> dict[str, Any]:
    """One flattened message (`gen_ai.prompt.N.`) as a GenAI message: role, text, tool calls."""
    role = str(attrs.get(base + "role") or "user")
    parts: list[dict[str, Any]] = []
    content = attrs.get(base + "content")
    blocks = parsed(content) if type(content) is str and content[:1] in ("[", "{") else None
    if isinstance(blocks, list | dict):  # content blocks written as JSON (Koog's tool calls, Laminar's parts)
        parts += shapes.message({"role": role, "content": blocks}).get("parts", [])
    elif content not in (None, ""):
        parts.append({"type": "text", "content": str(content)})
    if role == "tool" and attrs.get(base + "tool_call_id") is not None and not parts:
        parts.append({"type": "tool_call_response", "id": attrs[base + "tool_call_id"], "response": content})
    elif role == "tool" and attrs.get(base + "tool_call_id") is not None:
        parts = [
            {
                "type": "tool_call_response",
                "id": attrs[base + "tool_call_id"],
                "response": blocks if blocks is not None else content,
            }
        ]
    n = 0
    while (name := attrs.get(f"{base}tool_calls.{n}.name")) is not None:
        if name:
            arguments = attrs.get(f"{base}tool_calls.{n}.arguments", "{}")
            call_id = attrs.get(f"{base}tool_calls.{n}.id")
            parts.append({"type": "tool_call", "id": call_id, "name": str(name), "arguments": arguments})
        n += 1
    if attrs.get(base + "function_call.name"):
        arguments = attrs.get(base + "function_call.arguments", "{}")
        parts.append(
            {"type": "tool_call", "name": str(attrs[base + "function_call.name"]), "arguments": arguments}
        )
    return {"role": ROLES.get(role, role), "parts": parts}


def _flattened(attrs: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`gen_ai.prompt.N.*` and `gen_ai.completion.N.*` back into GenAI messages (role, text, tool calls):
    the input from the newest user message that has text (the history before it is never read: the turn
    is that message and what answers it), the whole output."""
    count = _count(attrs, "prompt")
    start = count - 1
    while start > 0 and not (
        attrs.get(f"gen_ai.prompt.{start}.role", "user") == "user"
        and attrs.get(f"gen_ai.prompt.{start}.content")
    ):
        start -= 1
    inputs = [_message(attrs, f"gen_ai.prompt.{i}.") for i in range(max(start, 0), count)]
    outputs = [_message(attrs, f"gen_ai.completion.{i}.") for i in range(_count(attrs, "completion"))]
    return inputs, outputs


def history(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    """Every `gen_ai.prompt.N.*` message, the history before the newest user message included (read only
    where a conversation exists nowhere else: `tracing.history`)."""
    return [_message(attrs, f"gen_ai.prompt.{i}.") for i in range(_count(attrs, "prompt"))]


def _entity_input(value: Any) -> tuple[str, dict[str, Any]]:
    """The decorated function's call, `{"args": [...], "kwargs": {...}}`: its last text argument (the
    customer's message, for an agent function) and its keyword arguments (a tool's)."""
    found = parsed(value)
    if not isinstance(found, dict):
        return (found if isinstance(found, str) else ""), {}
    if "inputs" in found:  # a LangChain callback's record: its `kwargs` are the run's (its name), not talk
        return _chain_input(found["inputs"]), {}
    given = found.get("kwargs")
    kwargs: dict[str, Any] = given if isinstance(given, dict) else {}
    texts = [a for a in [*(found.get("args") or []), *kwargs.values()] if isinstance(a, str)]
    return (texts[-1] if texts else ""), kwargs


_HUMAN = ("user", "human", "HumanMessage")


def _chain_input(inputs: Any) -> str:
    """The customer's text in a chain's inputs: the newest user message of `messages` (LangGraph's
    `["user", text]` pairs, LangChain's serialized `HumanMessage`, `{"role": "user"}`), else a text input."""
    if isinstance(inputs, str):
        return inputs
    if not isinstance(inputs, dict):
        return ""
    found = inputs.get("messages")
    if isinstance(found, list) and len(found) == 2 and all(isinstance(x, str) for x in found):
        found = [found]  # one ("user", text) pair
    for m in reversed(found if isinstance(found, list) else []):
        if isinstance(m, list | tuple) and len(m) == 2 and m[0] in _HUMAN and isinstance(m[1], str):
            return m[1]
        if isinstance(m, dict):
            body = m.get("kwargs") if m.get("lc") else m
            ids = m.get("id")
            kind = (
                (ids[-1] if isinstance(ids, list) and ids else "")
                if m.get("lc")
                else m.get("role", m.get("type"))
            )
            content = body.get("content") if isinstance(body, dict) else None
            if kind in _HUMAN and isinstance(content, str):
                return content
    texts = [inputs[k] for k in ("input", "question", "query", "message") if isinstance(inputs.get(k), str)]
    return texts[0] if texts else ""


def _text(value: Any) -> str:
    found = parsed(value)
    return found if isinstance(found, str) else ""


def to_genai(span: SpanRecord) -> SpanRecord:
    """The span with GenAI attributes added (its own kept)."""
    attrs = span.attributes
    kind = str(attrs.get(KIND) or "")
    if not kind and attrs.get("llm.request.type") in ("agent", "tool"):  # the kind said the older way
        kind = str(attrs["llm.request.type"])
    added: dict[str, Any] = {}
    if kind in AGENT_KINDS:
        added["gen_ai.operation.name"] = "invoke_agent"
        user, _ = _entity_input(attrs.get("traceloop.entity.input"))
        if user:
            added["gen_ai.input.messages"] = [{"role": "user", "parts": [{"type": "text", "content": user}]}]
        answer = _text(attrs.get("traceloop.entity.output"))
        if answer:
            added["gen_ai.output.messages"] = [
                {"role": "assistant", "parts": [{"type": "text", "content": answer}]}
            ]
    elif kind == "tool":
        added["gen_ai.operation.name"] = "execute_tool"
        added["gen_ai.tool.name"] = attrs.get("traceloop.entity.name") or span.name.removesuffix(".tool")
        given = attrs.get("traceloop.entity.input")
        if "gen_ai.tool.call.arguments" not in attrs and given is not None:  # current instrumentors write
            found = parsed(given)  # it (`tracing.tool_calls` opens their envelope); the call's own
            if isinstance(found, dict) and not found.keys() & {"args", "kwargs"}:  # arguments, else
                added["gen_ai.tool.call.arguments"] = found  # the decorated function's {args, kwargs}
            else:
                added["gen_ai.tool.call.arguments"] = _entity_input(given)[1]
        if "gen_ai.tool.call.result" not in attrs and attrs.get("traceloop.entity.output") is not None:
            added["gen_ai.tool.call.result"] = attrs["traceloop.entity.output"]
    elif kind:
        added["gen_ai.operation.name"] = f"traceloop.{kind}"  # a task: context
    elif "gen_ai.input.messages" not in attrs or "gen_ai.operation.name" not in attrs:
        # a model call in the flattened form, or in its JSON form (`gen_ai.prompt` whole: its messages
        # read already, `conventions._whole`)
        added["gen_ai.operation.name"] = "chat"
        if "gen_ai.input.messages" not in attrs:
            added["gen_ai.input.messages"], added["gen_ai.output.messages"] = _flattened(attrs)
        for target, sources in TOKENS:
            if target not in attrs:
                value = next((attrs[s] for s in sources if s in attrs), None)
                if value is not None:
                    added[target] = value
    return with_attributes(span, {**attrs, **added})
