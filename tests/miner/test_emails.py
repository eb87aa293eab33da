"""Emails found only around each "@": exactly the matches of the pattern's own `finditer`, on any text."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from miner.emails import EMAIL, emails, replace_emails

PIECES = st.sampled_from(["@", ".", "-", "+", " ", "a", "B", "é", "0", "x" * 63, "y" * 70, "@@", ".fr", ","])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join) | st.text(max_size=80))
@example("écrivez à julien.robert@exemple.fr ou a@b.c.d, pas à @x ni y@")
@example("a" * 70 + "@exemple.fr " + "b@" + "c" * 64 + ".fr")
@example("x@y." + ".z" * 10 + " u@" + "v." * 9 + "w")
@example(" " + "x" * 64 + "@ab.fr, " + "y" * 65 + "@ab.fr")  # the longest local part, and one too long
@example("u@" + "a" * 63 + ("." + "b" * 63) * 8 + ".c")  # the longest domain
def test_emails_are_the_patterns_matches(text: str) -> None:
    expected = [(m.start(), m.end()) for m in EMAIL.finditer(text)]
    assert [(m.start(), m.end()) for m in emails(text)] == expected
    assert replace_emails(text, lambda m: f"<{len(m.group())}>") == EMAIL.sub(
        lambda m: f"<{len(m.group())}>", text
    )


def test_a_text_without_an_address_comes_back_as_it_is() -> None:
    text = "a" * 100_000 + " @ " + "b" * 100
    assert list(emails(text)) == [] and replace_emails(text, lambda m: "") is text
