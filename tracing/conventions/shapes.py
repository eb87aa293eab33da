"""The shapes a message takes in the wild, brought to the one filon reads: `{role, parts: [{type: text,
content}, {type: tool_call, id, name, arguments}, {type: tool_call_response, id, response}]}`.

The GenAI conventions' `gen_ai.input.messages` has had several forms, and the stacks that write it more:
`parts` (the current semantic conventions), `content` as plain text (the AI SDK's newer versions, Semantic
Kernel), `content` as a list of blocks of Anthropic's shape (`text`, `tool_use`, `tool_result`) or of
Bedrock's as Strands writes them (`[{"text": …}]`, `toolUse`, `toolResult`), possibly as JSON text,
OpenAI's `tool_calls` and a `tool` role's `tool_call_id`; a provider's built-in tool (`server_tool_call`
and its response, in the same output) as a call with its result. Logfire and pydantic-ai 0.2 keep the messages
as a list of event bodies in one attribute (`events`, `all_messages_events`): `{role, content}` per
message, `{index, message}` per choice. Every reader of messages goes through `message`; a message in the
current form costs one look at its parts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from filon.miner.core.jsontext import dumps, parsed

ROLES = {"model": "assistant", "ai": "assistant", "bot": "assistant", "human": "user", "function": "tool"}
_CURRENT = frozenset(("text", "tool_call", "tool_call_response"))


def _text(value: Any) -> str:
    """The text of a content: a string, or the text blocks of a list (`[{"text": …}]`) joined."""
    value = parsed(value) if type(value) is str and value[:1] in ("[", "{") else value
    if type(value) is str:
        return value
    if type(value) is dict:
        value = [value]
    if type(value) is list:
        texts = [
            b.get("text") or b.get("content")
            for b in value
            if type(b) is dict and b.get("type", "text") == "text"
        ]
        return "".join(t for t in texts if type(t) is str)
    return "" if value is None else str(value)


def _block(block: Any) -> dict[str, Any] | None:
    """One content block as a GenAI part, or None when it is none filon reads (an image, a reasoning)."""
    if type(block) is str:
        return {"type": "text", "content": block}
    if type(block) is not dict:
        return None
    kind = block.get("type")
    if kind == "tool_call_response" and "response" not in block and "result" in block:  # pydantic-ai's own
        return {**block, "response": block["result"]}
    if kind in _CURRENT and ("content" in block or kind != "text"):
        return block
    if kind in (None, "text", "output_text", "input_text") and type(block.get("text")) is str:
        return {"type": "text", "content": block["text"]}
    if kind == "server_tool_call" and block.get("name"):  # a provider's built-in tool (code interpreter…)
        return {
            "type": "tool_call",
            "id": block.get("id"),
            "name": str(block["name"]),
            "arguments": block.get(kind),
        }
    if kind == "server_tool_call_response":
        return {"type": "tool_call_response", "id": block.get("id"), "response": block.get(kind)}
    function: Any = block.get("function")
    if type(function) is dict and function.get("name"):  # OpenAI's tool call, as a block
        return {
            "type": "tool_call",
            "id": block.get("id"),
            "name": str(function["name"]),
            "arguments": function.get("arguments"),
        }
    use: dict[str, Any] = block["toolUse"] if type(block.get("toolUse")) is dict else block
    if kind in ("tool_use", "function_call", "tool-call") or use is not block:
        name = use.get("name") or use.get("toolName")
        if not name:
            return None
        arguments = use.get("input", use.get("arguments", use.get("args")))
        call_id = use.get("id") or use.get("toolUseId") or use.get("call_id") or use.get("toolCallId")
        return {"type": "tool_call", "id": call_id, "name": str(name), "arguments": arguments}
    result: dict[str, Any] = block["toolResult"] if type(block.get("toolResult")) is dict else block
    if kind in ("tool_result", "function_call_output", "tool-result") or result is not block:
        call_id = (
            result.get("tool_use_id")
            or result.get("toolUseId")
            or result.get("call_id")
            or result.get("toolCallId")
        )
        response = result.get("content", result.get("output", result.get("result")))
        if type(response) is list:
            response = _text(response) or response
        return {"type": "tool_call_response", "id": call_id, "response": response}
    return None


def _is_result(block: Any) -> bool:
    return type(block) is dict and (
        block.get("type") in ("tool_result", "tool_call_response") or "toolResult" in block
    )


def message(value: Any) -> Any:
    """A message in the form filon reads; anything that is not a message, as it is."""
    if type(value) is not dict:
        return value
    parts = value.get("parts")
    role = str(value.get("role") or "")
    if type(parts) is list and all(type(p) is dict and p.get("type") in _CURRENT for p in parts):
        return value if role not in ROLES else {**value, "role": ROLES[role]}
    role = ROLES.get(role, role) or "user"
    out: list[dict[str, Any]] = []
    blocks = parts if type(parts) is list else value.get("content")
    if type(blocks) is str and blocks[:1] in ("[", "{"):
        blocks = parsed(blocks)
    answered = value.get("tool_call_id", value.get("id")) if role == "tool" else None
    if role == "tool" and not (type(blocks) is list and any(_is_result(b) for b in blocks)):
        # a result, with its call's id or none (then paired by its place: `tracing.tool_calls`)
        response = _text(blocks) if type(blocks) is list else blocks
        out.append({"type": "tool_call_response", "id": answered, "response": response})
    elif type(blocks) is list:
        out += [p for p in map(_block, blocks) if p is not None]
    elif type(blocks) is dict:
        found = _block(blocks)
        out += [found] if found is not None else []
    elif blocks not in (None, ""):
        out.append({"type": "text", "content": str(blocks)})
    calls = value.get("tool_calls") or []
    # LangChain's message holds its calls twice: as content blocks (`tool_use`) and as `tool_calls`
    given = {p.get("id") for p in out if p.get("type") == "tool_call" and p.get("id")} if calls else set()
    for call in calls:
        if type(call) is dict and not (call.get("id") and call.get("id") in given):
            function: dict[str, Any] = call["function"] if type(call.get("function")) is dict else call
            if function.get("name"):
                out.append(
                    {
                        "type": "tool_call",
                        "id": call.get("id"),
                        "name": str(function["name"]),
                        "arguments": function.get("arguments", function.get("args")),  # LangChain: args
                    }
                )
    return {"role": role, "parts": out}


def from_body(value: Any) -> list[dict[str, Any]]:
    """The messages of a provider's response body kept whole as the output (OpenInference's `output.value`
    where no `llm.output_messages` is flattened): OpenAI's chat completion (`choices[].message`), its
    Responses API (`output[]`: messages and function calls), Anthropic's message (`content` blocks)."""
    body = parsed(value) if type(value) is str and value[:1] == "{" else value
    if type(body) is not dict:
        return []
    if type(body.get("choices")) is list:
        found = [c.get("message") for c in body["choices"] if type(c) is dict]
        return [message({"role": "assistant", **m}) for m in found if type(m) is dict]
    if type(body.get("output")) is list:  # the Responses API: each item a message or a call
        parts: list[dict[str, Any]] = []
        for item in body["output"]:
            if type(item) is dict and item.get("type") == "message":
                parts += message({"role": "assistant", "content": item.get("content")})["parts"]
            elif (part := _block(item)) is not None:
                parts.append(part)
        return [{"role": "assistant", "parts": parts}] if parts else []
    if body.get("role") == "assistant" and type(body.get("content")) is list:
        return [message(body)]
    return []


def from_whole(prompt: Any, completion: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The messages of a model call kept whole in one attribute each (`gen_ai.prompt` and
    `gen_ai.completion` without an index, as OpenLLMetry's JSON encoding and older GenAI examples write
    them): a list of messages in any form `message` reads, a completion's `{"text", "finish_reason"}`,
    or plain text (the customer's, the answer)."""

    def side(value: Any, role: str) -> list[dict[str, Any]]:
        found = parsed(value) if type(value) is str and value[:1] in ("[", "{") else value
        if type(found) is dict:  # one message, LangSmith's {"messages"} or {"prompt", "system"}, {"text"}
            if type(found.get("messages")) is list:
                found = found["messages"]
            elif "role" in found:
                found = [found]
            else:
                found = [{"role": role, "content": found.get("text", found.get("prompt"))}]
        if type(found) is str:
            return [{"role": role, "parts": [{"type": "text", "content": found}]}] if found.strip() else []
        if type(found) is not list:
            return []
        return [m for m in (message(x) for x in found if type(x) is dict) if type(m) is dict]

    return side(prompt, "user"), side(completion, "assistant")


def from_events(value: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Logfire's (and pydantic-ai 0.2's) list of event bodies as input and output messages: a body with a
    `role` is a message of the input (a system one left out), one with `message` a choice of the output;
    with no choice, the assistant's messages after the last other one are the output."""
    inputs: list[dict[str, Any]] = []
    outputs: list[dict[str, Any]] = []
    for body in parsed(value) if type(value) is str else value or []:
        if type(body) is not dict:
            continue
        if type(body.get("message")) is dict or (body.get("index") is not None and "message" in body):
            found = body.get("message")
            outputs.append(
                message({"role": "assistant", **(parsed(found) if type(found) is str else found or {})})
            )
        elif body.get("role") and body.get("role") != "system":
            inputs.append(message(body))
    if not outputs:  # no choice (Logfire's Responses API spans): the assistant's last messages are its output
        while inputs and inputs[-1].get("role") == "assistant":
            outputs.insert(0, inputs.pop())
    return inputs, outputs


def json_messages(found: Iterable[dict[str, Any]]) -> str:
    return dumps(list(found))
