"""The patterns of the four kinds redaction replaces (IBANs, card numbers; emails and phones are
`miner.reading.emails` and `miner.reading.identities`), and the text's shape that tells, at memory speed, which of them
can match: what `tracing.redact` replaces and `tracing.personal_data` lists are found by these alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# The patterns below begin with a character class, their "not preceded by" test just after it: Python's
# regex engine then skips ahead to candidate characters instead of trying every position (two to three
# times faster on span text); the matches are the same as with the test in front.
# An IBAN, found from its check digits, in capitals or not ("fr76 3000 …" is one too): a match begins
# after the two letters of its country, which `ibans` puts back. A pattern that begins with any letter is
# tried at every letter of the text (four times slower than one that begins with a capital), so this one
# runs only where the text's shape has an IBAN's with a small letter (`small_iban_shape`); elsewhere
# `IBAN_CAPITALS`, the same in capitals, finds them all. The country must be one that issues IBANs.
IBAN = re.compile(
    r"[0-9](?<=(?<!\w)[A-Za-z]{2}[0-9])[0-9](?:[ -]?[A-Za-z0-9]{4}){2,7}(?:[ -]?[A-Za-z0-9]{1,4})?\b"
)
# on the shape: two letters, two digits and the groups of an IBAN's account ("fr76 3000 …", "GB82 West …")
SMALL_IBAN_SHAPE = re.compile(rb"[Aa][Aa]00(?:s?[0Aa]{4}){2,7}(?:s?[0Aa]{1,4})?")
# the shape again, every letter "L" and every other character but a digit "x": an IBAN begins a word,
# "xLL00" (a hex id or a base64 blob holds letters and digits inside its words, never at their start)
_FLAT = bytearray(b"x" * 256)
_FLAT[ord("0")], _FLAT[ord("A")], _FLAT[ord("a")] = ord("0"), ord("L"), ord("L")
_LETTERS = bytes(_FLAT)
IBAN_CAPITALS = re.compile(r"[A-Z](?<!\w[A-Z])[A-Z]\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,4})?\b")
_COUNTRIES = """AD AE AL AT AZ BA BE BG BH BI BR BY CH CR CY CZ DE DJ DK DO EE EG ES FI FK FO FR GB GE GI GL GR
GT HR HU IE IL IQ IS IT JO KW KZ LB LC LI LT LU LV LY MC MD ME MK MN MR MT MU NI NL NO OM PK PL PS PT QA
RO RS RU SA SC SD SE SI SK SM SO ST SV TL TN TR UA VA VG XK YE"""
IBAN_COUNTRIES = frozenset(_COUNTRIES.split())
# digits grouped by spaces or dashes, or by dots in a card's own groups (4.4.4.4, Amex's 4.6.5)
CARD = re.compile(r"\d(?<![\w-]\d)(?:[ -]?\d){12,18}(?![\w-])")
CARD_ASCII = re.compile(r"[0-9](?<![\w-][0-9])(?:[ -]?[0-9]){12,18}(?![\w-])")  # where no other digit is
CARD_DOTTED = re.compile(r"\d(?<![\w.]\d)\d{3}\.(?:\d{4}\.\d{4}\.\d{4}|\d{6}\.\d{5})(?!\w|\.\d)")
CARD_DIGITS = 13  # a card number has at least this many digits
# What any of the four needs: an "@" (emails), two capitals then two digits (IBANs), or six digits with at
# most one separator between two (phones take six at the least, "+1 1 11 11"; cards thirteen). One search
# for that passes over most strings (keys, names, prose, order numbers) without the four patterns.
CANDIDATE = re.compile(r"@|[A-Z]{2}\d{2}|\d(?:[ .-]?\d){5}")
OTHER_DIGIT = re.compile(r"[^\D0-9]")  # a decimal digit of another script: the patterns' `\d` takes it
# The first bytes of those digits' UTF-8 (Arabic-Indic to fullwidth and beyond, any Unicode version filon
# runs on: a test checks it). `OTHER_DIGIT` tests each character's category, at 8 ns a character; a
# text none of whose bytes is one of these (French and English prose: « é » is C3, « ’ » E2) cannot
# hold one, and a `bytes.translate` tells that ten times faster.
DIGIT_LEADS = frozenset((0xD9, 0xDB, 0xDF, 0xE0, 0xE1, 0xEA, 0xEF, 0xF0))
_LEADS = bytes(1 if b in DIGIT_LEADS else 0 for b in range(256))
# `CANDIDATE`, read on the text's shape: each byte of its UTF-8 made "0" (a digit), "A" (a capital), "a"
# (a small letter), "s" (a separator: space, dot, dash), "@", or "x". The regex engine steps through the text position by
# position (about 3 µs for a hundred characters, 70 for three thousand); `bytes.translate` and the
# substring tests run at memory speed, five to twenty times faster.
_SHAPE = bytearray(b"x" * 256)
for _byte in b"0123456789":
    _SHAPE[_byte] = ord("0")
for _byte in b"ABCDEFGHIJKLMNOPQRSTUVWXYZ":
    _SHAPE[_byte] = ord("A")
for _byte in b"abcdefghijklmnopqrstuvwxyz":
    _SHAPE[_byte] = ord("a")
for _byte in b" .-()":  # what separates a number's groups: "+49 (30) 12345" is a phone number too
    _SHAPE[_byte] = ord("s")
_SHAPE[ord("@")] = ord("@")
SHAPE = bytes(_SHAPE)
# Substring tests on bytes use `find`, or an int for one byte: `b"@" in shape` makes CPython 3.11 try the
# needle as an integer first and format a TypeError it then drops (about ten times `find`'s cost: the
# large spans' redaction counted 479.9 M instructions with it, 465.3 M without)
_AT, _SMALL = ord("@"), ord("a")


def shape_of(value: str) -> bytes | None:
    """`value`'s shape (`SHAPE`), or None when it holds digits of another script (`\\d` takes them; the
    shape does not)."""
    raw = value.encode("utf-8", "surrogatepass")
    if not value.isascii() and 1 in raw.translate(_LEADS) and OTHER_DIGIT.search(value) is not None:
        return None
    return raw.translate(SHAPE)


def candidate(value: str, shape: bytes | None = None) -> bool:
    """Whether one of the four patterns could match `value`: `CANDIDATE.search(value)`, or a little more
    (six digits with separators anywhere between them; the patterns then decide)."""
    shape = shape or shape_of(value)
    if shape is None:
        return CANDIDATE.search(value) is not None
    if _AT in shape or shape.find(b"AA00") != -1:
        return True
    return shape.replace(b"s", b"").find(b"000000") != -1


def dotted_card_shape(shape: bytes | None) -> bool:
    return shape is None or shape.find(b"0000s0000s0000s0") != -1 or shape.find(b"0000s000000s00000") != -1


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_ok(value: str) -> bool:
    compact = value.replace(" ", "").replace("-", "").upper()
    if compact[:2] not in IBAN_COUNTRIES:
        return False
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(ch, 36)) for ch in moved)
    return 15 <= len(compact) <= 34 and int(number) % 97 == 1


def small_iban_shape(shape: bytes) -> bool:
    """Whether `shape` has an IBAN's with a small letter in it (country or account: "fr76 …", "NL91abna…",
    "GB82 West …"), at the start of a word (a hex id's "…4ff04e009dc0b" has the letters and digits, not
    the word's start). `bytes.find` runs at memory speed; the pattern is tried only where it finds a
    letter before two digits."""
    if _SMALL not in shape:
        return False
    flat = shape.translate(_LETTERS)  # letters one byte, separators and other characters another
    for start in _word_starts(flat):
        found = SMALL_IBAN_SHAPE.match(shape, start)
        if found is not None and _SMALL in found.group():
            return True
    return False


def _word_starts(flat: bytes) -> Iterator[int]:
    """Where, in a flattened shape, a word begins with two letters and two digits."""
    if flat.startswith(b"LL00"):
        yield 0
    at = flat.find(b"xLL00")
    while at != -1:
        yield at + 1
        at = flat.find(b"xLL00", at + 1)


def ibans(text: str, shape: bytes | None = None) -> Iterator[tuple[int, int]]:
    """Where the IBANs of `text` are (start, end), checksums and countries checked. `shape` is the text's
    (`shape_of`): where it has no IBAN's shape with a small letter, capitals are enough."""
    if shape is not None and not small_iban_shape(shape):
        spans = ((m.start(), m.end()) for m in IBAN_CAPITALS.finditer(text))
    else:
        spans = ((m.start() - 2, m.end()) for m in IBAN.finditer(text))
    for start, end in spans:
        if iban_ok(text[start:end]):
            yield start, end
