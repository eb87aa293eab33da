"""The rules' patterns on folded text read ASCII text through an ASCII twin (`miner.reading.folded`): on any
text the twin is chosen for, it finds exactly what the pattern as written finds; on any other text the
pattern as written is read."""

from __future__ import annotations

import importlib
import pkgutil
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

import filon.miner.reading as reading
from filon.miner.reading import policy
from filon.miner.reading.folded import Folded, ascii_source, folded, twin


def _all_folded() -> list[Folded]:
    found: list[Folded] = []
    for info in pkgutil.iter_modules(reading.__path__):
        module = importlib.import_module(f"{reading.__name__}.{info.name}")
        found += [v for v in vars(module).values() if isinstance(v, Folded)]
    hint, subjects, predicates = policy._patterns()
    return [*found, hint, *subjects.values(), *predicates.values()]


PATTERNS = _all_folded()
# the words the patterns are written with, so that generated text meets them
WORDS = sorted({w for p in PATTERNS for w in re.findall(r"[a-z']{2,}", p.pattern.replace("\\b", " "))})
PIECES = st.one_of(
    st.sampled_from(WORDS),
    st.integers(0, 2100).map(str),
    st.sampled_from(
        [" ", " ", ", ", ". ", "/", "-", "'", "h", "%", "?", "€", "«", "»", "—", "\x1c", "\x1f", "\t"]
    ),
    st.text(st.characters(max_codepoint=0x7F), max_size=3),
)
TEXTS = st.lists(PIECES, max_size=30).map("".join)


def _found(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


def test_every_pattern_of_the_rules_has_its_twin() -> None:
    assert len(PATTERNS) > 60
    assert sum(p[1] is not p[0] for p in PATTERNS) == len(PATTERNS)  # none without a twin
    assert all(p[1].flags & re.ASCII and not p[0].flags & re.ASCII for p in PATTERNS)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
@example("votre commande est livree sous 3\x1cjours, le 12/11 a 14 h")
@example("comptez 14\x1fjours pour le remboursement « 79 € »")
def test_the_twin_finds_what_the_pattern_finds_where_it_is_chosen(text: str) -> None:
    assert twin(text) == 1
    for pattern in PATTERNS:
        assert _found(pattern[1], text) == _found(pattern[0], text), pattern.pattern
        assert pattern.findall(text) == pattern[0].findall(text)


def test_the_twin_is_chosen_only_where_no_letter_digit_or_space_is_past_ascii() -> None:
    assert twin("livree le 12/11") == 1
    assert twin("« 79 € » — sous 3 jours") == 1  # symbols: neither word characters nor spaces
    for other in ("é", "ß", "Ł", "٣", "Ａ", "\u00a0", "\u2009", "日本"):
        assert twin(f"sous 3 jours {other}") == 0, other


def test_a_text_the_twin_would_read_otherwise_is_read_by_the_pattern() -> None:
    word_start = folded(r"\bjours")
    assert word_start[1].search("ßjours") is not None  # ASCII: « ß » is no word character
    assert word_start.search("ßjours") is None  # as written: it is, no word starts at « j »
    assert word_start.findall("3 jours") == ["jours"]
    digits = folded(r"(\d+) jours")
    assert digits.search("٣ jours") is not None  # a digit of another script, as written
    assert digits.sub("N jours", "sous 3 jours") == "sous N jours"
    assert digits.split("a 2 jours b") == ["a ", "2", " b"]
    assert [m.group(1) for m in digits.finditer("1 jours, 2 jours")] == ["1", "2"]
    assert digits.match("3 jours") is not None and digits.match("x 3 jours") is None


def test_white_space_in_the_twin_holds_what_it_holds_as_written() -> None:
    assert ascii_source(r"a\sb") == r"a[\s\x1c-\x1f]b"
    assert ascii_source(r"[\s,]") == r"[\s\x1c-\x1f,]"
    assert ascii_source(r"\S+") == r"[^\s\x1c-\x1f]+"
    assert ascii_source(r"[^\S]") is None  # no class says it: no twin
    assert ascii_source(r"\\s[]\s]") == r"\\s[]\s\x1c-\x1f]"  # an escaped backslash; a class's first ]
    no_twin = folded(r"[^\S]")
    assert no_twin[1] is no_twin[0]
    assert folded(r"3\sjours").search("3\x1cjours") is not None


def test_no_twin_where_ascii_mode_would_read_otherwise() -> None:
    assert folded("ⓐ", re.IGNORECASE).search("Ⓐ") is not None  # folds in Unicode mode only
    for pattern, flags in ((r"a\sb", re.IGNORECASE), (r"a\sb", re.VERBOSE), (r"a\sb", re.ASCII)):
        assert ascii_source(pattern, flags) is None
    for pattern in (r"(?#[)a\sb", r"(?x) a # [\n \s b", r"(?a)a\sb", r"(?u)\s", r"(?i:x)"):
        assert ascii_source(pattern) is None
        built = folded(pattern)
        assert built[1] is built[0]
    assert folded(r"(?#[)a\sb").search("a b") is not None  # a comment's [ opens no class
    assert folded(r"(?a)a\sb").search("a\x1cb") is None  # ASCII as written: \x1c is no space
    assert ascii_source(r"(?:a|b)(?<!c)(?=d)(?P<e>f)\s") == r"(?:a|b)(?<!c)(?=d)(?P<e>f)[\s\x1c-\x1f]"
