"""The one protocol every check kind implements, and the typed gap it returns.

A check kind says whether it applies to a case, its cost order (deterministic first, the shop afterwards
next, model calls last), and grades a case against a transcript: `grade(case, transcript) -> list[Gap]`.
The grader (`goldens.checks.grader`) loops over them in cost order. A gap is typed: its kind, the check
(the case's field path, as lint names it), the turn (1-based, None for the whole conversation) and what
it says, a code of the catalogue (`miner.core.messages`): `str(gap)` is its French, as the report prints
it, and `gap.said` the sentence to render in either language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Literal, Protocol, TypeVar

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


K = TypeVar("K")
_REGISTERED: dict[str, tuple[int, Check]] = {}


def check_kind(rank: int) -> Callable[[type[K]], type[K]]:
    """Register the decorated class as a kind of check of every case, graded at `rank` (the seeds' order
    of trust: actions, then the shop, then words); `goldens.checks.grader.kinds` finds it with no list to
    edit."""

    def register(cls: type[K]) -> type[K]:
        kind: Check = cls()  # type: ignore[assignment]
        known = _REGISTERED.get(kind.name)
        if known is not None and _where(type(known[1])) != _where(cls):  # the same module read twice is one
            raise RuntimeError(f"check kind {kind.name!r} is registered twice")
        _REGISTERED[kind.name] = (rank, kind)
        return cls

    return register


def _where(cls: type) -> tuple[str, str]:
    return cls.__module__.removeprefix("filon."), cls.__qualname__


def registered() -> list[tuple[int, Check]]:
    """The kinds registered so far, with their rank."""
    return list(_REGISTERED.values())
