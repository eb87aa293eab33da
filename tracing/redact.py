"""Redaction before storage: emails, phone numbers, card numbers and IBANs become stable pseudonyms.

The same value always gives the same pseudonym (HMAC-SHA256 keyed by a local secret), so two mentions
of one email stay equal and flags read the same identities after redaction as before. Pseudonyms keep
the shape of what they replace (an email stays an email) and are never redacted twice.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

from miner.emails import EMAIL, replace_emails
from miner.identities import PHONE, PHONE_GROUPED, PHONE_LEADING, grouped_shape, phone_key
from miner.settings import settings

# The patterns below begin with a character class, their "not preceded by" test just after it: Python's
# regex engine then skips ahead to candidate characters instead of trying every position (two to three
# times faster on span text); the matches are the same as with the test in front.
# An IBAN, found from its check digits, in capitals or not ("fr76 3000 …" is one too): a match begins
# after the two letters of its country, which `ibans` puts back. A pattern that begins with any letter is
# tried at every letter of the text (four times slower than one that begins with a capital), so this one
# runs only where the text's shape has an IBAN's with a small letter (`small_iban_shape`); elsewhere
# `IBAN_CAPITALS`, the same in capitals, finds them all. The country must be one that issues IBANs.
IBAN = re.compile(
    r"[0-9](?<=(?<!\w)[A-Za-z]{2}[0-9])[0-9](?:[ ]?[A-Za-z0-9]{4}){2,7}(?:[ ]?[A-Za-z0-9]{1,4})?\b"
)
# on the shape: two letters, two digits and the groups of an IBAN's account ("fr76 3000 …", "GB82 West …")
SMALL_IBAN_SHAPE = re.compile(rb"[Aa][Aa]00(?:s?[0Aa]{4}){2,7}(?:s?[0Aa]{1,4})?")
# the shape again, every letter "L" and every other character but a digit "x": an IBAN begins a word,
# "xLL00" (a hex id or a base64 blob holds letters and digits inside its words, never at their start)
_FLAT = bytearray(b"x" * 256)
_FLAT[ord("0")], _FLAT[ord("A")], _FLAT[ord("a")] = ord("0"), ord("L"), ord("L")
_LETTERS = bytes(_FLAT)
IBAN_CAPITALS = re.compile(r"[A-Z](?<!\w[A-Z])[A-Z]\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")
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


def shape_of(value: str) -> bytes | None:
    """`value`'s shape (`SHAPE`), or None when it holds digits of another script (`\\d` takes them; the
    shape does not)."""
    if not value.isascii() and OTHER_DIGIT.search(value) is not None:
        return None
    return value.encode("utf-8", "surrogatepass").translate(SHAPE)


def candidate(value: str, shape: bytes | None = None) -> bool:
    """Whether one of the four patterns could match `value`: `CANDIDATE.search(value)`, or a little more
    (six digits with separators anywhere between them; the patterns then decide)."""
    shape = shape or shape_of(value)
    if shape is None:
        return CANDIDATE.search(value) is not None
    if b"@" in shape or b"AA00" in shape:
        return True
    return b"000000" in shape.replace(b"s", b"")


def dotted_card_shape(shape: bytes | None) -> bool:
    return shape is None or b"0000s0000s0000s0" in shape or b"0000s000000s00000" in shape


SHORT = 64  # strings this short are remembered as names are
LONG, LONGEST = 512, 65_536  # strings of these lengths are remembered (up to 64 of them): system
# instructions and tool definitions repeat on every model call
PSEUDO_DOMAIN = "redacted.invalid"
PSEUDO_PHONE = "33999"


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _iban_ok(value: str) -> bool:
    compact = value.replace(" ", "").upper()
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
    if b"a" not in shape:
        return False
    flat = shape.translate(_LETTERS)  # letters one byte, separators and other characters another
    for start in _word_starts(flat):
        found = SMALL_IBAN_SHAPE.match(shape, start)
        if found is not None and b"a" in found.group():
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
        if _iban_ok(text[start:end]):
            yield start, end


def spliced(text: str, spans: Iterable[tuple[int, int]], replace: Callable[[str], str]) -> str:
    """`text` with each of `spans` (in order, apart) replaced by `replace` of what it holds."""
    parts: list[str] = []
    last = 0
    for start, end in spans:
        parts += [text[last:start], replace(text[start:end])]
        last = end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def load_secret(home: Path | None = None) -> bytes:
    """FILON_SECRET, or a random key kept (0600) in FILON_HOME/secret.key, made on first use."""
    own = settings()
    if own.secret:
        return own.secret.encode()
    path = (home or own.home_folder()) / "secret.key"
    if path.exists():
        return path.read_bytes().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32).encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    return key


class Redactor:
    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self._often: dict[str, str] = {}  # short strings: keys, names, operations, the same few on every span
        self._long: dict[str, str] = {}
        self._shared: tuple[object, Any] | None = None
        self._keyed = hmac.new(secret, digestmod=hashlib.sha256)  # copied for each value: keyed once
        self._digests: dict[str, str] = {}  # a conversation's history repeats its identities on every call

    def _digest(self, kind: str, value: str) -> str:
        """HMAC-SHA256 of "kind:value", remembered (4,096 at most, in memory only)."""
        message = f"{kind}:{value}"
        done = self._digests.get(message)
        if done is None:
            mac = self._keyed.copy()
            mac.update(message.encode())
            done = mac.hexdigest()
            if len(self._digests) >= 4096:
                self._digests.clear()
            self._digests[message] = done
        return done

    def _email(self, m: re.Match[str]) -> str:
        value = m.group(0)
        if value.lower().endswith("@" + PSEUDO_DOMAIN):
            return value
        return f"user-{self._digest('email', value.lower())[:10]}@{PSEUDO_DOMAIN}"

    def _phone(self, m: re.Match[str]) -> str:
        value = m.group(0)
        digits = phone_key(value)
        if digits is None or digits.startswith(PSEUDO_PHONE):
            return value
        tail = str(int(self._digest("phone", digits)[:12], 16))[-6:].rjust(6, "0")
        return PSEUDO_PHONE + tail

    def _card(self, m: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", m.group(0))
        if not 13 <= len(digits) <= 19 or not _luhn(digits):
            return m.group(0)
        return f"[carte-{self._digest('card', digits)[:8]}]"

    def _iban(self, value: str) -> str:
        return f"[iban-{self._digest('iban', value.replace(' ', '').upper())[:8]}]"

    def patterns(self, value: str, definition: bool = False, shape: bytes | None = None) -> str:
        """The four patterns, in this order; `text` is this, for the strings it can change. Emails are
        found around each "@" (`miner.emails`), or, with `definition`, by the plain `EMAIL.sub` the tests
        compare with; the forms only some shapes can hold (dotted cards, grouped phones) are sought
        where `shape` (the text's, `shape_of`) has them, or everywhere with `definition`."""
        if shape is None and not definition:
            shape = shape_of(value)
        value = spliced(value, ibans(value, None if definition else shape), self._iban)
        if sum(map(value.count, "0123456789")) >= CARD_DIGITS:
            value = (CARD if shape is None else CARD_ASCII).sub(self._card, value)
            if definition or dotted_card_shape(shape):
                value = CARD_DOTTED.sub(self._card, value)
        if "@" in value:
            value = EMAIL.sub(self._email, value) if definition else replace_emails(value, self._email)
        if definition:
            return PHONE.sub(self._phone, value)
        value = PHONE_LEADING.sub(self._phone, value)
        if shape is None or grouped_shape(shape):  # the forms that begin with any digit
            value = PHONE_GROUPED.sub(self._phone, value)
        return value

    def name(self, value: str) -> str:
        """`text`, remembered: for short strings, which repeat on every span (attribute keys, span and tool
        names, operations, models, channels). Held in memory only, 4,096 at most."""
        done = self._often.get(value)
        if done is None:
            done = self.text(value)
            if len(self._often) >= 4096:
                self._often.clear()
            self._often[value] = done
        return done

    def shared(self, value: Any) -> Any:
        """`value`, for an object many spans share as it is (their resource): redacted once while the same
        object comes again."""
        last = self._shared
        if last is not None and last[0] is value:
            return last[1]
        done = self.value(value)
        self._shared = (value, done)
        return done

    def text(self, value: str) -> str:
        if not value:
            return value
        if LONG <= len(value) <= LONGEST:
            long = self._long  # least recently used first: the strings that repeat stay, the others pass
            done = long.pop(value, None)
            if done is None:
                shape = shape_of(value)
                done = self.patterns(value, shape=shape) if candidate(value, shape) else value
                if len(long) >= 64:
                    with suppress(RuntimeError, KeyError, StopIteration):  # another thread evicted it
                        del long[next(iter(long))]
            long[value] = done
            return done
        shape = shape_of(value)
        return self.patterns(value, shape=shape) if candidate(value, shape) else value

    def value(self, value: Any) -> Any:
        """Any JSON value, recursively: strings are redacted, keys too."""
        kind = type(value)
        if kind is str:
            return self.name(value) if len(value) <= SHORT else self.text(value)
        if kind is dict:  # span attributes: scalars and short names nearly all, read without a call each
            often, out = self._often, {}
            for k, v in value.items():
                key = (often.get(k) or self.name(k)) if type(k) is str else self.text(str(k))
                sort = type(v)
                if sort is str:
                    out[key] = (often.get(v) or self.name(v)) if len(v) <= SHORT else self.text(v)
                elif sort is int or sort is float or sort is bool or v is None:
                    out[key] = v
                else:
                    out[key] = self.value(v)
            return out
        if kind is int or kind is float or kind is bool or value is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        return value


def personal_data(text: str) -> list[tuple[str, str]]:
    """Each IBAN, card number, email and phone number in `text` as (kind, as written), in that order
    (each found is blanked before the next kinds are sought), pseudonyms left out: what redaction
    replaces, for lint's refusal of raw personal data in a case, whatever its form."""
    found: list[tuple[str, str]] = []
    rest = text

    def take(kind: str, m: re.Match[str]) -> str:
        found.append((kind, m.group()))
        return " " * len(m.group())

    for start, end in list(ibans(rest)):
        found.append(("iban", rest[start:end]))
        rest = rest[:start] + " " * (end - start) + rest[end:]
    for card in (CARD, CARD_DOTTED):
        rest = card.sub(
            lambda m: (
                take("card", m)
                if 13 <= len(digits := re.sub(r"\D", "", m.group())) <= 19 and _luhn(digits)
                else m.group()
            ),
            rest,
        )
    rest = EMAIL.sub(  # a pseudonym is blanked too: its hex digits are no phone number
        lambda m: (
            " " * len(m.group()) if m.group().lower().endswith("@" + PSEUDO_DOMAIN) else take("email", m)
        ),
        rest,
    )
    for m in PHONE.finditer(rest):
        key = phone_key(m.group())
        if key is not None and not key.startswith(PSEUDO_PHONE):
            found.append(("phone", m.group()))
    return found


def redaction_secret(redact: bool | None = None) -> bytes | None:
    """The key to redact with, or None when redaction is off (`redact`, else FILON_REDACT)."""
    return load_secret() if (redaction_enabled() if redact is None else redact) else None


def redaction_enabled() -> bool:
    return settings().redact
