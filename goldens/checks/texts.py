"""Words, last: each `contient` group is satisfied by any one of its variants, and no `ne_contient_pas`
entry may appear.

Text is compared without case or accents, with typographic apostrophes and non-breaking spaces folded
(`norm`), and also with French numbers written in words read as digits (`comparable`): a text check holds
if either reading holds. A model that writes « trois euros quatre-vingt-dix » or « soixante euros » says
what « 3 euros 90 » and « 60 euros » say, a `ne_contient_pas` of « 1 an » catches « un an », and nothing
the plain reading matched is lost to the number reading (text2num leaves « d'un » alone where a check
« un avoir » would read « 1 avoir »). An answer in English has its English number words read
(« five to eight business days » holds a check « 8 days »), its language told by `miner.reading.language`. A
`contient` variant that is a figure alone (« 23553 », « 1 286,50 € ») also holds where the answer writes
that number grouped otherwise (« $23,553 », « 23 553 »): figures compared as figures. A variant of
several words also holds with an adverb or two inside it (« ne fait pas encore partie » holds « ne fait pas
partie », "is still in transit" holds "is in transit"; never a negation), as another good wording puts
them; a `ne_contient_pas` is held to its words as written.
"""

from __future__ import annotations

import re
from functools import lru_cache

from filon.goldens.case.schema import Case
from filon.goldens.checks.base import Cost, Gap, check_kind
from filon.miner.core.messages import one_of, said
from filon.miner.core.transcript import Transcript
from filon.miner.reading.language import language
from filon.miner.reading.text import comparable, norm


@lru_cache(maxsize=4096)
def folded(needle: str) -> str:
    """A check's own text, folded once: the same checks are read on every answer."""
    return norm(needle)


def found(
    needle: str,
    plain: str,
    numbers: str,
    lang: str = "fr",
    figures: frozenset[float] = frozenset(),
    adverbs: bool = True,
) -> bool:
    if folded(needle) in plain or comparable(needle, lang) in numbers:
        return True
    value = figure(needle)
    if value is not None and value in figures:
        return True
    loose = _loose(needle) if adverbs else None
    return loose is not None and loose.search(plain) is not None


# words another good answer puts inside a phrase without changing what it says: « ne fait pas encore
# partie », « est bien arrivée », "is still in transit"; never a negation (« fait partie » is not « ne
# fait pas partie »)
ADVERBS = (
    "encore",
    "toujours",
    "deja",
    "bien",
    "vraiment",
    "actuellement",
    "malheureusement",
    "aussi",
    "seulement",
    "egalement",
    "helas",
    "desormais",
    "bel et bien",
    "pour l'instant",
    "pour le moment",
    "still",
    "yet",
    "currently",
    "unfortunately",
    "also",
    "really",
    "already",
    "actually",
    "now",
)
_INSIDE = "(?:" + "|".join(re.escape(a) for a in ADVERBS) + r")"


@lru_cache(maxsize=4096)
def _loose(needle: str) -> re.Pattern[str] | None:
    """The phrase with an adverb or two allowed between its words, or None for a single word."""
    words = folded(needle).split()
    if len(words) < 2:
        return None
    between = rf"\s+(?:{_INSIDE}\s+){{0,2}}"
    return re.compile(between.join(map(re.escape, words)))  # a substring, as the plain reading is


# a check that is a figure alone (« 23553 », « 1 286,50 € », « $1,286 »): held to the answer's figures as
# numbers, whatever their grouping (« 23,553 », « 23 553 », « 23553.0 »)
_FIGURE = re.compile(
    r"^\s*[$€£]?\s*-?\d[\d\s.,\u202f\u00a0]*\s*(?:[$€£%]|eur|euros?|dollars?|usd)?\s*$", re.I
)
_NUMBER = re.compile(r"\d{1,3}(?:[,.\u202f\u00a0 ]\d{3})+(?:[.,]\d+)?(?!\d)|\d+(?:[.,]\d+)?")
_GROUP = re.compile(r"[,.\u202f\u00a0 ](?=\d{3}(?:\D|$))")


def _readings(token: str) -> set[float]:
    """The values a written number may be: « 1,286 » is 1286 in English and 1.286 in French."""
    out: set[float] = set()
    ungrouped = _GROUP.sub("", token)  # separators before groups of three digits: thousands
    for text in {ungrouped, token}:
        for decimal in (".", ","):
            other = "," if decimal == "." else "."
            candidate = text.replace(other, "").replace(decimal, ".").replace(" ", "")
            candidate = candidate.replace("\u202f", "").replace("\u00a0", "")
            try:
                out.add(float(candidate))
            except ValueError:
                continue
    return out


@lru_cache(maxsize=4096)
def figure(needle: str) -> float | None:
    """The value of a check that is a figure alone, or None."""
    if not _FIGURE.match(needle):
        return None
    found = _NUMBER.search(needle)
    if found is None:
        return None
    values = _readings(found.group())
    return min(values, key=lambda v: abs(v - round(v))) if values else None


def figures(said: str) -> frozenset[float]:
    """Every value the answer's numbers may be read as."""
    return frozenset(v for token in _NUMBER.findall(said) for v in _readings(token))


def text_gaps(
    answer: str,
    contient: list[str | list[str]],
    ne_contient_pas: list[str],
    prefix: str = "",
    turn: int | None = None,
) -> list[Gap]:
    lang = language([answer])
    plain, numbers = norm(answer), comparable(answer, lang)
    values = (
        figures(answer) if any(figure(v) is not None for g in contient for v in _variants(g)) else frozenset()
    )
    out: list[Gap] = []
    for i, group in enumerate(contient):
        variants = _variants(group)
        if not any(found(v, plain, numbers, lang, values) for v in variants):
            quoted = [said("gap.quoted", text=v) for v in variants]
            message = said("gap.missing_text", texts=one_of(quoted))
            out.append(Gap("texte_manquant", f"{prefix}contient[{i}]", message, turn))
    for i, text in enumerate(ne_contient_pas):
        if found(text, plain, numbers, lang, adverbs=False):
            out.append(
                Gap(
                    "texte_interdit",
                    f"{prefix}ne_contient_pas[{i}]",
                    said("gap.forbidden_text", text=text),
                    turn,
                )
            )
    return out


def _variants(group: str | list[str]) -> list[str]:
    return group if isinstance(group, list) else [group]


@check_kind(rank=50)
class Texts:
    """The case's `contient` and `ne_contient_pas`, over every answer of the conversation."""

    name = "textes"
    cost = Cost.DETERMINISTIC

    def applies(self, case: Case) -> bool:
        return bool(case.contient or case.ne_contient_pas)

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        return text_gaps(" ".join(transcript.answers), case.contient, case.ne_contient_pas)
