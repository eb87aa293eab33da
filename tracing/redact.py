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
from pathlib import Path
from typing import Any

EMAIL = re.compile(
    r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}"
)  # bounded: linear on hostile input
# The patterns below begin with a character class, their "not preceded by" test just after it: Python's
# regex engine then skips ahead to candidate characters instead of trying every position (two to three
# times faster on span text); the matches are the same as with the test in front.
IBAN = re.compile(r"[A-Z](?<!\w[A-Z])[A-Z]\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")
CARD = re.compile(r"\d(?<![\w-]\d)(?:[ -]?\d){12,18}(?![\w-])")
PHONE = re.compile(
    r"(?:\+(?<![\w+]\+)\d{1,3}[ .-]?\d(?:[ .-]?\d{2,4}){2,5}"
    r"|0(?<![\w+]0)[1-9](?:[ .-]?\d{2}){4}"
    r"|3(?<![\w+]3)3[1-9]\d{8})(?!\d)"
)
CARD_DIGITS = 13  # a card number has at least this many digits
SHORTEST = 7  # the shortest phone number the pattern takes ("+111111"); IBANs and cards are longer
DIGIT = re.compile(r"\d")
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
    compact = value.replace(" ", "")
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(ch, 36)) for ch in moved)
    return 15 <= len(compact) <= 34 and int(number) % 97 == 1


def load_secret(home: Path | None = None) -> bytes:
    """FILON_SECRET, or a random key kept (0600) in FILON_HOME/secret.key, made on first use."""
    env = os.environ.get("FILON_SECRET")
    if env:
        return env.encode()
    path = (home or Path(os.environ.get("FILON_HOME", "var"))) / "secret.key"
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

    def _digest(self, kind: str, value: str) -> str:
        return hmac.new(self.secret, f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()

    def _email(self, m: re.Match[str]) -> str:
        value = m.group(0)
        if value.lower().endswith("@" + PSEUDO_DOMAIN):
            return value
        return f"user-{self._digest('email', value.lower())[:10]}@{PSEUDO_DOMAIN}"

    def _phone(self, m: re.Match[str]) -> str:
        value = m.group(0)
        digits = re.sub(r"\D", "", value)
        if not 8 <= len(digits) <= 15 or digits.startswith(PSEUDO_PHONE):
            return value
        if digits.startswith("0") and len(digits) == 10:
            digits = "33" + digits[1:]
        tail = str(int(self._digest("phone", digits)[:12], 16))[-6:].rjust(6, "0")
        return PSEUDO_PHONE + tail

    def _card(self, m: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", m.group(0))
        if not 13 <= len(digits) <= 19 or not _luhn(digits):
            return m.group(0)
        return f"[carte-{self._digest('card', digits)[:8]}]"

    def _iban(self, m: re.Match[str]) -> str:
        value = m.group(0)
        if not _iban_ok(value):
            return value
        return f"[iban-{self._digest('iban', value.replace(' ', ''))[:8]}]"

    def text(self, value: str) -> str:
        # every pattern needs a digit or an "@", and all but the email seven characters: most strings
        # (keys, names, short values, prose) are none of those
        has_at = "@" in value
        if not has_at and (len(value) < SHORTEST or DIGIT.search(value) is None):
            return value
        value = IBAN.sub(self._iban, value)
        if sum(map(value.count, "0123456789")) >= CARD_DIGITS:
            value = CARD.sub(self._card, value)
        if has_at:
            value = EMAIL.sub(self._email, value)
        return PHONE.sub(self._phone, value)

    def value(self, value: Any) -> Any:
        """Any JSON value, recursively: strings are redacted, keys too."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        return value


def redaction_secret(redact: bool | None = None) -> bytes | None:
    """The key to redact with, or None when redaction is off (`redact`, else FILON_REDACT)."""
    return load_secret() if (redaction_enabled() if redact is None else redact) else None


def redaction_enabled() -> bool:
    return os.environ.get("FILON_REDACT", "true").lower() not in ("0", "false", "no", "off")
