"""Text from traces is untrusted: shown literally, never interpreted, in the TUI and on the command line alike.

Rich markup (`[bold red]`, `[link=…]`) stays text because everything goes through `rich.text.Text`,
which never parses markup; control characters (ANSI escapes, carriage returns, bells) become visible
`\\x1b`-style escapes so they cannot move the cursor or recolour the terminal; long lines fold.
"""

from __future__ import annotations

import re

from rich.text import Text

# controls, C1 controls, zero-width and bidi controls, and the separators and marks that do not show
# (U+061C, U+2028, U+2029, U+2060, U+FEFF): made visible wherever trace text is shown
_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]"
)
_BREAKS = re.compile(r"[\t\n]")


def clean(value: object) -> str:
    """Control and bidi-override characters made visible; the rest untouched (right-to-left text stays)."""
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), str(value))


def one_line(value: object) -> str:
    """`clean`, and a newline or tab made visible too: for what must stay on its line (an id in a table
    row, a tool's name), where a newline would draw a row of its own."""
    return _BREAKS.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), clean(value))


_SHOWN = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[nt])")


def as_typed(shown: str) -> str:
    """The value a person copied from filon's output back as stored: the escapes `one_line` wrote for a
    control, bidi or break character (« \\x1b », « \\u202e », « \\n ») turned back into it, and only
    those (a backslash before anything else stays). `filon traces show 'web:\\x1b[31mred'` then opens
    the conversation `traces list` showed so."""

    def back(m: re.Match[str]) -> str:
        char = m.group(0).encode("ascii").decode("unicode_escape")
        return char if _CONTROL.match(char) or _BREAKS.match(char) else m.group(0)

    return _SHOWN.sub(back, shown) if "\\" in shown else shown


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
