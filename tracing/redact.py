"""Redaction before storage: emails, phone numbers, card numbers and IBANs become stable pseudonyms.

The same value always gives the same pseudonym (HMAC-SHA256 keyed by a local secret), so two mentions
of one email stay equal and flags read the same identities after redaction as before. Pseudonyms keep
the shape of what they replace (an email stays an email) and are never redacted twice.
"""

from __future__ import annotations

import fnmatch
import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from filon.miner.core.jsontext import dumps
from filon.miner.reading.emails import EMAIL, replace_emails
from filon.miner.reading.identities import PHONE, PHONE_GROUPED, PHONE_LEADING, grouped_shape, phone_key
from filon.miner.settings import settings
from filon.tracing.personal_data import PSEUDO_DOMAIN, PSEUDO_PHONE, card_digits, replaced
from filon.tracing.redact_forms import clean_document, nir_shape, nirs, odd
from filon.tracing.redact_growing import Growing
from filon.tracing.redact_patterns import (
    CARD,
    CARD_ASCII,
    CARD_DIGITS,
    CARD_DOTTED,
    candidate,
    dotted_card_shape,
    ibans,
    shape_of,
)

SHORT = 64  # strings this short are remembered as names are
LONG, LONGEST = 512, 65_536  # strings of these lengths are remembered: system instructions, tool
# definitions and a conversation's history repeat on every model call and on the spans around it
LONG_KEPT, LONG_CHARS = 1024, 8_000_000  # at most this many of them, these many characters in all (with
# their redacted forms): 64 let an agent's histories, which its model, tool and agent spans all carry,
# push each other out before they came again (its spans' redaction cost 258 M instructions, 139 M kept so)

# a document this long or shorter is first tested whole for anything to read (`clean_document`); a longer one is
# read string by string at once: no document past 4 KB of the agent's, the minimal or the tau-bench spans
# passed the test (269 tried), which cost the large spans' redaction 72 M of its 549 M instructions
CLEAN_TESTED = 4096
# a span attribute's value of `LONG` characters up to this many is also kept by the attribute's key, compared (memcmp) with
# the next span's rather than hashed: OpenInference flattens a model call's whole history into attributes
# (`llm.input_messages.3.message.content`), the same at the same keys on the conversation's next call
BY_KEY_KEPT, BY_KEY_LONGEST = 256, 16_384
NUMBER_READ = 1_000_000  # a JSON integer this large is read as text: a phone or a card written as a number
PAST_64_BITS = 2.0**63  # orjson reads an integer this large or larger as a float: its digits are lost


class _Inexact(Exception):
    """A document holds a float orjson may have made of an integer past 64 bits."""


class _Written(float):
    """A float of a document the standard library read again, taken as it was written."""


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


class _Found:
    """A value found in its plain form, as the pseudonym functions take a match."""

    def __init__(self, value: str) -> None:
        self.value = value

    def group(self, index: int = 0) -> str:
        return self.value


class Redactor:
    """`keep`: the agent's own test customers (filon.toml's `test_identities`: emails and phones, globs
    allowed), left as written: they are no one's personal data, and a case drafted from a conversation
    must give the agent the e-mail its test data knows (a pseudonym there made the agent refuse the
    customer their own order)."""

    def __init__(self, secret: bytes, keep: Iterable[str] = ()) -> None:
        self.secret = secret
        self._keep = [k.strip().lower() for k in keep if k.strip()]
        self._keep_phones = {d for k in self._keep if (d := phone_key(k)) is not None}
        self._often: dict[str, str] = {}  # short strings: keys, names, operations, the same few on every span
        self._by_key: dict[Any, tuple[str, str]] = {}  # an attribute's last value (and redacted) by its key
        self._long: dict[str, str] = {}  # least recently used first
        self._long_chars = 0  # `_long`'s keys and redacted forms, each counted (the same object twice)
        self._items: dict[bytes, Any] = {}  # a document's list items (a history's messages), as written
        self._shared: tuple[object, Any] | None = None
        # a model call's history: the previous call's, with a message or two more
        self._growing = Growing(self._list_item)
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

    def _kept(self, value: str) -> bool:
        low = value.lower()
        return any(fnmatch.fnmatchcase(low, k) for k in self._keep)

    def _email(self, m: re.Match[str] | _Found) -> str:
        value = m.group(0)
        if value.lower().endswith("@" + PSEUDO_DOMAIN) or (self._keep and self._kept(value)):
            return value
        return f"user-{self._digest('email', value.lower())[:10]}@{PSEUDO_DOMAIN}"

    def _phone(self, m: re.Match[str] | _Found) -> str:
        value = m.group(0)
        digits = phone_key(value)
        if digits is None or digits.startswith(PSEUDO_PHONE) or digits in self._keep_phones:
            return value
        tail = str(int(self._digest("phone", digits)[:12], 16))[-6:].rjust(6, "0")
        return PSEUDO_PHONE + tail

    def _card(self, m: re.Match[str] | _Found) -> str:
        digits = card_digits(m.group(0))
        return m.group(0) if digits is None else f"[carte-{self._digest('card', digits)[:8]}]"

    def _iban(self, value: str) -> str:
        return f"[iban-{self._digest('iban', value.replace(' ', '').replace('-', '').upper())[:8]}]"

    def _nir(self, value: str) -> str:
        return f"[nir-{self._digest('nir', value.replace(' ', '').upper())[:8]}]"

    def pseudonym(self, kind: str, value: str) -> str:
        """The pseudonym of one value found in its plain form (`tracing.personal_data`): the same as the
        patterns give the same value written the usual way."""
        if kind == "email":
            return self._email(_Found(value))
        if kind == "phone":
            return self._phone(_Found(value))
        if kind == "card":
            return self._card(_Found(value))
        return self._iban(value) if kind == "iban" else self._nir(value)

    def patterns(self, value: str, definition: bool = False, shape: bytes | None = None) -> str:
        """The four patterns, in this order; `text` is this, for the strings it can change. Emails are
        found around each "@" (`miner.reading.emails`), or, with `definition`, by the plain `EMAIL.sub` the tests
        compare with; the forms only some shapes can hold (dotted cards, grouped phones) are sought
        where `shape` (the text's, `shape_of`) has them, or everywhere with `definition`."""
        if definition and odd(value):  # an unusual form: read in its plain form (`tracing.personal_data`)
            return replaced(value, self.pseudonym)
        if shape is None and not definition:
            shape = shape_of(value)
        value = spliced(value, ibans(value, None if definition else shape), self._iban)
        if sum(map(value.count, "0123456789")) >= CARD_DIGITS:
            if shape is None or nir_shape(shape):
                value = spliced(value, nirs(value), self._nir)
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
            done = self._read(value) if len(value) < LONG else self.text(value)
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
        if len(value) < LONG:  # a message, a result's field: they come again on every later model call
            return self.name(value)
        if (
            len(value) > CLEAN_TESTED
            and value[0] in "[{"
            and (grown := self._growing.read(value)) is not None
        ):
            return grown  # a recent document again, or with items appended: not hashed, not kept twice
        if len(value) <= LONGEST:
            long = self._long  # least recently used first: the strings that repeat stay, the others pass
            done = long.pop(value, None)
            if done is None:
                done = self._read(value)
                before = long.pop(value, None)  # another thread read it meanwhile: counted once
                long[value] = done
                self._long_chars += len(done) + (len(value) if before is None else -len(before))
                self._evict_long()
                return done
            long[value] = done  # the most recently used now
            return done
        return self._read(value)

    def _evict_long(self) -> None:
        """The least recently used long strings out, until `_long` is within its bounds."""
        long = self._long
        while long and (len(long) > LONG_KEPT or self._long_chars > LONG_CHARS):
            try:
                oldest = next(iter(long))
                done = long.pop(oldest)
            except (RuntimeError, KeyError, StopIteration):  # another thread changed it: looked at again
                continue
            self._long_chars -= len(oldest) + len(done)
        if not long:
            self._long_chars = 0  # what threads interleaving may have miscounted starts again right

    def _read(self, value: str) -> str:
        """One string, not remembered: a JSON document part by part, any other text by the patterns."""
        if value[:1] in ("[", "{") and (document := self._document(value)) is not None:
            return document
        return self._redacted(value)

    def _document(self, value: str) -> str | None:
        """A JSON object or array (a model call's whole history, a tool's result) redacted string by
        string: each earlier message, written again in every later call's document, is then read once
        and remembered, not once per call; escapes (`\\u00a0`, `\\u0040`) are read as the characters
        they stand for. Written as it was when nothing in it changed. None: not such a document. A longer
        one is remembered, for the next that adds items to it (`tracing.redact_growing`)."""
        long = len(value) > CLEAN_TESTED
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(parsed, dict | list):
            return None
        if not long and clean_document(value, parsed):
            return value  # no string, key or number of it can hold personal data: none read one by one
        try:
            try:
                done = self._parts(parsed)
            except _Inexact:  # read again by the standard library, which keeps every integer whole
                parsed = json.loads(value, parse_float=_Written)  # orjson took it: no NaN in it
                done, long = self._parts(parsed), False
            out = value if done == parsed else dumps(done)
            if long:
                self._growing.remember(value, parsed, done, out)
            return out
        except RecursionError:  # nested hundreds deep: read as the text it is, by the patterns
            return None

    def _parts(self, value: Any) -> Any:
        kind = type(value)
        if kind is str:
            return self.text(value)
        if kind is dict:  # its members read here, a call each only for what is not remembered or scalar
            often, out = self._often, {}
            for k, v in value.items():
                key = (often.get(k) or self.text(k)) if len(k) < LONG else self.text(k)
                sort = type(v)
                if sort is str:
                    out[key] = (often.get(v) or self.text(v)) if len(v) < LONG else self.text(v)
                elif sort is bool or v is None or (sort is int and -NUMBER_READ < v < NUMBER_READ):
                    out[key] = v
                else:
                    out[key] = self._parts(v)
            return out
        if kind is list:
            return [self._item(v) if type(v) is dict else self._parts(v) for v in value]
        if kind is int and abs(value) >= NUMBER_READ:
            written = str(value)
            done = self.text(written)
            return value if done == written else done
        if kind is float and not -PAST_64_BITS < value < PAST_64_BITS:
            raise _Inexact
        return value

    def _list_item(self, value: Any) -> Any:
        return self._item(value) if type(value) is dict else self._parts(value)

    def _item(self, value: dict[str, Any]) -> Any:
        """An object in a document's list, remembered by what it is (its JSON, written in C): a model
        call's document repeats every earlier message, which is then read once and not string by string
        in each later call (4,096 at most, in memory only)."""
        try:
            key = orjson.dumps(value)
        except TypeError:  # a number past 64 bits: read as it is, not remembered
            return self._parts(value)
        done = self._items.get(key)
        if done is None:
            done = self._parts(value)
            if len(self._items) >= 4096:
                self._items.clear()
            self._items[key] = done
        return done

    def _redacted(self, value: str) -> str:
        """The usual forms by the patterns; a text with an unusual one (`tracing.redact_forms`) read in
        its plain form, each value found replaced where it is written."""
        if odd(value):
            return replaced(value, self.pseudonym)
        shape = shape_of(value)
        return self.patterns(value, shape=shape) if candidate(value, shape) else value

    def value(self, value: Any) -> Any:
        """Any JSON value, recursively: strings are redacted, keys too."""
        kind = type(value)
        if kind is str:
            return self.name(value) if len(value) <= SHORT else self.text(value)
        if kind is dict:  # span attributes: scalars and short names nearly all, read without a call each
            often, by_key, out = self._often, self._by_key, {}
            for k, v in value.items():
                key = (often.get(k) or self.name(k)) if type(k) is str else self.text(str(k))
                sort = type(v)
                if sort is str:
                    if len(v) < LONG:  # hashed: a short name, a message, a tool's call
                        out[key] = often.get(v) or self.name(v)
                        continue
                    last = by_key.get(k)  # the same attribute's value on the span before, if the same
                    if last is None or last[0] != v:  # compared, not hashed: a history repeated flattened
                        last = (v, self.text(v))
                        if len(v) <= BY_KEY_LONGEST and len(k) < LONG:
                            if len(by_key) >= BY_KEY_KEPT:
                                by_key.clear()
                            by_key[k] = last
                    out[key] = last[1]
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


def redaction_secret(redact: bool | None = None) -> bytes | None:
    """The key to redact with, or None when redaction is off (`redact`, else FILON_REDACT)."""
    return load_secret() if (redaction_enabled() if redact is None else redact) else None


def redaction_enabled() -> bool:
    return settings().redact
