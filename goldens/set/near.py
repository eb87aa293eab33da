"""A case that nearly repeats one already in the set: same actions, same flags, close words.

A golden set grows one incident at a time, and the same incident comes back: a second case for it costs
CI time and weighs that behaviour twice in the score. Saving one warns and names the case it repeats;
the reviewer decides (a second phrasing of a known attack is worth keeping; a copy is not).
"""

from __future__ import annotations

import re

from filon.goldens.case.schema import Case
from filon.miner.reading.text import fold

WORD = re.compile(r"[a-z0-9]{3,}")
CLOSE = 0.6  # share of the words of the two first messages in common (Jaccard)


def _actions(case: Case) -> tuple[object, ...]:
    tools = frozenset(tuple(sorted(group)) for group in case.expected_tools())
    flags = frozenset((case.source or {}).get("flags") or [])
    return (case.categorie, tools, frozenset(case.forbidden_tools()), case.escalade, flags)


def _words(case: Case) -> set[str]:
    return set(WORD.findall(fold(" ".join(case.tours))))


def similarity(a: Case, b: Case) -> float:
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / len(wa | wb) if wa | wb else 1.0


def near_duplicates(case: Case, others: list[Case]) -> list[tuple[str, float]]:
    """The cases of `others` with the same actions and flags as `case` and close user text, closest first."""
    mine = _actions(case)
    found = [(o.id, similarity(case, o)) for o in others if o.id != case.id and _actions(o) == mine]
    return sorted(((i, s) for i, s in found if s >= CLOSE), key=lambda x: -x[1])
