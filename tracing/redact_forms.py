"""The forms people write personal data in that the four patterns do not read as written: brought to a
plain form, with each plain character's place in the text, so that what is found there is replaced in
the text itself.

French text writes a phone with no-break or narrow no-break spaces (« 06 12 34 56 78 »), a form pasted
from a page may use fullwidth digits, an en dash, slashes or underscores between groups, a number broken
across two lines, a prefix in parentheses (« (+33) 6 … ») or dotted (« +32. 475 … »); a value copied from a
URL is percent-encoded (`tel%3A%2B336…`, `jean%40free.fr`); an e-mail is hidden from robots (« jean [at]
free [dot] fr », « jean arobase free point fr »). `unfold` rewrites these, and only these; most texts hold
none (`odd`, one search) and never pay for it. A French social security number (NIR: sex, year, month,
department, commune, order, and a key that is 97 minus the number modulo 97) is a fifth kind, found by
`nirs`; a SIRET (a company's 14 digits, which always pass Luhn) is not a card (`siret`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from filon.tracing.redact_patterns import candidate

# what is odd in a text: a character the patterns do not take as a separator or a digit; a percent-encoded
# "@", "+" or ":"; a separator they do not take between two digits; a prefix in parentheses or dotted; an
# e-mail written for humans only. Each is sought only where a substring test (memory speed) allows it.
_ODD_CHARS = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000\u2010-\u2015\u2212\uff01-\uff5e]")
_ODD_PERCENT = re.compile(r"%(?:40|2[bB]|3[aA])")
# the separator first (a class the engine skips ahead to), the digit before it looked behind for
_ODD_BETWEEN = re.compile(
    r"[/_](?<=\d[/_])\d{1,4}[/_]\d{1,4}[/_]\d"  # four groups at least: a date's three are no number
    r"|\n(?:(?<=\d\n)|(?<=\d \n)|(?<=\d\r\n))[ ]?\d"  # a number broken over two lines
)
_ODD_PREFIX = re.compile(r"\(\+\d|\+\d{1,3}\.\s")
_ODD_WORDS = re.compile(
    r"[\[({]\s*(?:at|arobase|dot|point)\s*[\])}]|\barobase\b|\sat\s+[\w-]+\s+dot\s", re.IGNORECASE
)
_SPACES = frozenset(
    "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
)
_DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212")
_PERCENT = {"40": "@", "2b": "+", "3a": ":", "20": " ", "2e": ".", "2d": "-", "5f": "_"}
# rewrites on the text the characters were made plain in: (pattern, what it becomes)
_AT = re.compile(r"\s*[\[({]\s*(?:at|arobase)\s*[\])}]\s*|\s+arobase\s+", re.IGNORECASE)
_DOT = re.compile(r"\s*[\[({]\s*(?:dot|point)\s*[\])}]\s*", re.IGNORECASE)
_WORDS = re.compile(r"(?<=\w)\s+at\s+(?=[\w-]+\s+dot\s+\w)", re.IGNORECASE)  # john at example dot com
_WORD_DOT = re.compile(r"(?<=\w)\s+(?:dot|point)\s+(?=\w)", re.IGNORECASE)  # after an "@" only
_BETWEEN = re.compile(r"(?<=\d)[ ]*(?:[/_]|\r?\n)[ ]*(?=\d)")  # 06/12/34…, 06_12…, a number broken over lines
_PREFIX = re.compile(r"\(\+(\d{1,3})\)|(?<=\+\d)\.\s|(?<=\+\d\d)\.\s|(?<=\+\d\d\d)\.\s")


# the text's ASCII read for what is odd, at memory speed: digits "0", the separators the patterns do not
# take "/", brackets "[" and "]", letters "a", a space " ", anything else "x"
_ODD_TABLE = bytearray(b"x" * 256)
for _byte in b"0123456789":
    _ODD_TABLE[_byte] = ord("0")
for _byte in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ":
    _ODD_TABLE[_byte] = ord("a")
for _byte in b"/_\n\r":
    _ODD_TABLE[_byte] = ord("/")
for _byte in b"[({":
    _ODD_TABLE[_byte] = ord("[")
for _byte in b"])}":
    _ODD_TABLE[_byte] = ord("]")
_ODD_TABLE[ord(" ")] = ord(" ")
ODD_TABLE = bytes(_ODD_TABLE)
_BRACKET = ord("[")  # an int, not b"[": see `redact_patterns._AT`
# in that reading: a word of two letters in brackets (« [at] », « ( at ) »)
_ODD_SHAPE = re.compile(rb"\[ ?aa ?\]")


def odd(text: str) -> bool:
    """Whether `text` holds a form `unfold` would rewrite; most texts hold none, and pay one translation
    and a few substring tests (memory speed), no search."""
    if not text.isascii():
        if _ODD_CHARS.search(text) is not None:
            return True
        read = text.encode("utf-8", "surrogatepass").translate(ODD_TABLE)
    else:
        read = text.encode("ascii").translate(ODD_TABLE)
    if "%" in text and _ODD_PERCENT.search(text) is not None:
        return True
    if "+" in text and _ODD_PREFIX.search(text) is not None:
        return True
    if "@" in text and ('"@' in text or "@[" in text):
        return True
    if (read.find(b"0/") != -1 or read.find(b"0 /") != -1) and _ODD_BETWEEN.search(text) is not None:
        return True
    if _BRACKET in read and _ODD_SHAPE.search(read) is not None and _ODD_WORDS.search(text) is not None:
        return True
    return ("robase" in text or "ROBASE" in text or " dot " in text) and _ODD_WORDS.search(text) is not None


def _plain_chars(text: str) -> tuple[str, list[int]]:
    """Spaces, dashes and fullwidth characters made plain, percent-encoding decoded: the text and, for
    each of its characters and its end, where it began in `text`."""
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "%" and text[i + 1 : i + 3].lower() in _PERCENT:
            out.append(_PERCENT[text[i + 1 : i + 3].lower()])
            where.append(i)
            i += 3
            continue
        if ch in _SPACES:
            ch = " "
        elif ch in _DASHES:
            ch = "-"
        elif "\uff01" <= ch <= "\uff5e":  # fullwidth ASCII: "０６", "＋", "＠"
            ch = chr(ord(ch) - 0xFEE0)
        out.append(ch)
        where.append(i)
        i += 1
    where.append(n)
    return "".join(out), where


def _rewrite(
    text: str, where: list[int], pattern: re.Pattern[str], into: str | None
) -> tuple[str, list[int]]:
    """`pattern`'s matches replaced by `into` (None: the match's first group with a "+"), places kept:
    each new character takes the place of the match's start, the match's end its end."""
    out: list[str] = []
    places: list[int] = []
    last = 0
    for m in pattern.finditer(text):
        out.append(text[last : m.start()])
        places += where[last : m.start()]
        new = into if into is not None else (f"+{m.group(1)}" if m.group(1) else " ")
        out.append(new)
        places += [where[m.start()]] * len(new)
        last = m.end()
    if not out:
        return text, where
    out.append(text[last:])
    places += where[last:]
    return "".join(out), places


def unfold(text: str) -> tuple[str, list[int]]:
    """`text` in the form the patterns read, and for each character (and the end) its place in `text`:
    a value found at [s, e) in the plain text is `text[where[s]:where[e]]`."""
    plain, where = _plain_chars(text)
    for pattern, into in (
        (_BETWEEN, "-"),
        (_PREFIX, None),
        (_AT, "@"),
        (_WORDS, "@"),
        (_DOT, "."),
        (_WORD_DOT, "."),
    ):
        if pattern is _WORD_DOT and "@" not in plain:
            continue
        if pattern.search(plain) is not None:
            plain, where = _rewrite(plain, where, pattern, into)
    return plain, where


# a NIR: sex (1, 2, or 3, 7, 8 for a temporary one), year, month (01-12, or 20-42 and 50-99 when unknown),
# department (two digits, 2A or 2B for Corsica, three overseas), commune, order, key; spaced or not
NIR = re.compile(
    r"[1-478](?<![\w-][1-478])[ ]?\d{2}[ ]?(?:0[1-9]|1[0-2]|[2-9]\d)[ ]?(?:\d{2}|2[AaBb])[ ]?\d{3}"
    r"[ ]?\d{3}[ ]?\d{2}(?![\w-])"
)


def nir_ok(value: str) -> bool:
    """Whether a NIR's key is right: 97 minus its first 13 digits modulo 97 (Corsica's 2A, 2B as 19, 18)."""
    compact = value.replace(" ", "").upper()
    if len(compact) != 15:
        return False
    body, key = compact[:13], compact[13:]
    if "A" in body or "B" in body:
        number = int(body.replace("2A", "19").replace("2B", "18"))
        number -= 1_000_000 if "2A" in body else 2_000_000
    elif body.isdigit():
        number = int(body)
    else:
        return False
    return key.isdigit() and 97 - number % 97 == int(key)


def nirs(text: str) -> Iterator[tuple[int, int]]:
    """Where the NIRs of `text` are (start, end), keys checked."""
    for m in NIR.finditer(text):
        if nir_ok(m.group()):
            yield m.start(), m.end()


def nir_shape(shape: bytes) -> bool:
    """Whether a text of this shape (`tracing.redact_patterns.SHAPE`) may hold a NIR: its first groups
    spaced, or thirteen digits in a row (substring tests, memory speed)."""
    return shape.find(b"0s00s00s") != -1 or shape.find(b"0000000000000") != -1


def siret(digits: str) -> bool:
    """Whether 14 digits are a company's SIRET rather than a card: a 14-digit card is a Diners Club one,
    and begins with 3."""
    return len(digits) == 14 and not digits.startswith("3")


def clean_document(value: str, parsed: Any) -> bool:
    """Whether a JSON document (`value`, as sent; `parsed`, read) holds nothing the patterns or the
    unusual forms could read in any of its strings or keys: the tests `Redactor._redacted` makes on one
    string, made on all of them at once. A test true of one string is true of the text that holds it.
    - First on `value` as sent: a figure or an "@" (most real documents: a date, a version) sends it to
      be read string by string (an escape's digits, `\\u00e9`, may make this wrong, never unsafe).
    - With no escape, that is all: its strings are its own characters.
    - With escapes, the same tests again on the document as orjson writes it (every character as itself
      but the escapes of a quote, a backslash and control characters), whose escapes of what the tests
      read (a line break or a tab between digits or words, a quote before an "@") are put back first: a
      `\\u0040` is an "@". A control character orjson writes as `\\u00..`, `\\b` or `\\f` (a vertical tab
      before " dot ", found by an independent review) sends the document to be read string by string.
    """
    if candidate(value):
        return False
    if "\\" in value:
        value = orjson.dumps(parsed).decode()
        if candidate(value) or "\\u00" in value or "\\b" in value or "\\f" in value:
            return False
        value = value.replace("\\n", "\n").replace("\\r", "\r").replace("\\t", "\t").replace('\\"', '"')
    return not odd(value)
