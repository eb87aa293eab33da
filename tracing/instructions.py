"""The agent's instructions (its system prompt), read from a turn's spans.

What the agent was told is part of what it saw: a fee, a delay or a rule its instructions state is not a
made-up fact when its answer repeats it (`miner.rules.grounding_rule`, `fait_non_fonde`). A team used to
have to declare those texts (`sources`); the spans of most stacks already carry them, in the GenAI
convention's `gen_ai.system_instructions` (ADK 2, OpenLLMetry, pydantic-ai) or as system messages of the
model call's input (Logfire, the Vercel AI SDK, and OpenInference once `conventions.openinference` has
translated them). A stack that records none leaves the turn without instructions, which the rule then says
it cannot evaluate (unless `sources` are declared).

Reading is cheap on the common path: an attribute's JSON text is parsed only when it holds the word
"system" or is the instructions' own attribute.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from filon.miner.core.jsontext import loads
from filon.tracing.records import SpanRecord
from filon.tracing.tool_calls import messages

SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
INPUT = "gen_ai.input.messages"
LIMIT = 100_000  # characters kept: instructions longer than this are cut (what follows is not read)


def instructions_of(spans: Iterable[SpanRecord]) -> str:
    """The distinct instruction texts of these spans, in the order met, joined by a blank line."""
    found: dict[str, None] = {}
    for span in spans:
        attrs = span.attributes
        own = attrs.get(SYSTEM_INSTRUCTIONS)
        if own is not None:
            for text in _texts(own, whole=True):
                found.setdefault(text)
        said = attrs.get(INPUT)
        if said is not None and (type(said) is not str or '"system"' in said or '"developer"' in said):
            for text in _system_messages(said):
                found.setdefault(text)
    return "\n\n".join(found)[:LIMIT]


def _texts(value: Any, whole: bool = False) -> list[str]:
    """The text parts of a value: plain text, a JSON list of parts (`{"type": "text", "content"}`), a list
    of strings. `whole`: a plain string that is not JSON is the text itself."""
    if type(value) is str:
        stripped = value.lstrip()
        if stripped[:1] in ("[", "{"):
            try:
                value = loads(value)
            except ValueError:
                return [value] if whole and value.strip() else []
        else:
            return [value] if value.strip() else []
    if type(value) is dict:
        value = [value]
    if type(value) is not list:
        return []
    out = []
    for part in value:
        if type(part) is str and part.strip():
            out.append(part)
        elif type(part) is dict:
            text = part.get("content", part.get("text"))
            if type(text) is str and text.strip() and part.get("type", "text") == "text":
                out.append(text)
    return out


def _system_messages(value: Any) -> list[str]:
    """The texts of the system (or developer) messages of a model call's input, JSON text or parsed, in
    any shape `tracing.tool_calls.messages` reads (`content` text or blocks, parts)."""
    return [
        str(part.get("content") or "")
        for message in messages(value)
        if type(message) is dict and message.get("role") in ("system", "developer")
        for part in message.get("parts") or []
        if type(part) is dict and part.get("type") == "text" and str(part.get("content") or "").strip()
    ]
