"""French text folding shared by the agent's search and the scripted model's intent matching."""

from __future__ import annotations

import re
import unicodedata

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "\u00a0": " ", "\u202f": " "})
_WORD = re.compile(r"[a-z0-9]+")


def fold(text: str) -> str:
    """Lower case, no accents, straight apostrophes, plain spaces."""
    text = text.translate(_APOSTROPHES)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def words(text: str) -> list[str]:
    return _WORD.findall(fold(text))
