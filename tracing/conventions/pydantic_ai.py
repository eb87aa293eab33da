"""pydantic-ai's instrumentation (`Agent.instrument_all()`), which writes the GenAI attributes itself.

One gap: a model call that failed (a 429) has no `gen_ai.input.messages`, so the customer's message is
read from the agent run's `pydantic_ai.all_messages` (GenAI messages already). pydantic-ai keeps one
`gen_ai.conversation.id` across the runs that pass their `message_history` on. Its spans come from the
`pydantic-ai` instrumentation scope. Recorded from pydantic-ai-slim 2.68 against the scripted model:
`tests/tracing/fixtures/record_pydantic_ai.py`.
"""

from __future__ import annotations

from typing import Any

from filon.miner.core.jsontext import parsed
from filon.tracing.records import SpanRecord, with_attributes

NAME, LABEL = "pydantic_ai", "pydantic-ai"
ALL_MESSAGES = "pydantic_ai.all_messages"
FINAL = "final_result"
MARKS = (ALL_MESSAGES,)
SCOPES = ("pydantic-ai",)
SESSION = "stack.pydantic_ai.session"  # its words: miner/core/messages.toml
CAPTURE = "stack.pydantic_ai.capture"  # its words: miner/core/messages.toml


def to_genai(span: SpanRecord) -> SpanRecord:
    """The agent run with the conversation so far as its input, when it has none of its own, and its
    answer: `final_result` where it is text, else the last assistant text of the run's messages."""
    attrs = span.attributes
    added: dict[str, Any] = {}
    if attrs.get(ALL_MESSAGES) and "gen_ai.input.messages" not in attrs:
        added["gen_ai.input.messages"] = attrs[ALL_MESSAGES]
    if "gen_ai.output.messages" not in attrs and (attrs.get(FINAL) or attrs.get(ALL_MESSAGES)):
        final = attrs.get(FINAL)
        text = final if type(final) is str and final.strip() else _last_answer(attrs.get(ALL_MESSAGES))
        if text:
            added["gen_ai.output.messages"] = [
                {"role": "assistant", "parts": [{"type": "text", "content": text}]}
            ]
    return with_attributes(span, {**attrs, **added}) if added else span


def _last_answer(value: Any) -> str:
    found = parsed(value)
    for message in reversed(found if type(found) is list else []):
        if type(message) is dict and message.get("role") == "assistant":
            texts = [
                p.get("content")
                for p in message.get("parts") or []
                if type(p) is dict and p.get("type") == "text"
            ]
            if texts and all(type(t) is str for t in texts):
                return "".join(str(t) for t in texts)
    return ""
