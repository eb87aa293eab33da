"""What a figure is about: the subject of the clause a duration is said in (« le remboursement intervient
sous 14 jours »: the refund), so that a delay the agent read about one thing is not taken for another's
(the 30 days to return an article are not the refund's). A subject is a few word stems in either language;
a clause that names none says nothing either way.

Pure functions over plain data; no model.
"""

from __future__ import annotations

import re
from functools import lru_cache

SUBJECTS: dict[str, tuple[str, ...]] = {
    "remboursement": ("rembours", "refund"),
    "retour": ("retour", "retourn", "renvoy", "retract", "return"),
    "livraison": ("livr", "expedi", "achemin", "deliver", "ship"),
    "preparation": ("prepar",),
    "retard": ("retard", "enquete", "delay"),
    "garantie": ("garanti", "warrant"),
    "validite": ("valab", "valid", "expire"),
}
_OF_STEM = {stem: subject for subject, stems in SUBJECTS.items() for stem in stems}
_STEM = re.compile(r"\b(" + "|".join(sorted(_OF_STEM, key=len, reverse=True)) + r")")
_ENDS = ".;!?:\n"
REACH = 200  # characters a clause is read either side of a fact: a run-on text costs linear time
_CLAUSE = re.compile(r"[.;!?:\n]")


def clause_start(plain: str, at: int) -> int:
    """Where the clause holding `at` starts: after the last « . ! ? ; : » before it, at most `REACH`
    characters back."""
    reach = max(0, at - REACH)
    return max(reach, *(plain.rfind(c, reach, at) + 1 for c in _ENDS))


def clause_end(plain: str, end: int) -> int:
    """Where the clause holding `end` stops, at most `REACH` characters on."""
    limit = min(len(plain), end + REACH)
    return min((i for i in (plain.find(c, end, limit) for c in _ENDS) if i >= 0), default=limit)


def subjects_around(plain: str, at: int, end: int) -> frozenset[str]:
    """The subjects named before `at` in its clause of folded text (« la garantie légale, valable 2 ans »:
    the warranty and a validity), or, where none is, after `end` in it (« comptez 30 jours pour le
    remboursement »)."""
    before = _STEM.findall(plain, clause_start(plain, at), at)
    if before:
        return frozenset(_OF_STEM[s] for s in before)
    return frozenset(_OF_STEM[s] for s in _STEM.findall(plain, end, clause_end(plain, end)))


@lru_cache(maxsize=1024)
def subjects_of(text: str) -> frozenset[str]:
    """Every subject a folded text names (a result's key: « remboursement »)."""
    return frozenset(_OF_STEM[s] for s in _STEM.findall(text))


def clauses(plain: str) -> list[tuple[frozenset[str], str]]:
    """The clauses of folded text, each with the subjects it names."""
    return [(subjects_of(c), c) for c in _CLAUSE.split(plain) if c.strip()]
