"""Who a text names: email addresses and phone numbers, found by one definition for the flags, drafting and
redaction alike, so that what redaction hides is what the flags count as an identity.

Phones in the forms the shop's customers write them: international (E.164, with spaces, dots, dashes or
an area code in parentheses: "+1 (415) 555-2671", "+41 79 123 45 67"), and the national forms of the
countries it delivers to: France ("06 12 34 56 78", "0612345678"), Belgium ("0470 12 34 56",
"02 123 45 67", "071 12 34 56") and Switzerland ("079 123 45 67"); "33612345678", the WhatsApp
sender's form; "00" dialled for "+" ("0033 6 12 34 56 78", "0044 20 7946 0958"); the other national
forms of ten or eleven digits in three groups ("020 7946 0958", "07700 900123"); and North America's
("(415) 555-2671", "415-555-2671", "415.555.2671", "1-212-555-0147"); Spain's mobiles ("612 34 56 78"). A number's key is its digits, a French national number in its international form (the
shop is French: "06…" and "+33 6…" are one person); pseudonyms ("33999…") are keys already.
"""

from __future__ import annotations

import re
from functools import lru_cache

from filon.miner.reading.emails import emails

# Each branch begins with a character class and its "not preceded by" test comes just after it: Python's
# engine then skips ahead to candidate characters instead of trying every position.
# Each group of an international number is atomic (`(?>…)`): a long run of digits is not tried split in
# every way into groups of one to four (a second a call on 64 KiB of them), only greedily.
_LEADING = (  # forms that begin with "+", "0" or "3": the engine skips ahead to those characters
    r"\+(?<![\w+]\+)\d{1,3}(?:(?>[ .-]?\(\d{1,4}\))|(?>[ .-]?\d{1,4})){2,6}"  # international, E.164
    r"|0(?<![\w+]0)(?:"  # national forms, the lookbehind tried once for all of them:
    r"0[1-9]\d{0,2}(?:(?>[ .-]?\(\d{1,4}\))|(?>[ .-]?\d{1,4})){2,6}"  # international, "00" for "+"
    r"|[1-9](?:[ .-]?\d{2}){4}"  # France: 0X XX XX XX XX
    r"|4\d{2}(?:[ .-]?\d{2}){3}"  # Belgium, mobiles: 04XX XX XX XX
    r"|[1-9]\d[ .-]?\d{3}(?:[ .-]?\d{2}){2}"  # Switzerland: 0XX XXX XX XX
    r"|[1-9][ .-]?\d{3}(?:[ .-]?\d{2}){2}"  # Belgium, Brussels and the like: 0X XXX XX XX
    r"|[1-9]\d(?:[ .-]?\d{2}){3}"  # Belgium, other areas: 0XX XX XX XX
    r"|[1-9]\d{1,3}[ .-]?\d{3,4}[ .-]?\d{3,4})"  # UK and the like: 020 7946 0958, 07700 900123
    r"|3(?<![\w+]3)3[1-9]\d{8}"  # 33XXXXXXXXX, as WhatsApp gives a French number
)
_GROUPED = (  # forms that begin with any digit, each with its separators: sought only where they can be
    r"\((?<![\w(]\()[2-9]\d{2}\)[ .-]?\d{3}[ .-]\d{4}"  # North America: (415) 555-2671
    r"|[2-9](?<![\w+.-][2-9])\d{2}(?:-\d{3}-|\.\d{3}\.| \d{3} )\d{4}"  # 415-555-2671, 415.555.2671
    r"|1(?<![\w+.-]1)[ .-][2-9]\d{2}[ .-]\d{3}[ .-]\d{4}"  # the same after its country code: 1-212-555-0147
    r"|[6-9](?<![\w+.-][6-9])\d{2}(?: \d{2}){3}"  # Spain: 612 34 56 78 (never how an amount is grouped)
)
_END = r"(?![\d)])"
PHONE = re.compile(f"(?:{_LEADING}|{_GROUPED}){_END}")  # the definition: every form
PHONE_LEADING = re.compile(f"(?:{_LEADING}){_END}")
PHONE_GROUPED = re.compile(f"(?:{_GROUPED}){_END}")


def grouped_shape(shape: bytes) -> bool:
    """Whether a text whose shape (`tracing.redact_patterns.SHAPE`: digits "0", separators "s") is `shape` may
    hold one of the grouped forms: three digits, a separator, four (North America); or two-digit groups
    after a separator (Spain). Substring tests: memory speed, where a pattern would step through."""
    return shape.find(b"000s0000") != -1 or shape.find(b"0s00s00s00") != -1


PHONE_MIN = 9  # "+" and eight digits, or nine: no phone number is shorter
DIGITS = re.compile(r"\D")
PHONE_DIGITS = (8, 15)  # fewer or more digits: not a phone number, whatever it looks like
_DIGIT_CHARS = "0123456789"
_OTHER_DIGIT = re.compile(r"[^\D0-9]")  # a digit of another script, which `\d` reads too


def _few_digits(text: str) -> bool:
    """Fewer digits than any phone's key holds (counted in C, a pass per digit)."""
    few = sum(map(text.count, _DIGIT_CHARS)) < PHONE_DIGITS[0]
    return few and (text.isascii() or _OTHER_DIGIT.search(text) is None)


def phone_key(raw: str) -> str | None:
    """The digits that identify a phone number, or None when `raw` has too few or too many."""
    digits = DIGITS.sub("", raw.replace("(0)", ""))  # "+33 (0)6 …": the national trunk 0, written in
    if raw.lstrip().startswith("00"):  # "0033 6 …": the international prefix dialled for "+"
        digits = digits[2:]
    if not PHONE_DIGITS[0] <= len(digits) <= PHONE_DIGITS[1]:
        return None
    if digits.startswith("0") and len(digits) == 10 and raw.lstrip()[:1] != "+":
        return "33" + digits[1:]
    return digits


def phones(text: str) -> list[str]:
    """The phone numbers in a text, as written."""
    if len(text) < PHONE_MIN:
        return []
    return PHONE.findall(text)


@lru_cache(maxsize=4096)
def identities(text: str) -> frozenset[str]:
    """Emails (lower-cased) and phone numbers (their keys) in a text. Most texts hold neither: the email
    search runs only where there is an "@"; the phone pattern skips ahead to "+", "0" and "3". Kept per
    text: the security and identity rules read the same words and results, again at each new turn."""
    found: set[str] = set()
    if "@" in text:
        found = {m.group().lower() for m in emails(text)}
    if _few_digits(text):
        return frozenset(found)  # no phone's key can be read (an order's number, a date): no pattern's pass
    for raw in phones(text):
        key = phone_key(raw)
        if key is not None:
            found.add(key)
    return frozenset(found)
