"""OpenInference (Arize Phoenix's conventions), as its instrumentors and `OITracer` emit them.

A span is OpenInference's when it carries `openinference.span.kind`. Its flattened attributes
(`llm.input_messages.N.message.role`…) become the GenAI ones: the operation from the span kind, the
conversation from `session.id`, messages with their text and tool calls, tokens, the model; a TOOL span
gives the tool's name and its real arguments and result (`input.value`, `output.value`, out of their
envelopes in `tracing.tool_calls`), never the JSON schema in `tool.parameters`; a `tool` message in a
model call's input is the result read back (`tool_call_response`, by `tool_call_id`). Messages may
start at index 1 (the Agents SDK) and carry their text in `contents.N` (LlamaIndex), or have lost their
first ones to the SDK's attribute limit (a long model call); an AGENT or CHAIN span whose `input.value` /
`output.value` is plain text is the turn's message and answer. Recorded from
`openinference-instrumentation-google-genai` 1.4, `-openai-agents`, `-langchain`, `-llama-index` and
`-openai` against scripted models: `tests/tracing/fixtures/record_openinference.py`,
`record_openai_agents.py`, `record_langgraph.py`, `record_llamaindex.py`, `record_openai_client.py`.
"""

from __future__ import annotations

from typing import Any

from filon.miner.core.jsontext import parsed
from filon.tracing.conventions import indexed, shapes
from filon.tracing.conventions.envelopes import OBJECT_REPR
from filon.tracing.records import SpanRecord, with_attributes

KIND = "openinference.span.kind"
NAME, LABEL = "openinference", "OpenInference"
MARKS = (KIND,)
SESSION = "stack.openinference.session"  # its words: miner/core/messages.toml
CAPTURE = "stack.openinference.capture"  # its words: miner/core/messages.toml
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


def _indices(attrs: dict[str, Any], side: str) -> range:
    """The indices of a side's messages (each has a role). The Agents SDK's instrumentor leaves index 0
    to the instructions, and writes none when the agent's are not in the input: its messages start at 1.
    A long model call whose span the SDK cut (128 attributes by default, `OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT`:
    the oldest dropped first) has lost its first messages: they start where the first role is left."""
    count = indexed.count(lambda i: f"llm.{side}.{i}.message.role" in attrs)
    if count:
        return range(count)
    first = 1 if f"llm.{side}.1.message.role" in attrs else _first_left(attrs, f"llm.{side}.")
    if first is None:
        return range(0)
    return range(first, first + indexed.count(lambda i: f"llm.{side}.{first + i}.message.role" in attrs))


def _first_left(attrs: dict[str, Any], prefix: str) -> int | None:
    """The lowest index whose message still has its role, in a span cut from its start; None if none."""
    found = [
        int(index)
        for key in attrs
        if key.startswith(prefix)
        and key.endswith(".message.role")
        and (index := key[len(prefix) :].split(".", 1)[0]).isdigit()
    ]
    return min(found) if found else None


def _content(attrs: dict[str, Any], base: str) -> str:
    """A message's text: `content`, else its text `contents` (the multi-part form) joined."""
    content = attrs.get(base + "content")
    if content not in (None, ""):
        return str(content)
    texts = []
    n = 0
    while True:  # each part: its type, else (the Vertex AI instrumentor writes none) a text of its own
        kind = attrs.get(f"{base}contents.{n}.message_content.type")
        text = attrs.get(f"{base}contents.{n}.message_content.text")
        if kind is None and text is None:
            break
        if kind in ("text", None) and text is not None:
            texts.append(str(text))
        n += 1
    return "".join(texts)


def _message(attrs: dict[str, Any], side: str, i: int) -> dict[str, Any]:
    """One flattened message as a GenAI message: role, text, tool calls."""
    base = f"llm.{side}.{i}.message."
    role = str(attrs.get(base + "role", ""))
    parts: list[dict[str, Any]] = []
    content = _content(attrs, base)
    if role == "tool":  # a tool's result, as the model read it back: paired with its call by id
        call_id = attrs.get(base + "tool_call_id")
        response = {"type": "tool_call_response", "id": call_id, "response": content}
        if attrs.get(base + "name"):  # the tool's name: the only pairing a call with no id has
            response["name"] = attrs[base + "name"]
        return {"role": role, "parts": [response]}
    if content:
        parts.append({"type": "text", "content": content})
    n = 0
    while (name := attrs.get(f"{base}tool_calls.{n}.tool_call.function.name")) is not None:
        call = f"{base}tool_calls.{n}.tool_call."
        arguments = attrs.get(call + "function.arguments", "{}")
        parts.append(
            {"type": "tool_call", "id": attrs.get(call + "id"), "name": str(name), "arguments": arguments}
        )
        n += 1
    return {"role": ROLES.get(role, role), "parts": parts}


def _both(attrs: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The input from the newest user message that has text (the history before it is never read: the
    turn is that message and what answers it) and the whole output, as GenAI messages."""
    indices = _indices(attrs, "input_messages")
    if not indices and not _indices(attrs, "output_messages"):
        return _whole(attrs)
    start = indices.stop - 1
    while start > indices.start and not (
        attrs.get(f"llm.input_messages.{start}.message.role") == "user"
        and _content(attrs, f"llm.input_messages.{start}.message.")
    ):
        start -= 1
    inputs = [_message(attrs, "input_messages", i) for i in range(max(start, indices.start), indices.stop)]
    outputs = [_message(attrs, "output_messages", i) for i in _indices(attrs, "output_messages")]
    if not outputs and attrs.get("output.value"):  # only the provider's response body (Agno's OpenAIChat)
        outputs = shapes.from_body(attrs["output.value"])
    return inputs, outputs


def history(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    """Every flattened input message, the history before the newest user message included (read only
    where a conversation exists nowhere else: `tracing.history`)."""
    return [_message(attrs, "input_messages", i) for i in _indices(attrs, "input_messages")]


def _whole(attrs: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """An LLM span with no flattened messages: the request kept whole in `input.value` (a list of messages,
    a body's `messages`) or a completion's prompts (`llm.prompts`, LlamaIndex's `complete`), and the answer
    in `output.value` (a provider's body, a completion's `{"text"}`, plain text); the input from the
    newest user message that has text, as for flattened ones."""
    prompts = parsed(attrs.get("llm.prompts")) if type(attrs.get("llm.prompts")) is str else None
    said: Any = attrs.get("input.value")
    if type(prompts) is list and prompts and type(prompts[-1]) is str:
        said = prompts[-1]
    inputs, outputs = shapes.from_whole(said, None)
    answer = attrs.get("output.value")
    outputs = (shapes.from_body(answer) or shapes.from_whole(None, answer)[1]) if answer else []
    start = len(inputs) - 1
    while start > 0 and not (inputs[start].get("role") == "user" and _has_text(inputs[start])):
        start -= 1
    return inputs[max(start, 0) :], outputs


def _instructions(attrs: dict[str, Any]) -> list[dict[str, str]]:
    """The system messages of the input (the agent's instructions), as GenAI's `gen_ai.system_instructions`
    parts: the input translated keeps only the turn's newest messages."""
    indices = _indices(attrs, "input_messages")
    if indices:
        texts = [
            _content(attrs, f"llm.input_messages.{i}.message.")
            for i in indices
            if attrs.get(f"llm.input_messages.{i}.message.role") in ("system", "developer")
        ]
    else:
        said = attrs.get("input.value")
        if type(said) is not str or ('"system"' not in said and '"developer"' not in said):
            return []
        inputs, _ = shapes.from_whole(said, None)
        texts = [
            str(p.get("content") or "")
            for m in inputs
            if m.get("role") in ("system", "developer")
            for p in m.get("parts", [])
            if p.get("type") == "text"
        ]
    return [{"type": "text", "content": t} for t in texts if t.strip()]


def _has_text(message: dict[str, Any]) -> bool:
    return any(
        p.get("type") == "text" and str(p.get("content") or "").strip() for p in message.get("parts", [])
    )


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
        told = _instructions(attrs)
        if told:
            added["gen_ai.system_instructions"] = told
    elif kind in ("AGENT", "CHAIN"):
        said = _plain_text(attrs, "input")
        if said:  # the turn's own span holds the customer's message even where its model calls were cut
            added["gen_ai.input.messages"] = [{"role": "user", "parts": [{"type": "text", "content": said}]}]
        answer = _plain_text(attrs, "output")
        if answer:
            added["gen_ai.output.messages"] = [
                {"role": "assistant", "parts": [{"type": "text", "content": answer}]}
            ]
    return with_attributes(span, {**attrs, **added})


def _plain_text(attrs: dict[str, Any], side: str) -> str:
    """An agent span's `input.value` / `output.value` when it is the text itself: marked `text/plain`, or
    unmarked and not a structure (JSON, an object's repr: LlamaIndex's `StopEvent(…`, a chain's state)."""
    value = attrs.get(f"{side}.value")
    if not value or type(value) is not str:
        return ""
    mime = attrs.get(f"{side}.mime_type")
    if mime == "text/plain" or (mime is None and value.lstrip()[:1] not in ("{", "[")):
        return "" if OBJECT_REPR.match(value) else value
    # a chain's one text field, in or out (LangChain's {"input": …} / {"output": …}, a DSPy signature's
    # {"question": …} / {"answer": …}): the text itself; an object of several fields says nothing sure
    found = parsed(value) if value.lstrip()[:1] == "{" else None
    if isinstance(found, dict) and len(found) == 1:
        (only,) = found.values()
        if isinstance(only, str) and only.strip():
            return only
    return ""
