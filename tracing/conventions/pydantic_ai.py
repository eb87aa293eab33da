"""pydantic-ai's instrumentation (`Agent.instrument_all()`), which writes the GenAI attributes itself.

One gap: a model call that failed (a 429) has no `gen_ai.input.messages`, so the customer's message is
read from the agent run's `pydantic_ai.all_messages` (GenAI messages already). pydantic-ai keeps one
`gen_ai.conversation.id` across the runs that pass their `message_history` on. Its spans come from the
`pydantic-ai` instrumentation scope. Recorded from pydantic-ai-slim 2.68 against the scripted model:
`tests/tracing/fixtures/record_pydantic_ai.py`.
"""

from __future__ import annotations

from tracing.records import SpanRecord, with_attributes

NAME, LABEL = "pydantic_ai", "pydantic-ai"
ALL_MESSAGES = "pydantic_ai.all_messages"
MARKS = (ALL_MESSAGES,)
SCOPES = ("pydantic-ai",)
SESSION = "pass message_history from one run to the next (pydantic-ai keeps one gen_ai.conversation.id)"
CAPTURE = "InstrumentationSettings(include_content=True) (its default)"


def to_genai(span: SpanRecord) -> SpanRecord:
    """The agent run with the conversation so far as its input, when it has none of its own."""
    attrs = span.attributes
    if attrs.get(ALL_MESSAGES) and "gen_ai.input.messages" not in attrs:
        return with_attributes(span, {**attrs, "gen_ai.input.messages": attrs[ALL_MESSAGES]})
    return span
