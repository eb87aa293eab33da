"""The rules' patterns on folded text, each compiled twice: as written, and as its ASCII twin.

Why: in Unicode mode the regex engine tests `\\w`, `\\d` and `\\b` by a call per character into the Unicode
tables (`_PyUnicode_IsAlpha`, `_PyUnicode_ToDecimalDigit`), in ASCII mode in line; folding leaves most
Latin text ASCII, and the flag rules run some seventy patterns over each answer and what the agent saw
(with the twins, 7 % fewer instructions on the agent's French spans, 16 % on tau-bench's English ones).
The twin is read where no character of the text past ASCII is a letter, a digit or a space (« », € and
— are none, in either mode: `twin`). There it finds exactly what the pattern finds: `\\d` is [0-9] and
`\\w` [a-zA-Z0-9_] in both modes, `\\W` and `\\D` their complements; `\\s`, which in Unicode mode also
holds the separators \\x1c-\\x1f, holds them in the twin too (`\\S` the same, outside a class). A
case-insensitive, verbose or inline-flagged pattern has no twin (`ascii_source`). Any other text is read
by the pattern as written: nothing a rule reads changes, on any text (`tests/miner/reading/test_folded.py`;
and a reviewer's brute force over every BMP character the twin is chosen for, 2026-12-07).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

_SPACE = r"\s\x1c-\x1f"  # Unicode `\s` on ASCII characters, written for a class
_BEYOND = re.compile(r"[^\W\x00-\x7f]|[^\S\x00-\x7f]")  # a letter, a digit or a space past ASCII
SEEN_KEPT, SEEN_CHARS = 256, 4096  # non-ASCII texts whose answer is kept, each under SEEN_CHARS: the same
# answer and customer words, read by every rule (a long text, what the agent saw, is read by cached readings)


def twin(text: str) -> int:
    """1 where the ASCII twins read `text` as the patterns do (no character past ASCII is a word
    character or white space: « », €, — are neither, in both modes), else 0: the index of `Folded`."""
    if text.isascii():
        return 1
    if len(text) < SEEN_CHARS:
        return 1 if _no_word_beyond(text) else 0
    return 1 if _BEYOND.search(text) is None else 0


@lru_cache(maxsize=SEEN_KEPT)
def _no_word_beyond(text: str) -> bool:
    return _BEYOND.search(text) is None


_FLAGGED = re.compile(r"\(\?[aiLmsux#-]")  # an inline flag or a comment: `(?i)`, `(?x:…)`, `(?#…)`
_NO_TWIN = re.ASCII | re.IGNORECASE | re.VERBOSE | re.UNICODE  # ASCII already; or read otherwise


def ascii_source(pattern: str, flags: int = 0) -> str | None:
    """`pattern` with `\\s` and `\\S` written so that, compiled ASCII, they hold what they hold in Unicode
    mode on ASCII text; None where no twin is made: a `\\S` inside a class (no class can say it), a pattern
    ASCII already, case-insensitive (« ⓐ » matches « Ⓐ » in Unicode mode only, and neither is a word
    character), verbose or with a comment (a `[` there is no class), or with any inline flag."""
    if flags & _NO_TWIN or _FLAGGED.search(pattern):
        return None
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt == "s":
                out.append(_SPACE if in_class else f"[{_SPACE}]")
            elif nxt == "S":
                if in_class:
                    return None
                out.append(f"[^{_SPACE}]")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
            out.append(c)
            i += 1
            for lead in ("^", "]"):  # a class's first `]` (after its `^`) is a character of it
                if pattern.startswith(lead, i):
                    out.append(lead)
                    i += 1
            continue
        if c == "]" and in_class:
            in_class = False
        out.append(c)
        i += 1
    return "".join(out)


class Folded(tuple[re.Pattern[str], re.Pattern[str]]):
    """A pattern read on folded text: the pattern as written, and its ASCII twin (`Folded[1]`), with
    `re.Pattern`'s reading methods, each on the twin when `twin(text)`. A reading that runs many patterns
    over one text asks once and indexes (`DURATION[k].finditer(plain)`, with `k = twin(plain)`): a tuple's
    item, no call of a Python method per pattern."""

    __slots__ = ()

    def __new__(cls, pattern: str, flags: int = 0) -> Folded:
        written = re.compile(pattern, flags)
        source = ascii_source(pattern, flags)
        return super().__new__(
            cls, (written, written if source is None else re.compile(source, flags | re.ASCII))
        )

    @property
    def pattern(self) -> str:
        return self[0].pattern

    def __repr__(self) -> str:
        return f"folded({self.pattern!r})"

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self[twin(string)].search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self[twin(string)].match(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self[twin(string)].finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self[twin(string)].findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self[twin(string)].sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self[twin(string)].split(string, maxsplit)


def folded(pattern: str, flags: int = 0) -> Folded:
    """`pattern` compiled for folded text (`Folded`): what `re.compile` gives, read faster on ASCII text."""
    return Folded(pattern, flags)
