"""filon's text folding, for flags and the grader: no case, no accents, straight apostrophes, plain spaces.

The agent has its own (`agent/text.py`): it is the product under observation, and filon's judgement of
its words must not depend on the agent's code. Folding runs on every turn the sampler decides, so the
common case (Latin text) is one `str.lower` for ASCII, one `str.translate` otherwise; only other scripts pay for Unicode decomposition.
"""

from __future__ import annotations

import re
import unicodedata

_PUNCT = {
    "’": "'",
    "‘": "'",
    "ʼ": "'",
    "\u00a0": " ",
    "\u202f": " ",
    "œ": "oe",
    "Œ": "oe",
    "æ": "ae",
    "Æ": "ae",
}


def _latin_table() -> dict[int, str]:
    table = {ord(k): v for k, v in _PUNCT.items()}
    for code in range(0xC0, 0x250):
        ch = chr(code)
        if ch in _PUNCT:
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        if base != ch and base.isascii():
            table[code] = base
    return table


_TABLE = _latin_table()
# after lower-casing: the characters `_PUNCT` maps, and the Latin letters NFKD splits into ASCII and accents
_SPECIAL = tuple((k, v) for k, v in _PUNCT.items() if k == k.lower())
_ACCENTED = "".join(
    chr(c)
    for c in range(0xC0, 0x250)
    if chr(c) not in _PUNCT
    and all(x.isascii() or unicodedata.combining(x) for x in unicodedata.normalize("NFKD", chr(c)))
    and not unicodedata.normalize("NFKD", chr(c)).isascii()
)
_OTHER = re.compile(f"[^\\x00-\\x7f{re.escape(_ACCENTED)}]")


def fold(text: str) -> str:
    if text.isascii():
        return text.lower()
    out = text.lower()
    if _OTHER.search(out) is not None:  # a character NFKD does not bring to ASCII: typographic first
        for special, plain in _SPECIAL:
            if special in out:
                out = out.replace(special, plain)
        if _OTHER.search(out) is not None:
            return _fold_table(text)
    # French and most Latin text: C routines only
    return unicodedata.normalize("NFKD", out).encode("ascii", "ignore").decode("ascii")


def _fold_table(text: str) -> str:
    """The definition: the Latin table, lower case, then NFKD without combining marks."""
    out = text.translate(_TABLE).lower()
    if out.isascii():
        return out
    decomposed = unicodedata.normalize("NFKD", out)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def norm(text: str) -> str:
    """`fold`, with runs of white space made one space: what text checks compare."""
    return " ".join(fold(text).split())
