"""Where personal data is in a text, by kind: the definition both redaction's unusual forms and lint's
refusal of raw personal data in a case read (`tracing.redact` replaces the usual forms faster, with the
same patterns).

The kinds are found in this order, each blanked before the next is sought: IBANs, French social security
numbers (NIR), card numbers (never a SIRET), e-mails, phones. A text with a form the patterns do not read
as written (a no-break space, an en dash, fullwidth digits, percent-encoding, « [at] »: `redact_forms`)
is read in its plain form, and what is found there is placed back on the text as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from filon.miner.reading.emails import EMAIL
from filon.miner.reading.identities import PHONE, phone_key
from filon.tracing.redact_forms import nirs, odd, siret, unfold
from filon.tracing.redact_patterns import CARD, CARD_DOTTED, ibans, luhn

PSEUDO_DOMAIN = "redacted.invalid"
PSEUDO_PHONE = "33999"

Found = tuple[str, int, int]  # (kind, start, end)

# A phone pseudonym written among other digits ("0000 33999271803 0000") is no card's part: the digits
# around it may pass Luhn once the real number became the pseudonym, and redacting twice must redact once.
_PHONE_PSEUDONYM = re.compile(rf"(?<!\d){PSEUDO_PHONE}\d{{6}}(?!\d)")


def pseudonymous(value: str) -> bool:
    """Whether a value is one redaction wrote (an e-mail at `PSEUDO_DOMAIN`, a phone `PSEUDO_PHONE` and
    six digits): no agent replayed on its own data will ever say it."""
    return PSEUDO_DOMAIN in value.lower() or _PHONE_PSEUDONYM.fullmatch(value.strip().lstrip("+")) is not None


def card_digits(written: str) -> str | None:
    """A card number's digits, or None where these are no card's (a length, Luhn, a SIRET)."""
    if _PHONE_PSEUDONYM.search(written):
        return None
    digits = re.sub(r"\D", "", written)
    if not 13 <= len(digits) <= 19 or not luhn(digits) or siret(digits):
        return None
    return digits


def _spans(text: str) -> list[Found]:
    """The personal data of a text the patterns read as written, pseudonyms left out, in text order."""
    found: list[Found] = []
    rest = text

    def blank(kind: str, start: int, end: int) -> None:
        nonlocal rest
        found.append((kind, start, end))
        rest = rest[:start] + " " * (end - start) + rest[end:]

    for start, end in list(ibans(rest)):
        blank("iban", start, end)
    for start, end in list(nirs(rest)):
        blank("nir", start, end)
    for card in (CARD, CARD_DOTTED):
        for m in list(card.finditer(rest)):
            if card_digits(m.group()) is not None:
                blank("card", m.start(), m.end())
    for m in list(EMAIL.finditer(rest)):  # a pseudonym is blanked too: its hex digits are no phone number
        if m.group().lower().endswith("@" + PSEUDO_DOMAIN):
            rest = rest[: m.start()] + " " * len(m.group()) + rest[m.end() :]
        else:
            blank("email", m.start(), m.end())
    for m in PHONE.finditer(rest):
        key = phone_key(m.group())
        if key is not None and not key.startswith(PSEUDO_PHONE):
            found.append(("phone", m.start(), m.end()))
    return sorted(found, key=lambda f: f[1])


def personal_spans(text: str) -> list[tuple[str, str, int, int]]:
    """Each piece of personal data in `text`: (kind, its plain value, start, end in `text`)."""
    if not odd(text):
        return [(kind, text[s:e], s, e) for kind, s, e in _spans(text)]
    plain, where = unfold(text)
    return [(kind, plain[s:e], where[s], where[e]) for kind, s, e in _spans(plain)]


def personal_data(text: str) -> list[tuple[str, str]]:
    """Each IBAN, NIR, card number, email and phone number in `text` as (kind, as written): what
    redaction replaces, for lint's refusal of raw personal data in a case, whatever its form."""
    return [(kind, text[s:e]) for kind, _, s, e in personal_spans(text)]


def replaced(text: str, pseudonym: Callable[[str, str], str]) -> str:
    """`text` with each piece of personal data replaced by `pseudonym(kind, plain value)`."""
    parts: list[str] = []
    last = 0
    for kind, value, start, end in personal_spans(text):
        if start < last:
            continue  # two forms over one place: the first stands
        parts += [text[last:start], pseudonym(kind, value)]
        last = end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)
