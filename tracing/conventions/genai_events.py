"""The GenAI conventions' earlier, event-based form: the messages as span events, not attributes.

Semantic conventions 1.26–1.27 put the prompt and the completion in span events (`gen_ai.content.prompt`
with `gen_ai.prompt`, `gen_ai.content.completion` with `gen_ai.completion`, each a JSON list of
`{role, content}`); the next versions one event per message (`gen_ai.user.message`,
`gen_ai.assistant.message`, `gen_ai.tool.message` with `content`, `gen_ai.choice` with `message`).
Span records keep attributes only, so on decoding (`tracing.records`) such events become the current
attributes, `gen_ai.input.messages` and `gen_ai.output.messages`, unless the span has those already.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from miner.jsontext import parsed

INPUT_EVENTS = {
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
NAMES = frozenset(
    (
        *INPUT_EVENTS,
        "gen_ai.system.message",
        "gen_ai.choice",
        "gen_ai.content.prompt",
        "gen_ai.content.completion",
    )
)


def _message(role: str, body: Any) -> dict[str, Any]:
    """One message as GenAI parts, from `{role, content, tool_calls}` or plain text."""
    body = parsed(body)
    if not isinstance(body, Mapping):
        body = {"content": body}
    parts: list[dict[str, Any]] = []
    content = body.get("content")
    if isinstance(content, str) and content:
        parts.append({"type": "text", "content": content})
    for call in body.get("tool_calls") or []:
        if isinstance(call, Mapping):
            inner = call.get("function")
            function: Mapping[str, Any] = inner if isinstance(inner, Mapping) else call
            if function.get("name"):
                parts.append(
                    {"type": "tool_call", "name": function["name"], "arguments": function.get("arguments")}
                )
    return {"role": str(body.get("role") or role), "parts": parts}


def messages(events: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, str]:
    """`gen_ai.input.messages` / `gen_ai.output.messages` (JSON) from a span's GenAI events; empty when
    it has none."""
    inputs: list[dict[str, Any]] = []
    outputs: list[dict[str, Any]] = []
    for name, attrs in events:
        if name in INPUT_EVENTS:
            inputs.append(_message(INPUT_EVENTS[name], dict(attrs)))
        elif name == "gen_ai.choice":
            outputs.append(_message("assistant", attrs.get("message", dict(attrs))))
        elif name in ("gen_ai.content.prompt", "gen_ai.content.completion"):
            found = parsed(attrs.get("gen_ai.prompt" if name.endswith("prompt") else "gen_ai.completion"))
            side = inputs if name.endswith("prompt") else outputs
            for m in found if isinstance(found, list) else []:
                if isinstance(m, Mapping) and m.get("role") != "system":
                    side.append(_message(str(m.get("role") or "user"), m))
    out = {}
    if inputs:
        out["gen_ai.input.messages"] = json.dumps(inputs, ensure_ascii=False)
    if outputs:
        out["gen_ai.output.messages"] = json.dumps(outputs, ensure_ascii=False)
    return out
