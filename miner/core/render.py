"""One rendering of a conversation, for `filon traces show` and the TUI alike: every line built from trace
text goes through `miner.core.untrusted`, so control characters, escape sequences and bidi controls show as
visible escapes in both, and Rich markup in a trace stays text. The TUI lays these lines out in widgets;
the CLI prints them; neither builds its own.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from filon.miner.core.model import ToolCall
from filon.miner.core.untrusted import clean, line, literal, one_line


def title(conversation_id: str, channel: str, turns: int, note: str = "") -> Text:
    return line(
        ("conversation ", "bold"),
        one_line(conversation_id),  # an id's newline would start a line of its own
        f" · {channel} · {turns} turn(s)",
        (note, "bold yellow"),
    )


def flag_line(kind: str, cause: str, severity: str, turn: int, reason: str) -> Text:
    return line((f"⚑ {kind}/{cause or '?'} ({severity}) ", "bold red"), f"turn {turn + 1}: ", reason)


def turn_head(number: int, latency_ms: float, input_tokens: int, output_tokens: int) -> str:
    """Numbers only: nothing from the trace's text."""
    return f"turn {number} · {latency_ms:.0f} ms · {input_tokens}+{output_tokens} tokens"


SPEAKER = 9  # "client > ", "agent  > "


def _continued(text: str) -> str:
    """A message's own lines indented under its speaker: a newline in what a customer typed never starts a
    line that reads as the agent's (or anyone's)."""
    return text.replace("\r\n", "\n").replace("\n", "\n" + " " * SPEAKER)


def client(text: str) -> Text:
    return line(("client > ", "cyan"), _continued(text))


def agent(text: str) -> Text:
    return line(("agent  > ", "green"), _continued(text))


def tool_title(call: ToolCall) -> str:
    """The tool's name, cleaned (the caller escapes it for its own markup, if it has one)."""
    return f"⚙ {clean(call.name)}" + (" ✗" if call.error else "")


def tool_summary(call: ToolCall, width: int = 400) -> list[Text]:
    """The call on two lines: its arguments, then its result (cut at `width` characters)."""
    style = "red" if call.error else "magenta"
    out = [
        line((f"⚙ {call.name} ", style), _json(call.arguments)),
        line(("  → " + _cut(_json(call.result), width), "dim")),
    ]
    if call.error:
        out.append(line(("  ✗ ", "red"), call.error))
    return out


def tool_detail(call: ToolCall) -> Text:
    """The call in full: arguments, the result indented, the error."""
    detail = (
        f"arguments: {_json(call.arguments)}\nresult: {json.dumps(call.result, ensure_ascii=False, indent=1)}"
    )
    if call.error:
        detail += f"\nerror: {call.error}"
    return literal(detail)


def not_captured() -> Text:
    """Said in place of the client's and the agent's lines when the stack recorded no messages."""
    return Text(
        "∅ content not captured: the stack recorded no messages for this turn (filon traces doctor)",
        style="yellow",
    )


def not_evaluated(rule: str, why: str) -> Text:
    """Said under a turn a rule could not be held to: neither a pass nor a flag."""
    return Text(f"? {rule} not evaluated: ", style="yellow").append(one_line(why))


def escalated() -> Text:
    return Text("↪ escalated to a conseiller", style="yellow")


def _cut(text: str, width: int) -> str:
    """`text` within `width` characters, a "…" saying it was cut."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
