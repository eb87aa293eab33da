"""The one protocol every check kind implements, and the typed gap it returns.

A check kind says whether it applies to a case, its cost order (deterministic first, the shop afterwards
next, model calls last), and grades a case against a transcript: `grade(case, transcript) -> list[Gap]`.
The grader (`goldens.checks.grader`) loops over them in cost order. A gap is typed: its kind, the check
(the case's field path, as lint names it), the turn (1-based, None for the whole conversation) and what
it says, a code of the catalogue (`miner.core.messages`): `str(gap)` is its French, as the report prints
it, and `gap.said` the sentence to render in either language.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Literal, Protocol

from filon.goldens.case.schema import Case
from filon.miner.core.messages import Said, said
from filon.miner.core.transcript import Transcript

GapKind = Literal[
    "outil_manquant",
    "outil_interdit",
    "arguments",
    "appels_en_trop",
    "escalade",
    "ordre",
    "texte_manquant",
    "texte_interdit",
    "etat_final",
    "simulation",
    "similarite",
    "juge",
    "regle",
    "infrastructure",
]


class Cost(IntEnum):
    """Cheapest first: a case whose actions are wrong has failed before a model is asked anything."""

    DETERMINISTIC = 0
    STATE = 1
    MODEL = 2


@dataclass(frozen=True)
class Gap:
    """One way the attempt differs from what the case expects."""

    kind: GapKind
    check: str  # the case's field path: outils[0], par_tour[1].contient[0], ordre
    message: Said
    turn: int | None = None  # 1-based; None: over the whole conversation

    @property
    def said(self) -> Said:
        """What the gap says, its turn named where it has one."""
        return self.message if self.turn is None else said("gap.at_turn", turn=self.turn, gap=self.message)

    def __str__(self) -> str:
        return str(self.said)

    @property
    def infrastructure(self) -> bool:
        """Not the agent's failure: what the spans recorded cannot decide the check."""
        return self.kind == "infrastructure"


class Check(Protocol):
    """A kind of check. `name` is how the report and `--explain` call it."""

    name: str
    cost: Cost

    def applies(self, case: Case) -> bool: ...

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]: ...
