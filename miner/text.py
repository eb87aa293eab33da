"""filon's text folding, for flags and the grader: no case, no accents, straight apostrophes, plain spaces.

The agent has its own (`agent/text.py`): it is the product under observation, and filon's judgement of
its words must not depend on the agent's code.
"""

from __future__ import annotations

import unicodedata

_FOLD = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "\u00a0": " ", "\u202f": " "})


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def norm(text: str) -> str:
    """`fold`, with runs of white space made one space: what text checks compare."""
    return " ".join(fold(text).split())
