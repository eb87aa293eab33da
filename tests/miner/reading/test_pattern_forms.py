"""The fact patterns written for the regex engine's speed (their first digit first, the test on what
precedes it after it; alternatives merged) find what their plain form finds: the same matches, at the same
places, as far, with the same groups, on text made of figures, units, months, capitals and separators,
past ASCII too (« ٣ », « é »)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from filon.miner.reading import facts_en, facts_fr
from filon.miner.reading.folded import Folded, ascii_source, twin

_FR_MONTHS = "|".join(facts_fr.MONTHS)
# each pattern as one would write it plainly, beside the form the module compiles
PLAIN: dict[str, tuple[re.Pattern[str] | Folded, str]] = {
    "fr AMOUNT": (facts_fr.AMOUNT, r"(\d+(?:[.,]\d{1,2})?)\s?(?:€|eur\b|euros?\b)(?:\s?(\d{2})\b)?"),
    "fr PERCENT": (facts_fr.PERCENT, r"(\d+(?:[.,]\d{1,2})?)\s?(?:%|pour ?cent\b)"),
    "fr DURATION": (facts_fr.DURATION, r"(\d+)\s?(jours?|semaines?|mois|ans?|heures?|minutes?)\b"),
    "fr NAMED_DAY": (facts_fr.NAMED_DAY, rf"\b(1er|\d{{1,2}}) ({_FR_MONTHS})(?: (\d{{4}}))?\b"),
    "fr HOUR": (facts_fr.HOUR, r"(\d(?<!\w\d)(?:(?<=[01])\d)?|2(?<!\w2)[0-3]) ?h(?: ?([0-5]\d)\b|\b)"),
    "fr TRACKING": (facts_fr._TRACKING, r"\b[A-Z0-9]{10,}\b"),
    "fr DAYS_SAID": (facts_fr.DAYS_SAID, r"\b(\d+) jours?\b"),
    "fr ISO": (facts_fr.ISO, r"\b(\d{4})-(\d{2})-(\d{2})"),
    "en PERCENT": (facts_en.PERCENT, r"(\d+(?:[.,]\d{1,2})?)\s?(?:%|percent\b|per cent\b)"),
    "en DURATION": (
        facts_en.DURATION,
        r"(\d+)\s?(?:business |working |calendar )?(days?|weeks?|months?|years?|hours?|minutes?)\b",
    ),
    "en DAY_MONTH": (
        facts_en.DAY_MONTH,
        rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{facts_en._MONTH}(?:,? (\d{{4}}))?\b",
    ),
}
PIECES = st.one_of(
    st.integers(0, 100_000).map(str),
    st.sampled_from(["1", "2", "0", "23", "24", "1er", "٣", "٢٣", "6A10563007FR", "LL", "FR", "ABCDEFGHIJ"]),
    st.sampled_from([*facts_fr.MONTHS, *facts_en.MONTHS, "dec", "sept", "jours", "jour", "days", "mois"]),
    st.sampled_from(["€", "eur", "euros", "%", "pour cent", "percent", "per cent", "business ", "st", "of "]),
    st.sampled_from([" ", " ", ",", ".", "-", "/", ":", "h", "_", "a", "é", "x", "\u00a0", "\x1c"]),
)
TEXTS = st.lists(PIECES, max_size=14).map("".join)


def _found(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


@pytest.mark.parametrize("name", sorted(PLAIN))
@settings(max_examples=400, deadline=None)
@example(text="le 1er janvier, 11er mars, 23h, 2 h, 23 h 30, 1.234,50 € et 12 jours3 jours")
@example(text="6A10563007FR É6A10563007FR x2026-12-08 2026-12-08 ٢٣ h 12 %")
@given(text=TEXTS)
def test_a_fast_form_finds_what_its_plain_form_finds(name: str, text: str) -> None:
    compiled, plain = PLAIN[name]
    written = compiled[0] if isinstance(compiled, Folded) else compiled
    assert _found(written, text) == _found(re.compile(plain), text)
    if isinstance(compiled, Folded) and twin(text):  # and the ASCII twin, where it is read
        source = ascii_source(plain)
        assert source is not None
        assert _found(compiled[1], text) == _found(re.compile(source, re.ASCII), text)
