"""The facts an English answer states, read as `miner.reading.grounding` reads French ones.

An agent that is not the shop may speak English: « Your order shipped yesterday », « in 5 to 8 business
days », « $12.50 », « on December 6th », « it is in transit with UPS ». Each fact comes out with the same
kind and value as its French counterpart (a duration's unit as `jour`, `semaine`…, a status as the
French key), so that one `grounded` looks it up in what the agent saw, whatever the language. Read on
text folded by `miner.reading.text.comparable(text, "en")` (number words as digits, accents and case folded).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from filon.miner.reading.folded import folded
from filon.miner.reading.text import has_digit

_NUM = r"(\d(?<!\d\d)\d*(?:[.,]\d{1,2})?)"  # its first digit first (`facts_fr._NUM`)
# « $12.50 », « €9.90 », « £5 », « 12.50 USD », « 100 dollars »
# « $1,299.00 »: a thousands separator, then the cents
_MONEY = r"(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:[.,]\d{1,2})?)"
AMOUNT = folded(rf"(?:[$£€]\s?{_MONEY}|{_MONEY}\s?(?:usd|eur|gbp|dollars?|euros?|pounds?)\b)")
PERCENT = folded(rf"{_NUM}\s?(?:%|percent\b|per cent\b)")
UNITS = {"day": "jour", "week": "semaine", "month": "mois", "year": "an", "hour": "heure", "minute": "minute"}
DURATION = folded(
    r"(\d(?<!\d\d)\d*)\s?(?:business |working |calendar )?(days?|weeks?|months?|years?|hours?|minutes?)\b"
)
MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
# a month's whole name or its usual abbreviation, nothing that merely starts like one (« maybe », « decorative »)
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\b\.?"
)
# « December 6th », « Dec. 6, 2026 », « 6 December », « the 6th of December »
MONTH_DAY = folded(rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?(?:,? (\d{{4}}))?\b")
DAY_MONTH = folded(rf"(\d(?<!\w\d)\d?)(?:st|nd|rd|th)? (?:of )?{_MONTH}(?:,? (\d{{4}}))?\b")
RELATIVE = {"the day before yesterday": -2, "yesterday": -1, "the day after tomorrow": 2, "tomorrow": 1}
RELATIVE_WORDS = folded(r"\b(the day before yesterday|the day after tomorrow|yesterday|tomorrow)\b")
IN_DAYS = folded(r"in(?<!\win) (\d+) days?\b")  # its word first: sought as a literal
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = folded(r"\b(" + "|".join(WEEKDAYS) + r")\b")
# a status said of an order or a parcel, as the French key it stands for
STATUS_WORDS = {
    "processing": "en preparation",
    "being prepared": "en preparation",
    "shipped": "expedie",
    "dispatched": "expedie",
    "delivered": "livre",
    "cancelled": "annule",
    "canceled": "annule",
    "returned": "retourne",
    "in transit": "en transit",
    "delayed": "en retard",
    "late": "en retard",
    "lost": "perdu",
}
_STATUS = folded(
    r"(?:\b(?<!not )(?:is|are|was|were|has been|have been|has|have|got)|'s been|'s|'re)"
    r"(?: already| now| currently| still| just)? (" + "|".join(re.escape(w) for w in STATUS_WORDS) + r")\b"
)
# words that say where without naming a place: « the local depot », « the post office in your area »
_PLACE_WORDS = ("hub", "sorting", "warehouse", "depot", "distribution", "post office")
_NOT_PLACES = frozenset(
    ("local", "regional", "nearest", "main", "central", "your", "our", "the", "a", "nearby")
)
_PLACE = folded(
    r"\b(?:hub|sorting (?:center|centre|facility)|warehouse|depot|distribution (?:center|centre)|post office)"
    r"\s+(?:in |at |of )([a-z][\w-]{2,})|\bthe ([a-z][\w-]{2,}) (?:hub|depot|warehouse|sorting (?:center|centre))\b"
)


def money(figure: str) -> float:
    """« 1,299.00 » is 1299.0, « 12,50 » 12.5."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?", figure):
        return float(figure.replace(",", ""))
    return float(figure.replace(",", "."))


def _month(name: str) -> int:
    return next(i for i, m in enumerate(MONTHS, 1) if m.startswith(name.rstrip(".")[:3]))


def dates_said(plain: str) -> list[tuple[str, tuple[str, str, str]]]:
    """The absolute dates of folded English text, as written and as (day, month, year) digits."""
    out = [
        (m.group(0), (m.group(2), str(_month(m.group(1))), m.group(3) or ""))
        for m in MONTH_DAY.finditer(plain)
    ]
    out += [
        (m.group(0), (m.group(1), str(_month(m.group(2))), m.group(3) or ""))
        for m in DAY_MONTH.finditer(plain)
    ]
    return out


def durations(plain: str) -> list[tuple[int, str]]:
    """The durations of folded English text: (figure, the French unit key)."""
    return [(int(n), UNITS[unit.rstrip("s")]) for n, unit in DURATION.findall(plain)]


def _figures(plain: str, today: date, day_of: Any) -> list[tuple[str, str, Any]]:
    """The facts only a text with a digit can state: amounts, percentages, durations, dates."""
    out: list[tuple[str, str, Any]] = []
    for m in AMOUNT.finditer(plain):
        out.append(("montant", m.group(0), money(m.group(1) or m.group(2))))
    for m in PERCENT.finditer(plain):
        out.append(("pourcentage", m.group(0), float(m.group(1).replace(",", "."))))
    for m in DURATION.finditer(plain):
        out.append(("durée", m.group(0), (int(m.group(1)), UNITS[m.group(2).rstrip("s")])))
    for said, (day, month, year) in dates_said(plain):
        found = day_of(day, month, year, today)
        if found is not None:
            out.append(("date", said, found))
    return out


def facts(plain: str, today: date, day_of: Any) -> list[tuple[str, str, Any]]:
    """(kind, said, value) of each fact of a folded English answer; `day_of(day, month, year, today)`
    reads a date as `miner.reading.grounding` does (the year nearest the turn when none is said)."""
    out: list[tuple[str, str, Any]] = []
    # each pattern run only where a word or a digit it needs is in the answer (as the French reading does)
    digits = has_digit(plain)
    if digits:
        out += _figures(plain, today, day_of)
    if "yesterday" in plain or "tomorrow" in plain:
        for m in RELATIVE_WORDS.finditer(plain):
            out.append(("date", m.group(0), today + timedelta(days=RELATIVE[m.group(1)])))
    if digits and "in " in plain:
        for m in IN_DAYS.finditer(plain):
            out.append(("date", m.group(0), today + timedelta(days=int(m.group(1)))))
    if "day" in plain:  # every weekday ends so
        for m in _WEEKDAY.finditer(plain):
            out.append(("date", m.group(0), WEEKDAYS.index(m.group(1))))
    if any(w in plain for w in STATUS_WORDS):
        for m in _STATUS.finditer(plain):
            out.append(("statut", m.group(0), STATUS_WORDS[m.group(1)]))
    if any(w in plain for w in _PLACE_WORDS):
        for m in _PLACE.finditer(plain):
            if (m.group(1) or m.group(2)) not in _NOT_PLACES:
                out.append(("lieu", m.group(0), m.group(1) or m.group(2)))
    return out
