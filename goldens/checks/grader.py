"""The grader: a loop over check kinds, cheapest first. A pure function of a case and a transcript.

Every deterministic kind runs (the report lists every gap, not the first); kinds of a higher cost run only
while nothing has failed, as the seeds order evaluators: a case whose actions are wrong has failed already.
The run adds two kinds of its own to the loop: the rulebook (`goldens.checks.rules.GatingRules`,
deterministic) and the checks that ask a model (`goldens.models.model_checks.AskModels`, the costliest).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from functools import cache
from itertools import pairwise

from filon.goldens.case.schema import Case
from filon.goldens.checks.base import Check, Cost, Gap, registered
from filon.miner.core.transcript import Transcript

TOOL_KINDS = frozenset(("outils", "ordre", "actions par tour"))


@cache
def kinds() -> tuple[Check, ...]:
    """Every kind of check, in the seeds' order of trust: actions, their order and their turn, then the
    shop, then words. Each is registered where it is defined (`@check_kind`, in any module of
    `goldens/checks/`); the rulebook and the models' checks are the run's to add."""
    package = importlib.import_module("filon.goldens.checks")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"filon.goldens.checks.{module.name}")
    found = sorted(registered(), key=lambda r: r[0])
    for (a, x), (b, y) in pairwise(found):
        if a == b:
            raise RuntimeError(f"check kinds {x.name!r} and {y.name!r} share rank {a}: give each its own")
    return tuple(kind for _, kind in found)


@cache
def _ordered() -> tuple[Check, ...]:
    return tuple(sorted(kinds(), key=lambda k: k.cost))


def grade(
    case: Case,
    transcript: Transcript,
    among: Sequence[Check] | None = None,
    keep: Callable[[Check], bool] | None = None,
) -> list[Gap]:
    """The gaps between what the case expects and what the transcript shows (by every kind, or `among`
    those given); empty: the case passed."""
    gaps: list[Gap] = []
    ordered = _ordered() if among is None else sorted(among, key=lambda k: k.cost)
    for kind in ordered:
        if keep is not None and not keep(kind):
            continue
        if kind.cost > Cost.DETERMINISTIC and gaps:  # failed, or undecidable: nothing costlier is asked
            break
        if kind.applies(case):
            gaps.extend(kind.grade(case, transcript))
    return gaps


def words_only(kind: Check) -> bool:
    """For an example that gives no tools: its tools are taken as the case expects them (its escalation
    too, unless it gives one), so it proves the words alone."""
    return kind.name not in TOOL_KINDS
