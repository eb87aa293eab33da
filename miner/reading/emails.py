"""Email addresses in text, for the flags and for redaction: one pattern, found only around an "@".

The pattern's local part begins with a word character, so a plain `search` tries a match at every word
of the text and reads up to 64 characters from each: on the kilobytes of JSON a model call carries
(history, tool results) that is most of redaction's time. Every address holds exactly one "@", so
`emails` asks `str.find` for each "@" and runs the pattern only in the window one address around it
could fill; it yields exactly the matches of `EMAIL.finditer`, which the tests check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

LOCAL, LABEL, LABELS = 64, 63, 8
# the local part: word characters, dots, plus and dash, and an apostrophe after its first character
# ("jean-luc.o'neil@…"); the domain: dotted labels, or `localhost` alone ("bob@localhost");
# a quoted local part ("jean dupont"@…) and a domain written as an address (…@[192.0.2.1]) are e-mails too
EMAIL = re.compile(
    rf"(?:\"[^\"\\\n]{{1,{LOCAL - 2}}}\"|(?<![\w.+-])[\w.+-][\w.+'-]{{0,{LOCAL - 1}}})@"
    rf"(?:[\w-]{{1,{LABEL}}}(?:\.[\w-]{{1,{LABEL}}}){{1,{LABELS}}}|localhost(?![\w.-])"
    r"|\[(?:\d{1,3}(?:\.\d{1,3}){3}|IPv6:[0-9A-Fa-f:.]{2,45})\])"
)  # bounded: linear on hostile input
AFTER = LABEL + LABELS * (LABEL + 1)  # the longest domain the pattern takes


def emails(text: str) -> Iterator[re.Match[str]]:
    """The matches of `EMAIL` in `text`, left to right, without overlap, as `EMAIL.finditer` gives them."""
    done = 0
    at = text.find("@")
    while at != -1:
        found = EMAIL.search(text, max(done, at - LOCAL), at + 1 + AFTER)
        if found is not None and found.start() <= at < found.end():
            yield found
            done = found.end()
            at = text.find("@", done)
        else:
            at = text.find("@", at + 1)


def replace_emails(text: str, replace: Callable[[re.Match[str]], str]) -> str:
    """`EMAIL.sub(replace, text)`, for a function `replace` of the match."""
    parts: list[str] = []
    last = 0
    for found in emails(text):
        parts.append(text[last : found.start()])
        parts.append(replace(found))
        last = found.end()
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)
