"""What a tool really took and returned, out of the envelopes frameworks record around it.

Instrumentations record a tool run as the framework sees it, not as the tool does: LangChain's
`ToolMessage` (serialised `{"type": "tool", "data": {"content": …}}` by OpenInference, or as a LangChain
constructor `{"lc": 1, "id": [… "ToolMessage"], "kwargs": {"content": …}}` inside OpenLLMetry's
`{"output": …, "kwargs": …}`), OpenLLMetry's callback record `{"input_str", "inputs", "kwargs",
"metadata", "tags"}` for the arguments, LlamaIndex's `{"kwargs": {…}}` call and its `ToolOutput`
(`{"blocks": [{"text"}], "raw_output", "tool_name", "is_error"}`), Gemini's FunctionResponse as ADK's tool
span outputs it (`{"id", "name", "response"}`), VeADK's declaration around the arguments (`{"name",
"description", "parameters"}`). Each shape is told by keys that a
tool's own data would not hold all together; a value that matches none is returned as it is. A text
that is JSON is decoded (tools commonly return JSON text). The call id an envelope carries
(`tool_call_id`) is returned beside the value, to pair it with the model's request.

Recorded shapes: `tests/tracing/fixtures/record_langgraph.py`, `record_llamaindex.py`.
"""

from __future__ import annotations

import re
from typing import Any

from filon.miner.core.jsontext import parsed

_CALLBACK = frozenset(("input_str", "inputs"))  # OpenLLMetry's LangChain callback: both are always there
_CALLBACK_OUTPUT = frozenset(("output", "kwargs"))  # OpenLLMetry's LangChain callback, the result side
_TOOL_OUTPUT = frozenset(("blocks", "raw_output", "tool_name"))  # LlamaIndex's ToolOutput
_FUNCTION_RESPONSE = frozenset(
    ("id", "name", "response")
)  # Gemini's FunctionResponse, as ADK's tool span outputs it
_RESULT_SIGNS = frozenset(
    ("type", "lc", "output", "blocks", "response")
)  # a key every envelope above has one of
_ARGUMENT_SIGNS = frozenset(("inputs", "kwargs", "parameters"))
# VeADK's tool span input: the function's declaration with the call's arguments as its `parameters`
_DECLARATION = (frozenset(("name", "description", "parameters")), frozenset(("name", "parameters")))
_LLAMA_CALL = frozenset(("kwargs",))  # LlamaIndex's FunctionTool.acall input: the keyword arguments only
_LLAMA_CALL_ARGS = frozenset(("args", "kwargs"))


def _tool_message(value: dict[str, Any]) -> tuple[Any, str | None] | None:
    """A LangChain ToolMessage in either serialised form: its content and call id."""
    data = value.get("data")
    if (  # a message's dump: `type` twice, and the call it answers (never a tool's own record)
        value.get("type") == "tool"
        and type(data) is dict
        and data.get("type") == "tool"
        and "content" in data
        and "tool_call_id" in data
    ):
        return _content(data["content"]), _id(data.get("tool_call_id"))
    ids = value.get("id")
    kwargs = value.get("kwargs")
    if (
        value.get("lc") == 1
        and type(ids) is list
        and ids
        and ids[-1] == "ToolMessage"
        and type(kwargs) is dict
    ):
        return _content(kwargs.get("content")), _id(kwargs.get("tool_call_id"))
    return None


def _content(content: Any) -> Any:
    """A message's content: its text, or its content blocks' text joined (`[{"type": "text", …}]`)."""
    if type(content) is list and content and all(type(b) is dict and "text" in b for b in content):
        return _block_text(content)
    return content


def _block_text(blocks: Any) -> str:
    """The text of content blocks (`[{"text": …}]`, LlamaIndex's and LangChain's), joined."""
    if type(blocks) is not list:
        return ""
    return "".join(str(b["text"]) for b in blocks if type(b) is dict and isinstance(b.get("text"), str))


def _text_blocks(value: Any) -> bool:
    """A list of text content blocks only (`{"text": …}`, `{"type": "text", "text": …}`), nothing else."""
    return (
        type(value) is list
        and bool(value)
        and all(
            type(b) is dict
            and isinstance(b.get("text"), str)
            and b.keys() <= {"text", "type"}
            and b.get("type", "text") == "text"
            for b in value
        )
    )


def _id(value: Any) -> str | None:
    return str(value) if value else None


def result(value: Any) -> tuple[Any, str | None]:
    """A tool's result out of its envelope, and the call id the envelope names (None when it names
    none). Envelopes nested in one another are opened one after the other."""
    call_id: str | None = None
    for _ in range(4):  # OpenLLMetry: {"output": ToolMessage}, whose content is JSON text
        value = parsed(value)
        if _text_blocks(value):  # Strands' and MCP's `[{"text": …}]`: the text they hold
            return _block_text(value), call_id
        if type(value) is not dict or value.keys().isdisjoint(_RESULT_SIGNS):  # a tool's own data: most
            return value, call_id
        message = _tool_message(value)
        if message is not None:
            value, call_id = message[0], message[1] or call_id
            continue
        if value.keys() == _CALLBACK_OUTPUT:
            value = value["output"]
            continue
        if value.keys() == _FUNCTION_RESPONSE or value.keys() == {"name", "response"}:
            value, call_id = value["response"], _id(value.get("id")) or call_id
            continue
        if value.keys() >= _TOOL_OUTPUT:
            raw = value.get("raw_output")
            if raw is None:
                raw = _block_text(value.get("blocks"))
            value = raw
            continue
        return value, call_id
    return value, call_id


def arguments(value: Any) -> tuple[Any, str | None]:
    """A tool's arguments out of the framework's record of the call, and the call id it names."""
    value = parsed(value)
    if type(value) is not dict or value.keys().isdisjoint(_ARGUMENT_SIGNS):
        return value, None
    if value.keys() >= _CALLBACK:
        kwargs = value.get("kwargs")
        call_id = _id(kwargs.get("tool_call_id")) if type(kwargs) is dict else None
        inputs = value["inputs"]
        return (inputs if type(inputs) is dict else parsed(value["input_str"])), call_id
    if value.keys() in _DECLARATION and type(value["parameters"]) is dict:
        return value["parameters"], None
    if value.keys() == _LLAMA_CALL or (value.keys() == _LLAMA_CALL_ARGS and not value.get("args")):
        kwargs = value["kwargs"]
        if type(kwargs) is dict:
            return kwargs, None
    return value, None


# a Python object's repr: `ToolMessage(content=…`, `ToolOutput(blocks=[…`, `StopEvent(result=…`
OBJECT_REPR = re.compile(r"[A-Z]\w*\((?:\w+=|\)|\[)")
_SERIALISED = frozenset(("lc", "type", "id", "kwargs"))  # LangChain's `Serializable.to_json()`


def wrapped(value: Any) -> bool:
    """Whether a value read as a tool's arguments or result is still a framework's wrapper: a Python
    object's repr, a LangChain object serialised (another message class than the ToolMessage opened
    here), or one of the shapes above left unopened. What `traces doctor` reports instead of "ok"."""
    if isinstance(value, str):
        return bool(OBJECT_REPR.match(value))
    if not isinstance(value, dict):
        return False
    keys = value.keys()
    return (
        keys >= _SERIALISED
        or _tool_message(value) is not None
        or keys >= _CALLBACK
        or keys == _CALLBACK_OUTPUT
        or keys >= _TOOL_OUTPUT
    )
