"""Text from traces is untrusted: shown literally, never interpreted, in the TUI and on the command line alike.

Rich markup (`[bold red]`, `[link=…]`) stays text because everything goes through `rich.text.Text`,
which never parses markup; control characters (ANSI escapes, carriage returns, bells) become visible
`\\x1b`-style escapes so they cannot move the cursor or recolour the terminal; long lines fold.
"""

from __future__ import annotations

import re

from rich.text import Text

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def clean(value: object) -> str:
    """Control and bidi-override characters made visible; the rest untouched (right-to-left text stays)."""
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), str(value))


def literal(value: object, style: str = "") -> Text:
    return Text(clean(value), style=style, overflow="fold")


def line(*parts: tuple[object, str] | object) -> Text:
    """Text.assemble for untrusted parts: (value, style) pairs or bare values, all cleaned."""
    out = Text(overflow="fold")
    for part in parts:
        if isinstance(part, tuple):
            value, style = part
            out.append(clean(value), style=style)
        else:
            out.append(clean(part))
    return out
