"""Facts in an answer, and whether the agent saw them: the rulebook's `fait_non_fonde` (its
`action_affirmee` reads `miner.claims`).

A support answer states facts: amounts (« 79 € »), durations (« sous 14 jours »), percentages, dates
(« le 19/11 », « demain », « lundi »), an order's status (« est expédiée »), a carrier, a place (« à la
plateforme de Lyon »), a tracking number. Each must be found in what the agent saw before answering in
that conversation: its tool results (the help passages it retrieved are one of them), the customer's own
words, and the help texts declared for an agent whose retrieval is not traced (`sources`). Numbers are
read as the grader reads them (« trois jours » is 3 jours, French number words as digits), and a figure
is a figure of its unit (60 € is not 60 jours); a duration in days is also found when it is the distance
between the turn's day and a date the agent saw (« livrée il y a 31 jours »), a relative date when it
falls on a date the agent saw. A fact found nowhere is named with where it was looked for.

Pure functions over plain data; no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from miner import facts_en
from miner.text import comparable, norm

_NUM = r"(\d+(?:[.,]\d{1,2})?)"
AMOUNT = re.compile(rf"{_NUM}\s?(?:€|eur\b|euros?\b)(?:\s?(\d{{2}})\b)?")  # « 3 euros 90 » too
PERCENT = re.compile(rf"{_NUM}\s?(?:%|pour ?cent\b)")
DURATION = re.compile(r"(\d+)\s?(jours?|semaines?|mois|ans?|heures?|minutes?)\b")
DAY_MONTH = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")
MONTHS = (
    "janvier", "fevrier", "mars", "avril", "mai", "juin",
    "juillet", "aout", "septembre", "octobre", "novembre", "decembre",
)  # fmt: skip
# « le 6 décembre », « le 1er décembre 2026 » (folded: no accents)
NAMED_DAY = re.compile(r"\b(1er|\d{1,2}) (" + "|".join(MONTHS) + r")(?: (\d{4}))?\b")
DAYS_IN = {"jour": 1, "semaine": 7, "mois": 30, "an": 365}
# a unit as either language writes it, for a figure read with its unit (« 3 jours », « 3 business days »)
UNIT_WORDS = {
    "jour": "(?:jours?|days?)",
    "semaine": "(?:semaines?|weeks?)",
    "mois": "(?:mois|months?)",
    "an": "(?:ans?|years?)",
    "heure": "(?:heures?|hours?)",
    "minute": "minutes?",
}
RELATIVE = {"avant-hier": -2, "hier": -1, "demain": 1, "apres-demain": 2}
_RELATIVE = re.compile(r"\b(apres-demain|avant-hier|demain|hier)\b")
_IN_DAYS = re.compile(r"\bdans (\d+) jours?\b")
WEEKDAYS = ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche")
_WEEKDAY = re.compile(r"\b(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)\b")
# a status said of an order or a parcel, in the present or the perfect: « est expédiée », « a été livré »
STATUSES = {
    "en preparation": ("en preparation",),
    "expedie": ("expedie",),
    "livre": ("livre",),
    "annule": ("annule",),
    "retourne": ("retourne",),
    "en transit": ("en transit", "en cours d'acheminement"),
    "en retard": ("en retard",),
    "perdu": ("perdu",),
}
# a status a tool returns in English (« shipped ») is the same status
STATUSES = {
    k: v + tuple(w for w, key in facts_en.STATUS_WORDS.items() if key == k) for k, v in STATUSES.items()
}
_STATUS = re.compile(
    r"\b(?<!n')(?:est|sont|a ete|ont ete) (?:bien |deja |actuellement |toujours )?"
    r"(en preparation|expediee?s?|livree?s?|annulee?s?|retournee?s?|en transit|en retard|perdue?s?)\b"
)
STATUS_KEYS = ("statut", "status", "etat", "state")
CARRIERS = (
    "colissimo", "chronopost", "dpd", "ups", "la poste", "mondial relay", "gls", "dhl", "fedex",
    "usps", "royal mail", "canada post", "purolator", "evri",
)  # fmt: skip
_CARRIER = re.compile(
    r"(?<![\w-])(" + "|".join(re.escape(c) for c in CARRIERS) + r")(?![\w-])"
)  # not « mix-ups »
_PLACE = re.compile(
    r"\b(?:plateforme|hub|centre de tri|agence|entrepot|depot|bureau de poste)\s+(?:de |d'|du |des )?([a-z][\w-]{2,})"
)
TRACKING = re.compile(r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{10,}\b")
_DAYS = re.compile(r"\b(\d+) jours?\b")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})")
_BARE = re.compile(r"(?<![\w/-])\d+(?:[.,]\d+)?(?![\w/-])")


@dataclass(frozen=True)
class Fact:
    """One fact the answer states: its kind (montant, durée, pourcentage, date, statut, transporteur,
    lieu, suivi), as the answer says it, and the value it is looked up by."""

    kind: str
    said: str
    value: Any


@dataclass
class Seen:
    """What the agent saw: folded text, the figures in it, the dates (absolute) and the customer's words."""

    text: str = ""
    raw: str = ""
    numbers: set[float] | None = None
    dates: set[date] | None = None
    statuses: set[str] | None = None  # the statuses its lookups returned (None: it looked nothing up)
    day_spans: set[int] | None = None  # the delays in days it read (« 30 jours »)
    lang: str = "fr"  # of the conversation: how its texts are read (`miner.language`)

    def copy(self) -> Seen:
        return Seen(
            self.text,
            self.raw,
            None if self.numbers is None else set(self.numbers),
            None if self.dates is None else set(self.dates),
            None if self.statuses is None else set(self.statuses),
            None if self.day_spans is None else set(self.day_spans),
            self.lang,
        )

    def add(self, value: Any, today: date, lookup: bool = False) -> None:
        """A tool result, a help text or the customer's words; `lookup`: the result of a call that looks an
        order up (its statuses are the ones the agent may report, none if it failed)."""
        if lookup and self.statuses is None:
            self.statuses = set()
        numbers = self.numbers if self.numbers is not None else set()
        dates = self.dates if self.dates is not None else set()
        strings: list[str] = []
        _walk(value, strings, numbers, self)
        for s in strings:
            for y, m, d in _ISO.findall(s):
                with suppress(ValueError):
                    dates.add(date(int(y), int(m), int(d)))
            plain = comparable(s, self.lang)
            for n in _BARE.findall(_ISO.sub(" ", plain)):
                numbers.add(float(n.replace(",", ".")))
            said = _day_months(plain) + (
                [d for _, d in facts_en.dates_said(plain)] if self.lang == "en" else []
            )
            for day, month, year in said:
                found = _day(day, month, year, today)
                if found is not None:
                    dates.add(found)
            spans = [int(n) for n in _DAYS.findall(plain)]
            spans += (
                [n for n, unit in facts_en.durations(plain) if unit == "jour"] if self.lang == "en" else []
            )
            if spans:
                self.day_spans = (self.day_spans or set()) | set(spans)
            self.text += " " + plain
            self.raw += " " + s
        self.numbers, self.dates = numbers, dates


@lru_cache(maxsize=16)
def _read_once(texts: tuple[str, ...], today: date, lang: str) -> Seen:
    seen = Seen(lang=lang)
    for text in texts:
        seen.add(text, today)
    return seen


def seen_in(texts: Sequence[str], today: date, lang: str = "fr") -> Seen:
    """What declared help texts say, read once per day and kept: each conversation starts from a copy
    (its own texts read in its language)."""
    return _read_once(tuple(texts), today, lang).copy()


def _walk(value: Any, strings: list[str], numbers: set[float], seen: Seen) -> None:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, str):
            strings.append(v)
        elif isinstance(v, int | float):
            numbers.add(float(v))
        elif isinstance(v, dict):
            for k, item in v.items():
                if isinstance(k, str) and norm(k) in STATUS_KEYS and isinstance(item, str):
                    seen.statuses = (seen.statuses or set()) | {norm(item)}
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)


def _dates_said(plain: str) -> list[tuple[str, tuple[str, str, str]]]:
    """The absolute dates of a folded text, as written and as (day, month, year) digits: « 19/11 »,
    « le 6 decembre », « 1er decembre 2026 »."""
    out = [(m.group(0), (m.group(1), m.group(2), m.group(3) or "")) for m in DAY_MONTH.finditer(plain)]
    for m in NAMED_DAY.finditer(plain):
        day = "1" if m.group(1) == "1er" else m.group(1)
        out.append((m.group(0), (day, str(MONTHS.index(m.group(2)) + 1), m.group(3) or "")))
    return out


def _day_months(plain: str) -> list[tuple[str, str, str]]:
    return [d for _, d in _dates_said(plain)]


def _day(day: str, month: str, year: str, today: date) -> date | None:
    """A day and month with their year, or, without one, in the year that puts it nearest the turn's day
    (« le 6 janvier » said on 3 December is next month's); `grounded` also tries the years either side."""
    if year:
        with suppress(ValueError):
            return date(int(year) + (2000 if len(year) == 2 else 0), int(month), int(day))
        return None
    near = [found for found in (_on(today.year + k, month, day) for k in (-1, 0, 1)) if found is not None]
    return min(near, key=lambda d: abs((d - today).days)) if near else None


def _on(year: int, month: str, day: str) -> date | None:
    try:
        return date(year, int(month), int(day))
    except ValueError:
        return None


_YEAR = re.compile(r"\d{4}\b|\d/\d{1,2}/\d{2}\b")  # « 2026 », « 19/11/26 »


def facts(answer: str, today: date, lang: str = "fr") -> list[Fact]:
    """The facts an answer states, each once, in the order of the answer; `lang` "en" reads an English
    one (`miner.facts_en`)."""
    if lang == "en":
        plain = comparable(answer, "en")
        english = [Fact(*f) for f in facts_en.facts(plain, today, _day)]
        return _unique([*english, *_named(plain, answer)])
    plain = comparable(answer)
    out: list[Fact] = []
    for m in AMOUNT.finditer(plain):
        value = float(m.group(1).replace(",", "."))
        if m.group(2) and value.is_integer():
            value += int(m.group(2)) / 100
        out.append(Fact("montant", m.group(0), value))
    for m in PERCENT.finditer(plain):
        out.append(Fact("pourcentage", m.group(0), float(m.group(1).replace(",", "."))))
    for m in DURATION.finditer(plain):
        out.append(Fact("durée", m.group(0), (int(m.group(1)), m.group(2).rstrip("s"))))
    for said, (day, month, year) in _dates_said(plain):
        found = _day(day, month, year, today)
        if found is not None:
            out.append(Fact("date", said, found))
    for m in _RELATIVE.finditer(plain):
        out.append(Fact("date", m.group(0), today + timedelta(days=RELATIVE[m.group(1)])))
    for m in _IN_DAYS.finditer(plain):
        out.append(Fact("date", m.group(0), today + timedelta(days=int(m.group(1)))))
    for m in _WEEKDAY.finditer(plain):
        out.append(Fact("date", m.group(0), WEEKDAYS.index(m.group(1))))
    for m in _STATUS.finditer(plain):
        key = next(k for k, forms in STATUSES.items() if any(m.group(1).startswith(f) for f in forms))
        out.append(Fact("statut", m.group(0), key))
    for m in _PLACE.finditer(plain):
        out.append(Fact("lieu", m.group(0), m.group(1)))
    return _unique([*out, *_named(plain, answer)])


def _named(plain: str, answer: str) -> list[Fact]:
    """Carriers and tracking numbers: the same in every language."""
    out = [Fact("transporteur", m.group(1), m.group(1)) for m in _CARRIER.finditer(plain)]
    return out + [Fact("suivi", m.group(0), m.group(0)) for m in TRACKING.finditer(answer)]


def _unique(found: list[Fact]) -> list[Fact]:
    unique: dict[tuple[str, str], Fact] = {}
    for f in found:
        unique.setdefault((f.kind, str(f.value)), f)
    return list(unique.values())


def grounded(fact: Fact, seen: Seen, today: date) -> bool:
    numbers, dates = seen.numbers or set(), seen.dates or set()
    if fact.kind == "montant":  # a figure seen, or the sum of two (articles and shipping: the total)
        value = round(float(fact.value), 2)
        return value in numbers or any(round(value - a, 2) in numbers for a in numbers if 0 < a < value)
    if fact.kind == "pourcentage":
        return float(fact.value) in numbers
    if fact.kind == "durée":
        n, unit = fact.value
        if re.search(rf"\b{n} (?:\w+ )?{UNIT_WORDS.get(unit, unit)}", seen.text):  # 60 € is not 60 jours
            return True
        if unit not in DAYS_IN:
            return False
        # in days: « 2 semaines » is the 14 jours read; « livrée il y a 31 jours » the distance to a date
        # seen; « dépassé d'un jour » the gap between such a distance and a delay read
        days = n * DAYS_IN[unit]
        read = [(int(a), b.rstrip("s")) for a, b in DURATION.findall(seen.text)]
        read += facts_en.durations(seen.text)
        known = {abs((d - today).days) for d in dates} | {m * DAYS_IN[u] for m, u in read if u in DAYS_IN}
        return days in known or any(abs(a - b) == days for a in known for b in known)
    if fact.kind == "date":
        if isinstance(fact.value, int):  # a weekday: said where the agent read it, or a date it saw is one
            if WEEKDAYS[fact.value] in seen.text or facts_en.WEEKDAYS[fact.value] in seen.text:
                return True
            return any(d.weekday() == fact.value and abs((d - today).days) <= 7 for d in dates)
        if fact.value in dates:
            return True
        if not _YEAR.search(fact.said):  # said without its year: a date seen that year or either side
            value = fact.value
            if any(_on(value.year + k, str(value.month), str(value.day)) in dates for k in (-1, 1)):
                return True
        # a date computed from one the agent saw and a delay it read (« le délai a expiré hier »: the
        # delivery 31 days ago and the 30 days of the policy), a day either way
        spans = (
            seen.day_spans or set()
        )  # from a date seen, or from the turn's own day (« refunded in 5 days »)
        return any(
            abs((fact.value - (d + timedelta(days=n))).days) <= 1 for d in dates | {today} for n in spans
        )
    if fact.kind == "statut":
        if seen.statuses is None:
            return True  # it looked nothing up: a general statement of the policy, not a report
        return any(any(f in s for f in STATUSES[fact.value]) for s in seen.statuses)
    if fact.kind in ("transporteur", "lieu"):
        return str(fact.value) in seen.text
    if fact.kind == "suivi":
        return str(fact.value) in seen.raw
    return True


def admitted(fact: Fact, allowed: Sequence[str]) -> bool:
    """Whether a case or an example admits this fact (`faits_admis`: « 45 € », a figure a policy computes)."""
    return any(a and (a in fact.said or fact.said in a) for a in (comparable(x) for x in allowed))
