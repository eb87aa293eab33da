"""Whether the agent saw the facts an answer states (`miner.reading.facts`): the rulebook's `fait_non_fonde` (its
`action_affirmee` reads `miner.reading.claims`).

Each fact must be found in what the agent saw before answering in that conversation: its tool results
(the help passages it retrieved are one of them), the customer's own words, and the help texts declared
for an agent whose retrieval is not traced (`sources`). A figure is a figure of its unit (60 € is not 60
jours); a duration in days is also found when it is the distance between the turn's day and a date the
agent saw (« livrée il y a 31 jours »), a relative date when it falls on a date the agent saw (or one an
order's lookup wrote: « demain », "tomorrow"). Each string the agent saw is read once and kept (`miner.reading.seen_strings`): help
passages come back turn after turn, and a fact is then looked up in sets. Each value (a tool result, the
customer's words) is kept too, by what it holds (`value_read`): a live conversation is flagged again with
each new turn, and its earlier results are then not walked again.

Pure functions over plain data; no model.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import Any, NamedTuple

import orjson

from filon.miner.reading import facts_en
from filon.miner.reading.facts import STATUSES
from filon.miner.reading.facts_fr import (
    DAYS_IN,
    STATUS_KEYS,
    WEEKDAYS,
    WITH_YEAR,
    Fact,
)
from filon.miner.reading.seen_strings import UNIT_KEYS, reading_of
from filon.miner.reading.subjects import same_start, subjects_of
from filon.miner.reading.text import comparable, norm


@dataclass
class Seen:
    """What the agent saw: folded text, the figures in it, the dates (absolute) and the customer's words."""

    text: str = ""
    raw: str = ""
    numbers: set[float] | None = None
    dates: set[date] | None = None
    statuses: set[str] | None = None  # the statuses its lookups returned (None: it looked nothing up)
    day_spans: set[int] | None = None  # the delays in days it read (« 30 jours »)
    lang: str = "fr"  # of the conversation: how its texts are read (`miner.reading.language`)
    durations: set[tuple[int, str]] = field(default_factory=set)  # (figure, unit) read (« 30 jours »)
    # (figure, unit) read with a unit (« 5 jours ouvrés »: (5, "jour")) → the subjects of the clauses it was
    # read in ("" for a clause that names none): « 14 jours » read of the refund is not the return's
    said_with_unit: dict[tuple[int, str], set[str]] = field(default_factory=dict)
    hours: set[tuple[int, int]] = field(default_factory=set)  # times of day read (« de 9 h à 18 h »)
    addresses: set[str] = field(default_factory=set)  # street addresses read (« 14 rue des lilas »)
    # (figure, unit) → what it was read counting from (« 14 jours après réception du retour »: `retour`)
    anchors: dict[tuple[int, str], set[str]] = field(default_factory=dict)
    # the customer's words and the tools' results, folded (not the agent's instructions nor its declared
    # help texts, `source`): what grounds a status of the customer's order when no lookup ran
    reported: str = ""

    def copy(self) -> Seen:
        return Seen(
            self.text,
            self.raw,
            None if self.numbers is None else set(self.numbers),
            None if self.dates is None else set(self.dates),
            None if self.statuses is None else set(self.statuses),
            None if self.day_spans is None else set(self.day_spans),
            self.lang,
            set(self.durations),
            {k: set(v) for k, v in self.said_with_unit.items()},
            set(self.hours),
            set(self.addresses),
            {k: set(v) for k, v in self.anchors.items()},
            self.reported,
        )

    def add(
        self,
        value: Any,
        today: date,
        lookup: bool = False,
        about: str = "",
        source: bool = False,
        asked: bool = False,
    ) -> None:
        """A tool result, a help text or the customer's words; `lookup`: the result of a call that looks an
        order up (its statuses are the ones the agent may report, none if it failed; its « demain » is a
        date); `about`: the tool's name, whose words name its result's subject (`demander_retour`);
        `source`: a help text or instruction the agent was given, which reports nothing of an order;
        `asked`: what the agent asked a call that answered (its figures and dates, never a status)."""
        read = value_read(value, today, self.lang, lookup, about, asked)
        if lookup and self.statuses is None:
            self.statuses = set()
        if read.statuses:
            self.statuses = (self.statuses or set()) | read.statuses
        if self.numbers is None:
            self.numbers = set()
        if self.dates is None:
            self.dates = set()
        self.numbers |= read.numbers
        self.dates |= read.dates
        if read.day_spans:
            self.day_spans = (self.day_spans or set()) | read.day_spans
        self.durations |= read.durations
        for figure, subjects in read.said_with_unit:
            self.said_with_unit.setdefault(figure, set()).update(subjects)
        self.hours |= read.hours
        self.addresses |= read.addresses
        for figure, anchor in read.anchored:
            self.anchors.setdefault(figure, set()).add(anchor)
        if read.plain:  # each text once, joined: not the whole seen text copied again for each string
            self.text += read.plain
            if not source:  # the customer's words and the tools' results, not the agent's instructions
                self.reported += read.plain
            self.raw += read.raw


class ValueRead(NamedTuple):
    """What one value the agent saw says (`value_read`): what `Seen.add` adds of it."""

    statuses: frozenset[str]
    numbers: frozenset[float]
    dates: frozenset[date]
    day_spans: frozenset[int]
    durations: frozenset[tuple[int, str]]
    said_with_unit: tuple[tuple[tuple[int, str], frozenset[str]], ...]  # each with its subjects ({""}: none)
    hours: frozenset[tuple[int, int]]
    addresses: frozenset[str]
    anchored: tuple[tuple[tuple[int, str], str], ...]
    plain: str  # its strings folded, each after a space ("" when it has none)
    raw: str  # the same as written


_VALUES: dict[tuple[Any, ...], ValueRead] = {}
_NO_SUBJECT = frozenset({""})  # a figure read in a clause that names no subject
_VALUES_KEPT = 1024  # values kept at most, and their texts' characters:
_VALUES_TEXT = 8_000_000  # what a long-running worker holds for them stays a few tens of MB
_KEPT_TEXT = [0]
# what orjson writes as something else (a date, a dataclass, a str or int subclass) is refused, not kept:
# `_walk` reads such a value otherwise than the JSON it would be keyed by
_EXACT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def _key_of(value: Any) -> bytes | None:
    """A digest of what the value holds as `_walk` reads it, or None (read, not kept): its JSON by orjson
    (C), or, where that has a `null` (orjson writes NaN and the infinities so, which `_walk` reads as
    figures), by the standard library, which writes them apart."""
    try:
        if type(value) is str:
            written = value.encode("utf-8", "surrogatepass")
        else:
            written = orjson.dumps(value, option=_EXACT)  # keys not str, integers past 64 bits: refused
            if written.find(b"null") != -1:
                written = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError):
        return None
    return hashlib.blake2b(written, digest_size=16).digest()


def value_read(value: Any, today: date, lang: str, lookup: bool, about: str, asked: bool) -> ValueRead:
    """`_value_read`, kept by a digest of the value's JSON while the same result comes again: ingest flags
    a live conversation again with each new turn, and each earlier result would otherwise be walked and
    its strings gathered again, in Python, at every reading (in memory only, `_VALUES_KEPT` at most)."""
    digest = _key_of(value)
    if digest is None:
        return _value_read(value, today, lang, lookup, about, asked)
    key = (digest, today, lang, lookup, about, asked)
    found = _VALUES.get(key)
    if found is None:
        found = _value_read(value, today, lang, lookup, about, asked)
        size = len(found.plain) + len(found.raw)
        if size > _VALUES_TEXT // 8:  # read at each reading, not kept: nor does it evict what is kept
            return found
        if len(_VALUES) >= _VALUES_KEPT or _KEPT_TEXT[0] + size > _VALUES_TEXT:
            _VALUES.clear()
            _KEPT_TEXT[0] = 0
        _VALUES[key] = found
        _KEPT_TEXT[0] += size
    return found


def forget_values() -> None:
    """The values read so far forgotten, as in a new process (a benchmark's rounds)."""
    _VALUES.clear()
    _KEPT_TEXT[0] = 0


def _value_read(value: Any, today: date, lang: str, lookup: bool, about: str, asked: bool) -> ValueRead:
    statuses: set[str] = set()
    numbers: set[float] = set()
    strings: list[tuple[str, str]] = []
    _walk(value, strings, numbers, statuses, not asked)
    dates: set[date] = set()
    spans: set[int] = set()
    durations: set[tuple[int, str]] = set()
    with_unit: list[tuple[tuple[int, str], frozenset[str]]] = []
    hours: set[tuple[int, int]] = set()
    addresses: set[str] = set()
    anchored: list[tuple[tuple[int, str], str]] = []
    plains: list[str] = []
    for key, s in strings:
        read = reading_of(s, today, lang, lookup)
        plains.append(read.plain)
        if read.numbers:  # most strings read nothing: no set is touched for them
            numbers |= read.numbers
        if read.dates:
            dates |= read.dates
        if read.day_spans:
            spans |= read.day_spans
        if read.durations:
            durations |= read.durations
        if read.said_with_unit:
            of_key = _named_subjects(about, key)
            with_unit += [
                (figure, (subjects | of_key) or _NO_SUBJECT) for figure, subjects in read.said_with_unit
            ]
        if read.hours:
            hours |= read.hours
        if read.addresses:
            addresses |= read.addresses
        anchored += read.anchored
    return ValueRead(
        frozenset(statuses),
        frozenset(numbers),
        frozenset(dates),
        frozenset(spans),
        frozenset(durations),
        tuple(with_unit),
        frozenset(hours),
        frozenset(addresses),
        tuple(anchored),
        " " + " ".join(plains) if strings else "",
        " " + " ".join(s for _, s in strings) if strings else "",
    )


@lru_cache(maxsize=16)
def _read_once(texts: tuple[str, ...], today: date, lang: str) -> Seen:
    seen = Seen(lang=lang)
    for text in texts:
        seen.add(text, today, source=True)
    return seen


def seen_in(texts: Sequence[str], today: date, lang: str = "fr") -> Seen:
    """What declared help texts say, read once per day and kept: each conversation starts from a copy
    (its own texts read in its language)."""
    return _read_once(tuple(texts), today, lang).copy()


def _walk(
    value: Any, strings: list[tuple[str, str]], numbers: set[float], found: set[str], statuses: bool = True
) -> None:
    """The strings of a value, each with the key that holds it ("" at the top or in a list of strings);
    with `statuses`, a status a key names is one the agent saw (a result's, never an argument's)."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        key, v = stack.pop()
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, str):
            strings.append((key, v))
        elif isinstance(v, int | float):
            numbers.add(float(v))
        elif isinstance(v, dict):
            for k, item in v.items():
                if not isinstance(k, str):
                    stack.append((key, item))
                    continue
                if statuses and isinstance(item, str) and _status_key(k):
                    status = norm(item)
                    if not status.startswith(_NONE):
                        found.add(status)
                stack.append((k, item))
        elif isinstance(v, list | tuple):
            stack.extend((key, item) for item in v)


# a parcel delivered, lost or not yet handed over is not on its way, though its order says shipped
_ARRIVED = STATUSES["livre"] + STATUSES["perdu"] + STATUSES["en preparation"]
# what a customer says of a status they saw themselves (« j'ai reçu mon colis »: delivered)
CUSTOMER_SAYS = {
    "livre": ("recu", "received", "arrive"),
    "en retard": ("retard", "late"),  # « pas encore arrivé » is no delay: it may not be due yet
}
# a status value that says there is none (« aucun colis expédié »): no status of the order
_NONE = ("aucun", "pas ", "non ", "no ", "not ")


@lru_cache(maxsize=1024)
def _named_subjects(tool: str, key: str) -> frozenset[str]:
    """The subjects a result's key names (`remboursement`), else its tool's name (`demander_retour`): the
    refund's 14 days a return's result holds under `remboursement` are the refund's, not the return's."""
    of_key = subjects_of(norm(key.replace("_", " "))) if key else frozenset()
    return of_key or (subjects_of(norm(tool.replace("_", " "))) if tool else frozenset())


@lru_cache(maxsize=1024)
def _status_key(key: str) -> bool:
    return norm(key) in STATUS_KEYS


def _duration_grounded(fact: Fact, seen: Seen, today: date, dates: set[date]) -> bool:
    n, unit = fact.value
    anchors = seen.anchors.get((n, UNIT_KEYS.get(unit, unit)))
    # « remboursé sous 14 jours après votre demande »: it read them counted from the return received
    elsewhere = bool(fact.anchor and anchors and not same_start(fact.anchor, anchors))
    subjects = seen.said_with_unit.get((n, UNIT_KEYS.get(unit, unit)))  # 60 € is not 60 jours
    if elsewhere:
        subjects = subjects or set()  # read only of another event: no delay read, a distance may be
    elif subjects is not None and (not fact.subjects or fact.subjects & subjects or "" in subjects):
        return True  # read with its unit, of the subject the answer gives it or in a clause naming none
    if unit not in DAYS_IN:
        return False
    # in days: « 2 semaines » is the 14 jours read; « livrée il y a 31 jours » the distance to a date
    # seen; « dépassé d'un jour » the gap between such a distance and a delay read. A figure read only of
    # another subject (« remboursé sous 30 jours » when the 30 days are the return's) is no delay read:
    # only the distances to dates seen can make it up
    days = n * DAYS_IN[unit]
    known = {abs((d - today).days) for d in dates}
    if subjects is None:
        known |= {m * DAYS_IN[u] for m, u in seen.durations if u in DAYS_IN}
    return days in known or any(abs(a - b) == days for a in known for b in known)


def grounded(fact: Fact, seen: Seen, today: date) -> bool:
    numbers, dates = seen.numbers or set(), seen.dates or set()
    if fact.kind == "montant":  # a figure seen, or the sum of two (articles and shipping: the total)
        value = round(float(fact.value), 2)
        if value in numbers or -value in numbers:  # a refund said of a difference computed negative
            return True
        # the sum of two (articles and shipping: the total), or what one leaves of another (a balance)
        return any(round(value - a, 2) in numbers or round(value + a, 2) in numbers for a in numbers if a > 0)
    if fact.kind == "pourcentage":
        return float(fact.value) in numbers
    if fact.kind == "durée":
        return _duration_grounded(fact, seen, today, dates)
    if fact.kind == "date":
        if isinstance(fact.value, int):  # a weekday: said where the agent read it, or a date it saw is one
            if WEEKDAYS[fact.value] in seen.text or facts_en.WEEKDAYS[fact.value] in seen.text:
                return True
            # or today's own (the agent is told the day: « comme nous sommes samedi »)
            return any(d.weekday() == fact.value and abs((d - today).days) <= 7 for d in dates | {today})
        if fact.value in dates:
            return True
        if not WITH_YEAR.search(fact.said) and dates:  # said without its year: that day and month seen in
            value, latest = fact.value, max(dates).year  # a recent year (a replay's turns are dated the day
            # they were recorded, and so are the customer's own dates), never a birth date's
            if any(d.month == value.month and d.day == value.day and d.year >= latest - 3 for d in dates):
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
            # it looked nothing up: a general statement of the policy, not a report; but a status said of
            # the customer's own order is a report, found only in the customer's words or a tool's result
            words = STATUSES[fact.value] + CUSTOMER_SAYS.get(fact.value, ())
            return not fact.own or any(re.search(rf"\b{w}", seen.reported) for w in words)
        said = STATUSES[fact.value]
        if fact.value == "en transit":  # a parcel late is still on its way, an order shipped is too
            said = said + STATUSES["en retard"]
            if not any(re.search(rf"\b{f}", s) for s in seen.statuses for f in _ARRIVED):
                said = said + STATUSES["expedie"]
        return any(any(re.search(rf"\b{f}", s) for f in said) for s in seen.statuses)
    if fact.kind in ("transporteur", "lieu"):
        return str(fact.value) in seen.text
    if fact.kind == "heure":
        return fact.value in seen.hours
    if fact.kind == "adresse":
        return str(fact.value) in seen.addresses
    if fact.kind == "suivi":
        return str(fact.value) in seen.raw
    return True


def admitted(fact: Fact, allowed: Sequence[str]) -> bool:
    """Whether a case or an example admits this fact (`faits_admis`: « 45 € », a figure a policy computes)."""
    return any(a and (a in fact.said or fact.said in a) for a in (comparable(x) for x in allowed))
