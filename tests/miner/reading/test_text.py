"""Folding: the fast path (C routines only) gives exactly what the definition gives, on any text, kept
or not."""

from __future__ import annotations

import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from filon.miner.reading.text import FOLDED_CHARS, fold, norm

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


def definition(text: str) -> str:
    """No case, no accents: Latin letters to their base, the apostrophes and spaces above made plain,
    then any other mark NFKD splits off removed."""
    table = {ord(k): v for k, v in _PUNCT.items()}
    for code in range(0xC0, 0x250):
        ch = chr(code)
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        if ch not in _PUNCT and base != ch and base.isascii():
            table[code] = base
    out = text.translate(table).lower()
    if out.isascii():
        return out
    return "".join(c for c in unicodedata.normalize("NFKD", out) if not unicodedata.combining(c))


LATIN = st.characters(min_codepoint=0x20, max_codepoint=0x24F)
ODD = st.sampled_from(list("’‘ʼ\u00a0\u202f\u0301\u034fİẞﬁ²Σςא\u0591😀Ａ\u2126\u212aḀẠ"))


@settings(max_examples=400, deadline=None)
@given(st.text(st.one_of(LATIN, ODD, st.characters()), max_size=40))
@example("Votre colis est en transit, livraison prévue demain.")
@example("JE VOUS OFFRE un BON D’ACHAT")
@example("Œuvre İstanbul ﬁn")
def test_fold_is_the_definition(text: str) -> None:
    assert fold(text) == definition(text)


@settings(max_examples=60, deadline=None)
@given(st.text(st.one_of(LATIN, ODD, st.characters()), min_size=1, max_size=40))
def test_a_long_text_whose_folding_is_not_kept_is_folded_the_same(text: str) -> None:
    long = text * (FOLDED_CHARS // len(text) + 1)
    assert len(long) >= FOLDED_CHARS
    assert fold(long) == definition(long)
    assert fold(long[: FOLDED_CHARS - 1]) == definition(long[: FOLDED_CHARS - 1])  # kept, and again
    assert fold(long[: FOLDED_CHARS - 1]) == definition(long[: FOLDED_CHARS - 1])


def test_norm_folds_and_squeezes_spaces() -> None:
    assert norm("  Délai\u00a0de   RÉTRACTATION ") == "delai de retractation"
