"""The Langfuse SDK's own attributes (Python v3 and later, JS v4), as it writes each observation.

A span is the SDK's when it carries `langfuse.observation.type`. A generation has its request in
`langfuse.observation.input` (the messages as the framework gave them: LangChain's, a provider's) and its
reply in `langfuse.observation.output`, its model and usage beside them: made GenAI messages here. A
tool observation is a tool run: the span's name, its input and output. LangChain's integration inlines
a tool's definition in the prompt as a `tool` message (`{name, input_schema, description}`): a schema,
not a result, left out. The session is `session.id` on the trace (`langfuse.session.id` in older
versions), which grouping reads. Read from a Langfuse SDK test fixture (`tests/corpus/peers`).
"""

from __future__ import annotations

from typing import Any

from filon.miner.core.jsontext import parsed
from filon.tracing.conventions import shapes
from filon.tracing.records import SpanRecord, with_attributes

NAME, LABEL = "langfuse", "Langfuse SDK"
KIND = "langfuse.observation.type"
MARKS = (KIND,)
SESSION = "stack.langfuse.session"  # its words: miner/core/messages.toml
CAPTURE = "stack.langfuse.capture"  # its words: miner/core/messages.toml


def _definition(message: Any) -> bool:
    """A tool's definition inlined as a `tool` message (LangChain with Anthropic), not its result."""
    content = message.get("content") if type(message) is dict else None
    return (
        type(content) is dict and "name" in content and ("input_schema" in content or "parameters" in content)
    )


def to_genai(span: SpanRecord) -> SpanRecord:
    """The span with GenAI attributes added (its own kept)."""
    attrs = span.attributes
    kind = attrs.get(KIND)
    given = parsed(attrs.get("langfuse.observation.input"))
    returned = parsed(attrs.get("langfuse.observation.output"))
    if kind == "generation":
        if type(given) is list:
            given = [m for m in given if not _definition(m)]
        inputs, outputs = shapes.from_whole(given, returned)
        added: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": inputs,
            "gen_ai.output.messages": outputs,
        }
        if attrs.get("langfuse.observation.model.name"):
            added["gen_ai.request.model"] = attrs["langfuse.observation.model.name"]
        usage = parsed(attrs.get("langfuse.observation.usage_details"))
        if type(usage) is dict:
            for source, target in (("input", "input_tokens"), ("output", "output_tokens")):
                if type(usage.get(source)) is int:
                    added[f"gen_ai.usage.{target}"] = usage[source]
    elif kind == "tool":
        added = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": span.name,
            "gen_ai.tool.call.arguments": given,
            "gen_ai.tool.call.result": returned,
        }
    else:
        return span
    return with_attributes(span, {**attrs, **added})
