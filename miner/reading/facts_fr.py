"""The facts an answer states: amounts (« 79 € »), durations (« sous 14 jours »), percentages, dates
(« le 19/11 », « demain », « lundi »), an order's status (« est expédiée »), a carrier, a place (« à la
plateforme de Lyon »), a tracking number, a street address, a time of day (« entre 8 h et 13 h »); each
read with the value it is looked up by (`miner.reading.grounding` looks them up in what the agent saw). Numbers
are read as the grader reads them (« trois jours » is 3 jours, French number words as digits). English
answers: `miner.reading.facts_en`, beside this one; `miner.reading.facts` reads either. This room imports
only the shared core (`subjects`, `text`, `folded`), never its English neighbour.

Pure functions over plain data; no model.
"""

from __future__ import annotations

import re
from contextlib import suppress
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from filon.miner.reading.folded import folded, twin
from filon.miner.reading.matching import by_first_letter
from filon.miner.reading.subjects import anchor_after, clause_end, clause_start, subjects_around
from filon.miner.reading.text import comparable, has_digit

# A figure's pattern begins with its first digit and the test on what precedes it (`(?<!\d\d)`: the
# digit before it is none; `(?<!\w\d)`: `\b` before it): the engine then skips ahead to digits and tries
# a run of digits once, not at each of its digits nor at every position (each is the plain form's match
# for match, `tests/miner/reading/test_pattern_forms.py`)
_NUM = r"(\d(?<!\d\d)\d*(?:[.,]\d{1,2})?)"
AMOUNT = folded(rf"{_NUM}\s?(?:€|eur\b|euros?\b)(?:\s?(\d{{2}})\b)?")  # « 3 euros 90 » too
PERCENT = folded(rf"{_NUM}\s?(?:%|pour ?cent\b)")
DURATION = folded(r"(\d(?<!\d\d)\d*)\s?(jours?|semaines?|mois|ans?|heures?|minutes?)\b")
# the lower bound of a range carries the unit of its upper one (« 1 à 2 jours », « entre 3 et 5 jours »)
RANGE_LOW = folded(
    # its first digit, then what may not come before it: the engine skips ahead to digits (as `identities`)
    r"(\d(?<![\w-]\d)\d{0,2}) ?(?:a|-|et) ?(\d{1,3}) ?(?:\w+ )?(jours?|semaines?|mois|ans?|heures?|minutes?)\b"
)


def range_lows(text: str) -> list[tuple[re.Match[str], int, str]]:
    """The lower bounds of the ranges in folded text, each with its match and unit: a bound below the
    other (« LL-10563 a 3 jours de retard » is no range)."""
    return [
        (m, int(m.group(1)), m.group(3))
        for m in RANGE_LOW[twin(text)].finditer(text)
        if int(m.group(1)) < int(m.group(2))
    ]


DAY_MONTH = folded(r"(\d(?<!\w\d)\d?)/(\d{1,2})(?:/(\d{2,4}))?\b")  # `\b` after the first digit: skipped to
MONTHS = (
    "janvier", "fevrier", "mars", "avril", "mai", "juin",
    "juillet", "aout", "septembre", "octobre", "novembre", "decembre",
)  # fmt: skip
# « le 6 décembre », « le 1er décembre 2026 » (folded: no accents)
NAMED_DAY = folded(r"(\d(?<!\w\d)(?:(?<=1)er|\d?)) (" + by_first_letter(MONTHS) + r")(?: (\d{4}))?\b")
DAYS_IN = {"jour": 1, "semaine": 7, "mois": 30, "an": 365}
# a unit as either language writes it, for a figure read with its unit (« 3 jours », « 3 business days »)
RELATIVE = {"avant-hier": -2, "hier": -1, "demain": 1, "apres-demain": 2}
RELATIVE_WORDS = folded(r"\b(apres-demain|avant-hier|demain|hier)\b")
_IN_DAYS = folded(
    r"dans(?<!\wdans) (\d+) jours?\b"
)  # its word first: sought as a literal, not tried everywhere
# « aujourd'hui » is a date where something happens on it (« sera livrée aujourd'hui »), not in a greeting
# (« que puis-je faire pour vous aujourd'hui ? »)
_TODAY = folded(
    r"\b(?:livr|arriv|expedi|parti|prevu|rembours|recev|recu|passage|depos)\w*"
    r"(?: [\w'-]+){0,4}? (?P<today>aujourd' ?hui)\b|\b(?P<tonight>(?:d' ?ici |des )?ce soir)\b"
)
WITHIN_HOUR = folded(r"\b(?:dans|sous|d' ?ici) l' ?heure\b(?! d)")  # not « l'heure de fermeture »
# « 24 h », « 72h », not « 24 h/24 »: the first digit, then the word start behind it (skipped ahead to)
HOURS_LONG = folded(r"(\d(?<!\w\d)(?:(?<=2)[4-9]|(?<=[3-9])\d|\d\d)) ?h\b(?! ?/)")
# a day denied, in a condition or asked about is not stated (« ne sera pas livré aujourd'hui », « si votre
# colis n'arrive pas ce soir », « … aujourd'hui ? »)
_FROM_ON = folded(r"\b(?:des|a partir d' ?|a compter d' ?) ?$")
_NOT_STATED = folded(r"\b(?:ne|pas|si|s'il|jamais|plus)\b|\bn'")
WEEKDAYS = ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche")
_WEEKDAY = folded(r"\b(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)\b")
# a status said of an order or a parcel, in the present or the perfect: « est expédiée », « a été livré »
STATUSES = {
    "en preparation": ("en preparation", "en cours de preparation"),
    "expedie": ("expedie",),
    "livre": ("livre",),
    "annule": ("annule",),
    "retourne": ("retourne",),
    "en transit": (
        "en transit",
        "en cours d'acheminement",
        "en cours d' acheminement",
        "en cours de livraison",
    ),
    "en retard": ("en retard", "bloque", "retenu", "immobilise", "reporte"),
    "perdu": ("perdu",),
}
_ADVERBS = r"(?:(?:bien|deja|actuellement|toujours|encore|maintenant|desormais|finalement) )?"
_STATUS = folded(
    # `\b` first: its test fails at once inside a word, before the two look-behinds (half the time)
    r"\b(?<!n')(?<!n' )(?:est|sont|(?:a|ont) "
    + _ADVERBS
    + r"ete|vient d' ?etre|viennent d' ?etre) "
    + _ADVERBS
    + r"(?P<status>en preparation|en cours de preparation|expediee?s?|livree?s?|annulee?s?|retournee?s?"
    r"|en transit|en retard|perdue?s?|en cours d' ?acheminement|en cours de livraison|bloquee?s?|retenue?s?"
    r"|immobilisee?s?|reportee?s?)\b"
    r"|\b(?<!n')(?<!n' )a (?:pris|accumule) (?:du|un peu de|1 peu de|beaucoup de) (?P<late>retard)\b"
)
# a status followed by a delay describes how things go (« est livrée en 3 à 5 jours »), it reports nothing
_GENERAL = folded(r" (?:en|sous|dans|entre|within|in) \d")
# the customer's own order or parcel, named before the status in its clause (« votre colis est en
# transit »): a status said of it before any lookup is no general rule, it is a report nobody read
_OWN = folded(r"\b(?:votre|vos|ton|ta|tes|your) (?:commande|colis|paquet|article|order|parcel|package)s?\b")
# a status said under a condition (« si votre commande est expédiée ») reports nothing; « quand même » is none;
# nor one that dates a rule (« 30 jours à compter du jour où votre commande vous a été livrée »)
_CONDITION = folded(
    r"\b(?:si|s'il|s'ils|quand(?! meme)|lorsque|des que|une fois que|if|when|once"
    r"|(?:jour|date|moment) ou|apres que|avant que|jusqu'a ce que|(?:day|date|time) (?:that|when))\b"
)


def unit_of(word: str) -> str:
    """A French unit as a fact holds it: singular (« mois » stays « mois »)."""
    return word if word == "mois" else word.rstrip("s")


def _own(plain: str, start: int, end: int) -> bool:
    """Whether the status at [start, end) is said of the customer's own order, not under a condition: a
    possessive subject in its clause, no other verb's « et » between them."""
    before = plain[clause_start(plain, start) : start]
    owners = list(_OWN.finditer(before))
    found = owners[-1] if owners else None
    between = before[found.end() :] if found is not None else ""
    if found is None or any(w in between for w in (" et ", " mais ", " and ", " but ")):
        return False
    return _CONDITION.search(before) is None


STATUS_KEYS = ("statut", "status", "etat", "state")
CARRIERS = (
    "colissimo", "chronopost", "dpd", "ups", "la poste", "mondial relay", "gls", "dhl", "fedex",
    "usps", "royal mail", "canada post", "purolator", "evri",
)  # fmt: skip
_CARRIER = folded(
    r"(?<![\w-])(" + "|".join(re.escape(c) for c in CARRIERS) + r")(?![\w-])"
)  # not « mix-ups »
PLACE_WORDS = ("plateforme", "hub", "centre de tri", "agence", "entrepot", "depot", "bureau de poste")
_PLACE = folded(r"\b(?:" + "|".join(PLACE_WORDS) + r")\s+(?:de |d'|du |des )?([a-z][\w-]{2,})")
# a street address (« au 14 rue des Lilas »): the street, the way and up to two words of its name, is
# looked up in what the agent saw (a delivery address no tool returned is made up)
WAYS = {
    "rue": "rue", "avenue": "avenue", "av": "avenue", "ave": "avenue", "boulevard": "boulevard",
    "bd": "boulevard", "blvd": "boulevard", "place": "place", "chemin": "chemin", "allee": "allee",
    "impasse": "impasse", "quai": "quai", "route": "route", "street": "street", "st": "street",
    "road": "road", "rd": "road", "lane": "lane", "drive": "drive",
}  # fmt: skip
WAYS_SAID = tuple(f" {w} " for w in WAYS)
ADDRESS = folded(
    r"\b(\d{1,4})(?: ?bis| ?ter)?,? ("
    + "|".join(WAYS)
    + r")\.? ((?:(?:de|des|du|la|le|l'|d') ?)*[a-z][\w-]+)"
)
# a time of day (« entre 8 h et 13 h », « 9h30 »): looked up among the times the agent read
HOUR = folded(r"(\d(?<!\w\d)(?:(?<=[01])\d|(?<=2)[0-3])?) ?h(?: ?([0-5]\d)\b|\b)")  # 0-23 h
CLOCK = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?!\d)")  # « 08:00 », an ISO time
_LENGTH = folded(r"\b(?:sous|dans|en|pendant|d' ?ici|moins de|plus de|within|in) $")
_TRACKING = re.compile(r"[A-Z0-9](?<!\w[A-Z0-9])[A-Z0-9]{9,}\b")


def tracking_numbers(text: str) -> list[str]:
    """Runs of 10 or more capitals and digits holding both (« 6A10563007FR »), in order."""
    return [t for t in _TRACKING.findall(text) if not t.isdigit() and not t.isalpha()]


DAYS_SAID = folded(r"(\d(?<!\w\d)\d*) jours?\b")
ISO = re.compile(r"(\d(?<!\w\d)\d{3})-(\d{2})-(\d{2})")
BARE = folded(r"(?<![\w/-])\d+(?:[.,]\d+)?(?![\w/-])")


@dataclass(frozen=True)
class Fact:
    """One fact the answer states: its kind (montant, durée, pourcentage, date, heure, statut,
    transporteur, lieu, suivi, adresse), as the answer says it, and the value it is looked up by."""

    kind: str
    said: str
    value: Any
    own: bool = False  # a status said of the customer's own order or parcel (« votre colis est… »)
    subjects: frozenset[str] = frozenset()  # what a duration is about (« le remboursement … sous 14 jours »)
    anchor: str = ""  # what a duration counts from (« … après réception du retour »: `retour`)


@lru_cache(maxsize=256)
def _status_of(word: str) -> str:
    """The status a word the answer said is (« expédiées » is « expedie »)."""
    return next(k for k, forms in STATUSES.items() if any(word.startswith(f) for f in forms))


def _dates_said(plain: str) -> list[tuple[str, tuple[str, str, str]]]:
    """The absolute dates of a folded text, as written and as (day, month, year) digits: « 19/11 »,
    « le 6 decembre », « 1er decembre 2026 »."""
    k = twin(plain)
    out = [(m.group(0), (m.group(1), m.group(2), m.group(3) or "")) for m in DAY_MONTH[k].finditer(plain)]
    for m in NAMED_DAY[k].finditer(plain):
        day = "1" if m.group(1) == "1er" else m.group(1)
        out.append((m.group(0), (day, str(MONTHS.index(m.group(2)) + 1), m.group(3) or "")))
    return out


def day_months(plain: str) -> list[tuple[str, str, str]]:
    return [d for _, d in _dates_said(plain)]


def day_of(day: str, month: str, year: str, today: date) -> date | None:
    """A day and month with their year, or, without one, in the year that puts it nearest the turn's day
    (« le 6 janvier » said on 3 December is next month's); `grounded` also tries the years either side."""
    if year:
        with suppress(ValueError):
            return date(int(year) + (2000 if len(year) == 2 else 0), int(month), int(day))
        return None
    near = [found for found in (on_day(today.year + k, month, day) for k in (-1, 0, 1)) if found is not None]
    return min(near, key=lambda d: abs((d - today).days)) if near else None


def on_day(year: int, month: str, day: str) -> date | None:
    try:
        return date(year, int(month), int(day))
    except ValueError:
        return None


WITH_YEAR = folded(r"\d{4}\b|\d/\d{1,2}/\d{2}\b")  # « 2026 », « 19/11/26 »


def facts(answer: str, today: date) -> list[Fact]:
    """The facts a French answer states, each once, in the order of the answer."""
    plain = comparable(answer)
    digits = has_digit(plain)
    k = twin(plain)  # each pattern as written or its ASCII twin (`miner.reading.folded`), chosen once
    out: list[Fact] = []
    # each pattern is run only where a word it needs is in the answer: most answers state few facts,
    # and a `str.__contains__` costs a tenth of a regex's pass over the text
    if digits and ("€" in plain or "eur" in plain):
        for m in AMOUNT[k].finditer(plain):
            value = float(m.group(1).replace(",", "."))
            if m.group(2) and value.is_integer():
                value += int(m.group(2)) / 100
            out.append(Fact("montant", m.group(0), value))
    if digits and ("%" in plain or "pour" in plain):
        for m in PERCENT[k].finditer(plain):
            out.append(Fact("pourcentage", m.group(0), float(m.group(1).replace(",", "."))))
    out += _delays_and_days(plain, today, digits)
    if "di" in plain:  # every weekday ends so
        for m in _WEEKDAY[k].finditer(plain):
            out.append(Fact("date", m.group(0), WEEKDAYS.index(m.group(1))))
    if "est " in plain or "sont " in plain or "ete " in plain or "etre " in plain or "retard" in plain:
        for m in _STATUS[k].finditer(plain):
            if _GENERAL[k].match(plain, m.end()):
                continue
            status = "en retard" if m.group("late") else _status_of(m.group("status"))
            out.append(Fact("statut", m.group(0), status, _own(plain, m.start(), m.end())))
    if any(w in plain for w in PLACE_WORDS):
        for m in _PLACE[k].finditer(plain):
            out.append(Fact("lieu", m.group(0), m.group(1)))
    return unique([*out, *named(plain, answer, digits)])


def _delays_and_days(plain: str, today: date, digits: bool) -> list[Fact]:
    """The durations, dates and times of day a folded French answer states."""
    k = twin(plain)
    out: list[Fact] = []
    if digits:
        bounds = [(m, int(m.group(1)), m.group(2)) for m in DURATION[k].finditer(plain)] + range_lows(plain)
        for m, n, unit in bounds:
            span = (n, unit_of(unit))
            subjects = subjects_around(plain, m.start(), m.end())
            out.append(
                Fact("durée", m.group(0), span, subjects=subjects, anchor=anchor_after(plain, m.end()))
            )
        for said, (day, month, year) in _dates_said(plain):
            found = day_of(day, month, year, today)
            if found is not None:
                out.append(Fact("date", said, found))
        for m in HOUR[k].finditer(plain):
            if _LENGTH[k].search(plain, max(0, m.start() - 12), m.start()):  # « sous 2 h »: a delay
                out.append(Fact("durée", m.group(0), (int(m.group(1)), "heure")))
            else:
                out.append(Fact("heure", m.group(0), (int(m.group(1)), int(m.group(2) or 0))))
    if "hier" in plain or "demain" in plain:
        for m in RELATIVE_WORDS[k].finditer(plain):
            out.append(Fact("date", m.group(0), today + timedelta(days=RELATIVE[m.group(1)])))
    if "aujourd" in plain or "soir" in plain:
        for m in _TODAY[k].finditer(plain):
            start, end = clause_start(plain, m.start()), clause_end(plain, m.end())
            if _NOT_STATED[k].search(plain, start, m.start()) or plain.startswith("?", end):
                continue
            if m.group("today") and _FROM_ON[k].search(
                plain, max(0, m.start("today") - 14), m.start("today")
            ):
                continue  # « dès aujourd'hui »: from today on, a permission, not a day something happens
            out.append(Fact("date", m.group("today") or m.group("tonight"), today))
    if "heure" in plain:
        for m in WITHIN_HOUR[k].finditer(plain):  # « un conseiller vous rappelle dans l'heure »
            out.append(
                Fact("durée", m.group(0), (1, "heure"), subjects=subjects_around(plain, m.start(), m.end()))
            )
    if digits and "h" in plain:
        for m in HOURS_LONG[k].finditer(plain):  # « 24 h », « 48h »: no time of day
            out.append(
                Fact(
                    "durée",
                    m.group(0),
                    (int(m.group(1)), "heure"),
                    subjects=subjects_around(plain, m.start(), m.end()),
                )
            )
    if digits and "dans " in plain:
        for m in _IN_DAYS[k].finditer(plain):
            out.append(Fact("date", m.group(0), today + timedelta(days=int(m.group(1)))))
    return out


def placed(plain: str, kind: str, said: str, value: Any) -> Fact:
    """An English fact with what its place in the answer says: a duration's subject, a status's owner."""
    at = plain.find(said)
    if kind == "durée":
        return Fact(kind, said, value, subjects=subjects_around(plain, at, at + len(said)))
    if kind == "statut":
        return Fact(kind, said, value, _own(plain, at, at + len(said)))
    return Fact(kind, said, value)


def address(m: re.Match[str]) -> str:
    """An address as it is looked up: its number, its way spelt out, its name (« 12 boulevard voltaire »)."""
    return f"{m.group(1)} {WAYS[m.group(2)]} {m.group(3)}"


def named(plain: str, answer: str, digits: bool = True) -> list[Fact]:
    """Carriers, tracking numbers and street addresses: the same in every language."""
    out = []
    if any(c in plain for c in CARRIERS):
        out = [Fact("transporteur", m.group(1), m.group(1)) for m in _CARRIER.finditer(plain)]
    if digits:
        out += [Fact("suivi", t, t) for t in tracking_numbers(answer)]
        if any(w in plain for w in WAYS_SAID):
            out += [Fact("adresse", m.group(0), address(m)) for m in ADDRESS.finditer(plain)]
    return out


def unique(found: list[Fact]) -> list[Fact]:
    """Each fact once; a figure said twice of another subject or from another event is two facts (« sous
    14 jours. Ces 14 jours courent à compter de votre demande »)."""
    unique: dict[tuple[str, str, frozenset[str], str], Fact] = {}
    for f in found:
        unique.setdefault((f.kind, str(f.value), f.subjects, f.anchor), f)
    return list(unique.values())
