"""Alternations grouped by first letter (`miner.reading.matching.by_first_letter`) match what the plain
alternation matches, at the same places, as far, with the same groups: on the patterns the rules build
with it, on generated ones, and on text made of their own words."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from filon.miner.reading.matching import alternatives, by_first_letter
from filon.miner.reading.policy import PREDICATES, SUBJECTS
from filon.miner.reading.subjects import _OF_STEM

PERSON = [
    r"human|a person|real person|someone else|somebody|supervisor|manager|representative|live agent",
    r"human agent|an agent|transfer me|humain|conseiller|une personne|quelqu'un|responsable",
]
STEMS = sorted(_OF_STEM, key=len, reverse=True)
# each as the rules wrap it: (the sources, what goes before the alternation, what goes after)
BUILT = [
    (list(PREDICATES.values()), r"\b(?:", ")"),
    *(([v], r"\b(?:", ")") for v in PREDICATES.values()),
    *(([v], r"\b(?:", r")\b") for v in SUBJECTS.values()),
    (list(SUBJECTS.values()), r"\b(?:", r")\b"),
    (STEMS, r"\b(", ")"),
    (PERSON, r"\b(?:", r")\b"),
]
WORDS = sorted({w for sources, _, _ in BUILT for s in sources for w in re.findall(r"[a-z']+", s)})
# the alternatives written as plain words, whole: « free of charge » beside « free »
PHRASES = sorted(
    {a for sources, _, _ in BUILT for s in sources for a in alternatives(s) if re.fullmatch("[a-z' ]+", a)}
)
TEXTS = st.lists(
    st.one_of(
        st.sampled_from(WORDS),
        st.sampled_from(PHRASES),
        st.sampled_from([" ", ", ", "-", "'", "s", "x", "€ "]),
    ),
    max_size=25,
).map("".join)


def _found(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


@pytest.mark.parametrize("built", range(len(BUILT)))
@settings(max_examples=150, deadline=None)
@given(text=TEXTS)
def test_the_rules_grouped_alternations_find_what_the_plain_ones_find(built: int, text: str) -> None:
    sources, before, after = BUILT[built]
    plain = re.compile(before + "|".join(sources) + after)
    grouped = re.compile(before + by_first_letter(sources) + after)
    assert _found(grouped, text) == _found(plain, text)
    assert [(m.span(), m.groups()) for m in [grouped.search(text)] if m] == [
        (m.span(), m.groups()) for m in [plain.search(text)] if m
    ]


def test_the_rules_alternations_are_grouped_and_others_left_as_written() -> None:
    """Every source the rules group has letters to group by (a source that began otherwise would leave
    the whole plain, and its saving silently gone); a capture or an alternative that may begin otherwise
    is left as written."""
    for sources, _, _ in BUILT:
        alts = [a for s in sources for a in alternatives(s)]
        assert len(alternatives(by_first_letter(sources))) == len({a[0] for a in alts}), sources
    assert by_first_letter([r"(?:a|b)c|d"]) == r"(?:a|b)c|d"
    assert by_first_letter([r"ab|a?c"]) == r"ab|a?c"
    assert by_first_letter([r"a(b)|ac"]) == r"a(b)|ac"
    assert by_first_letter([r"ab|ac|d", "ae"]) == r"a(?:b|c|e)|d"


def test_alternatives_split_only_at_the_top_level() -> None:
    assert alternatives(r"a|b(c|d)|[|]x|\|y|[]|]z|[^]|]q") == [
        "a",
        "b(c|d)",
        "[|]x",
        r"\|y",
        "[]|]z",
        "[^]|]q",
    ]


ATOMS = st.sampled_from(
    ["a", "b", "ab", "ba", "c", "a?", "b*", r"\w", "(?:a|c)", "[ab]", " ", "(?! b)", "(a)"]
)
SOURCES = st.lists(st.lists(ATOMS, min_size=1, max_size=4).map("".join), min_size=1, max_size=6).map("|".join)


@settings(max_examples=300, deadline=None)
@example(sources=["a|ab"], text="ab")  # the order within a letter kept: « free » before « free of charge »
@given(sources=st.lists(SOURCES, min_size=1, max_size=3), text=st.text("ab c", max_size=20))
def test_any_alternation_grouped_finds_what_it_found(sources: list[str], text: str) -> None:
    """On generated alternations (quantified first letters, classes, captures, lookaheads among them),
    grouped or left as written, the matches, their places, ends and groups are those of the plain one."""
    for before, after in ((r"\b(?:", ")"), ("(?:", r")\b"), ("(?:", ")")):
        plain = re.compile(before + "|".join(sources) + after)
        grouped = re.compile(before + by_first_letter(sources) + after)
        assert _found(grouped, text) == _found(plain, text)
