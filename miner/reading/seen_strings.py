"""One string the agent saw, read once for `miner.reading.grounding`: folded, its figures, dates, delays,
durations, times of day and addresses, each figure said with a unit kept with the subjects of its clause.

Kept per string (`reading_of`, cached): help passages, statuses and carriers come back turn after turn and
conversation after conversation. A string with no digit is read for what needs none (relative days,
« dans l'heure »): most of a tool result's values are such strings.
"""

from __future__ import annotations

from contextlib import suppress
from datetime import date, timedelta
from functools import lru_cache
from typing import Any, NamedTuple

from filon.miner.reading import facts_en
from filon.miner.reading.facts_fr import (
    ADDRESS,
    BARE,
    CLOCK,
    DAYS_SAID,
    DURATION,
    HOUR,
    HOURS_LONG,
    ISO,
    RELATIVE,
    RELATIVE_WORDS,
    WITHIN_HOUR,
    address,
    day_months,
    day_of,
    range_lows,
    unit_of,
)
from filon.miner.reading.folded import folded, twin
from filon.miner.reading.subjects import anchor_after, clauses
from filon.miner.reading.text import comparable, has_digit


class Reading(NamedTuple):
    plain: str
    numbers: frozenset[float]
    dates: frozenset[date]
    day_spans: frozenset[int]
    durations: frozenset[tuple[int, str]]
    said_with_unit: tuple[tuple[tuple[int, str], frozenset[str]], ...]  # each with its clause's subjects
    hours: frozenset[tuple[int, int]]  # times of day (« de 9 h à 18 h », « 08:00 »)
    addresses: frozenset[str]
    anchored: tuple[tuple[tuple[int, str], str], ...]  # a figure and what it counts from, where said


# a figure and its unit as either language writes it, a word between them allowed (« 5 jours ouvrés »,
# « 5 business days »): what a duration the answer states is looked up by (60 € is not 60 jours)
_WITH_UNIT = folded(
    r"\b(\d+) (?:\w+ )?(jours?|days?|semaines?|weeks?|mois|months?|ans?|years?|heures?|hours?|minutes?)"
)
UNIT_KEYS = {
    **{w: "jour" for w in ("jour", "jours", "day", "days")},
    **{w: "semaine" for w in ("semaine", "semaines", "week", "weeks")},
    **{w: "mois" for w in ("mois", "moi", "month", "months")},
    **{w: "an" for w in ("an", "ans", "year", "years")},
    **{w: "heure" for w in ("heure", "heures", "hour", "hours")},
    **{w: "minute" for w in ("minute", "minutes")},
}


def _with_units(
    plain: str,
) -> tuple[tuple[tuple[tuple[int, str], frozenset[str]], ...], tuple[tuple[tuple[int, str], str], ...]]:
    """The figures folded text says with a unit, each with its clause's subjects, and those it says
    counted from an event (« 14 jours après réception du retour »)."""
    parts = clauses(plain)
    read = [
        (subjects, clause, m, n, unit)
        for subjects, clause in parts
        for m, n, unit in (
            *((m, int(m.group(1)), m.group(2)) for m in _WITH_UNIT.finditer(clause)),
            *range_lows(clause),
        )
    ]
    with_unit = tuple(((n, UNIT_KEYS[unit]), subjects) for subjects, _, _, n, unit in read)
    if "l' heure" in plain or "l'heure" in plain:  # « un conseiller vous rappelle dans l'heure »
        with_unit += tuple(
            ((1, "heure"), subjects) for subjects, clause in parts if WITHIN_HOUR.search(clause)
        )
    if "h" in plain:  # « sous 24 h », « 48h »: hours written as a letter
        with_unit += tuple(
            ((int(m.group(1)), "heure"), subjects)
            for subjects, clause in parts
            for m in HOURS_LONG.finditer(clause)
        )
    anchored = tuple(
        ((n, UNIT_KEYS[unit]), a) for _, clause, m, n, unit in read if (a := anchor_after(clause, m.end()))
    )
    return with_unit, anchored


@lru_cache(maxsize=8192)
def reading_of(s: str, today: date, lang: str, relative: bool = False) -> Reading:
    """One string the agent saw, read once and kept (help passages, statuses and carriers come back turn
    after turn): folded, its figures, dates, delays in days and durations. A string with no digit, even
    with its numbers in words written in figures (a status, a carrier, a name), is read only for its
    relative days and « dans l'heure »."""
    k = twin(plain := comparable(s, lang))  # each pattern as written or its ASCII twin, chosen once
    figures = has_digit(plain) or has_digit(s)
    dates: set[date] = set()
    numbers: set[float] = set()
    said: list[tuple[str, str, str]] = []
    if figures:
        for y, m, d in ISO.findall(s):
            with suppress(ValueError):
                dates.add(date(int(y), int(m), int(d)))
        numbers = {float(n.replace(",", ".")) for n in BARE.findall(ISO.sub(" ", plain))}
        said = day_months(plain) + ([d for _, d in facts_en.dates_said(plain)] if lang == "en" else [])
    for day, month, year in said:
        found = day_of(day, month, year, today)
        if found is not None:
            dates.add(found)
    # a relative date an order's lookup wrote (« livraison prévue demain », "expected": "tomorrow") is the
    # day it names; the customer's « je pars demain » or a help text's « dès demain » names no order's date
    if relative and ("aujourd" in plain or "ce soir" in plain):  # « livraison prévue aujourd'hui »
        dates.add(today)
    if relative and ("hier" in plain or "demain" in plain):
        dates.update(today + timedelta(days=RELATIVE[w]) for w in RELATIVE_WORDS[k].findall(plain))
    if relative and ("yesterday" in plain or "tomorrow" in plain):
        dates.update(
            today + timedelta(days=facts_en.RELATIVE[w]) for w in facts_en.RELATIVE_WORDS.findall(plain)
        )
    if not figures:
        with_unit, _ = _with_units(plain) if "heure" in plain else ((), ())
        return Reading(
            plain,
            frozenset(),
            frozenset(dates),
            _NONE_READ,
            _NONE_READ,
            with_unit,
            _NONE_READ,
            _NONE_READ,
            (),
        )
    spans = [int(n) for n in DAYS_SAID[k].findall(plain)]
    spans += [n for n, unit in facts_en.durations(plain) if unit == "jour"] if lang == "en" else []
    durations = [(int(a), unit_of(b)) for a, b in DURATION[k].findall(plain)]
    durations += [(low, unit_of(unit)) for _, low, unit in range_lows(plain)]
    durations += facts_en.durations(plain)
    with_unit, anchored = _with_units(plain)
    return Reading(
        plain,
        frozenset(numbers),
        frozenset(dates),
        frozenset(spans),
        frozenset(durations),
        with_unit,
        frozenset((int(h), int(m or 0)) for h, m in [*HOUR[k].findall(plain), *CLOCK.findall(s)]),
        frozenset(address(m) for m in ADDRESS[k].finditer(plain)),
        anchored,
    )


_NONE_READ: frozenset[Any] = frozenset()
