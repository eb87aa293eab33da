"""Claude Code's and the Claude Agent SDK's own traces: `claude_code.*` spans with plain attributes.

A turn is a `claude_code.interaction` span holding the customer's text (`user_prompt`); each model
request a `claude_code.llm_request` (its `model` and token counts, no message content); each tool run a
`claude_code.tool` (`tool.name`, `tool.input` as JSON text, `tool.output`), whose
`claude_code.tool.execution` / `…blocked_on_user` children, which name no tool, are phases of the same
run, not calls. The kind may also be given as `span.type` (`interaction`, `llm_request`,
`tool_execution` naming its tool). The answer is not recorded. The spans are told by their name or
their instrumentation scope, having no mark of their own. Read from
Latitude's fixtures (`tests/corpus/peers`).
"""

from __future__ import annotations

from typing import Any

from filon.tracing.records import SpanRecord, with_attributes

NAME, LABEL = "claude_code", "Claude Code / Claude Agent SDK"
PREFIX = "claude_code."
MARKS: tuple[str, ...] = ()  # none: the spans are told by their name or their scope
SCOPES = ("claude-code", "com.anthropic.claude_code", "com.anthropic.claude_code.tracing")
SESSION = "stack.claude_code.session"  # its words: miner/core/messages.toml
CAPTURE = "stack.claude_code.capture"  # its words: miner/core/messages.toml


def _first(attrs: dict[str, Any], *keys: str) -> Any:
    return next((attrs[k] for k in keys if attrs.get(k) is not None), None)


def to_genai(span: SpanRecord) -> SpanRecord:
    """The span with the GenAI attributes its kind has (its own kept)."""
    attrs = span.attributes
    kind = str(attrs.get("span.type") or span.name.removeprefix(PREFIX))
    added: dict[str, Any] = {}
    if kind == "interaction":
        added["gen_ai.operation.name"] = "invoke_agent"
        said = _first(attrs, "user_prompt", "prompt")
        if type(said) is str and said:
            added["gen_ai.input.messages"] = [{"role": "user", "parts": [{"type": "text", "content": said}]}]
    elif kind == "llm_request":
        added["gen_ai.operation.name"] = "chat"
        for source, target in (
            ("model", "gen_ai.request.model"),
            ("input_tokens", "gen_ai.usage.input_tokens"),
            ("output_tokens", "gen_ai.usage.output_tokens"),
        ):
            if source in attrs:
                added[target] = attrs[source]
    elif kind in ("tool", "tool_execution", "tool.execution"):
        name = _first(attrs, "tool.name", "tool_name")  # a phase of the run names no tool: not a call
        if name is None:
            return span
        added["gen_ai.operation.name"] = "execute_tool"
        added["gen_ai.tool.name"] = name
        arguments = _first(attrs, "tool.input", "tool_input", "tool.parameters")
        if arguments is not None:
            added["gen_ai.tool.call.arguments"] = arguments
        result = _first(attrs, "tool.output", "tool_output", "tool.result")
        if result is not None:
            added["gen_ai.tool.call.result"] = result
    else:  # a phase of a tool run, a hook: nothing of the conversation
        return span
    return with_attributes(span, {**attrs, **added})
