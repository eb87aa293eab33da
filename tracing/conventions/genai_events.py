"""The GenAI conventions' earlier, event-based form: the messages as span events, not attributes.

Semantic conventions 1.26–1.27 put the prompt and the completion in span events (`gen_ai.content.prompt`
with `gen_ai.prompt`, `gen_ai.content.completion` with `gen_ai.completion`, each a JSON list of
`{role, content}`); the next versions one event per message (`gen_ai.user.message`,
`gen_ai.assistant.message`, `gen_ai.tool.message` with `content`, `gen_ai.choice` with `message`).
Span records keep attributes only, so on decoding (`tracing.records`) such events become the current
attributes, `gen_ai.input.messages` and `gen_ai.output.messages`, unless the span has those already; so
do the current conventions' `gen_ai.client.inference.operation.details` event, which carries them as its
own attributes, OpenLIT's plain-text prompt (« user: … ») and Mirascope's one message per event.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from filon.miner.core.jsontext import parsed
from filon.tracing.conventions import shapes

INPUT_EVENTS = {
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
DETAILS = "gen_ai.client.inference.operation.details"  # the current conventions' opt-in event
NAMES = frozenset(
    (
        *INPUT_EVENTS,
        "gen_ai.system.message",
        "gen_ai.choice",
        "gen_ai.content.prompt",
        "gen_ai.content.completion",
        DETAILS,
    )
)
_SPOKEN = re.compile(r"^(user|assistant|system|tool|human|ai|model):\s?", re.IGNORECASE | re.MULTILINE)


def _message(role: str, body: Any) -> dict[str, Any]:
    """One message as GenAI parts, from `{role, content, tool_calls}`, content blocks (Strands'
    `[{"text": …}]`, Anthropic's), or plain text (`tracing.conventions.shapes`)."""
    body = parsed(body)
    if isinstance(body, list):
        body = {"content": body}
    if not isinstance(body, Mapping):
        body = {"content": body}
    found = shapes.message({**body, "role": str(body.get("role") or role)})
    return dict(found)


def _spoken(text: str, side: list[dict[str, Any]], role: str) -> None:
    """OpenLIT's plain prompt, « user: … » line by line, as messages (a system one left out)."""
    marks = list(_SPOKEN.finditer(text))
    if not marks:
        side.append({"role": role, "parts": [{"type": "text", "content": text}]})
        return
    for mark, after in zip(marks, [*marks[1:], None], strict=True):
        said = text[mark.end() : after.start() if after else len(text)].strip()
        who = shapes.ROLES.get(mark.group(1).lower(), mark.group(1).lower())
        if who != "system" and said:
            side.append({"role": who, "parts": [{"type": "text", "content": said}]})


def tool_run(events: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """A tool span's events (Strands): what the tool took and returned, as `gen_ai.tool.call.arguments`
    and `.result`: the `gen_ai.tool.message` content and the `gen_ai.choice` message (its earlier form),
    or the `tool_call` and `tool_call_response` parts of the details event (its current one)."""
    out: dict[str, Any] = {}
    for name, attrs in events:
        if name == "gen_ai.tool.message" and "content" in attrs:
            out.setdefault("gen_ai.tool.call.arguments", attrs["content"])
        elif name == "gen_ai.choice" and "message" in attrs:
            out.setdefault("gen_ai.tool.call.result", attrs["message"])
        elif name == DETAILS:
            for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
                found = parsed(attrs.get(key))
                for m in found if isinstance(found, list) else []:
                    for part in (m.get("parts") or []) if isinstance(m, Mapping) else []:
                        if isinstance(part, Mapping) and part.get("type") == "tool_call":
                            out.setdefault("gen_ai.tool.call.arguments", part.get("arguments"))
                        elif isinstance(part, Mapping) and part.get("type") == "tool_call_response":
                            out.setdefault("gen_ai.tool.call.result", part.get("response"))
    return out


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
            side, role = (inputs, "user") if name.endswith("prompt") else (outputs, "assistant")
            if isinstance(found, str) and found.strip():
                _spoken(found, side, role)
            if isinstance(found, Mapping):  # one message (Mirascope's), its role or the side's
                found = [found]
            for m in found if isinstance(found, list) else []:
                if isinstance(m, Mapping) and m.get("role") != "system":
                    side.append(_message(str(m.get("role") or role), m))
        elif name == DETAILS:
            for key, side in (("gen_ai.input.messages", inputs), ("gen_ai.output.messages", outputs)):
                found = parsed(attrs.get(key))
                side += (
                    [dict(shapes.message(m)) for m in found if isinstance(m, Mapping)]
                    if isinstance(found, list)
                    else []
                )
    out = {}
    if inputs:
        out["gen_ai.input.messages"] = json.dumps(inputs, ensure_ascii=False)
    if outputs:
        out["gen_ai.output.messages"] = json.dumps(outputs, ensure_ascii=False)
    return out
