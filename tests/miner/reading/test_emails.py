"""Emails found only around each "@": exactly the addresses a plain scanner written here finds (an oracle
that shares nothing with the module's pattern), and exactly the pattern's own `finditer`, on any text."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from filon.miner.reading.emails import EMAIL, emails, replace_emails


def _local(ch: str) -> bool:
    return ch.isalnum() or ch in "_.+-"


def _label(ch: str) -> bool:
    return ch.isalnum() or ch in "_-"


def _run(text: str, at: int, ok: object) -> int:
    """The length of the run of characters `ok` accepts, from `at`."""
    end = at
    while end < len(text) and ok(text[end]):  # type: ignore[operator]
        end += 1
    return end - at


def scanned(text: str) -> list[tuple[int, int]]:
    """Addresses by the definition, read character by character: a local part of 1 to 64 characters
    (letters, digits, _ . + -) starting where no such character precedes it and ending at an "@"; then a
    domain of 2 to 9 labels (letters, digits, _ -) of at most 63 characters, dot-separated; a label
    longer than 63 ends the address after its 63rd character, unless it is the first one."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        if not _local(text[i]) or (i > 0 and _local(text[i - 1])):
            i += 1
            continue
        local = _run(text, i, _local)
        at = i + local
        first = _run(text, at + 1, _label) if at < len(text) and text[at] == "@" else 0
        if not (1 <= local <= 64 and 1 <= first <= 63):
            i += max(local, 1)
            continue
        end, labels = at + 1 + first, 1
        while labels < 9 and end < len(text) and text[end] == "." and _run(text, end + 1, _label):
            size = _run(text, end + 1, _label)
            end, labels = end + 1 + min(size, 63), labels + 1
            if size > 63:
                break
        if labels == 1:
            i += local
            continue
        out.append((i, end))
        i = end
    return out


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
    assert [(m.start(), m.end()) for m in emails(text)] == expected == scanned(text)
    assert replace_emails(text, lambda m: f"<{len(m.group())}>") == EMAIL.sub(
        lambda m: f"<{len(m.group())}>", text
    )


def test_a_text_without_an_address_comes_back_as_it_is() -> None:
    text = "a" * 100_000 + " @ " + "b" * 100
    assert list(emails(text)) == [] and replace_emails(text, lambda m: "") is text
