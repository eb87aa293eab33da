"""The grader: a loop over check kinds, cheapest first. A pure function of a case and a transcript.

Every deterministic kind runs (the report lists every gap, not the first); kinds of a higher cost run only
while nothing has failed, as the seeds order evaluators: a case whose actions are wrong has failed already.
The run adds two kinds of its own to the loop: the rulebook (`goldens.checks.rules.GatingRules`,
deterministic) and the checks that ask a model (`goldens.models.model_checks.AskModels`, the costliest).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from filon.goldens.case.schema import Case
from filon.goldens.checks.actions import Escalation, Tools
from filon.goldens.checks.base import Check, Cost, Gap
from filon.goldens.checks.order import Order
from filon.goldens.checks.per_turn import TurnActions, TurnTexts
from filon.goldens.checks.state import FinalState, Simulated
from filon.goldens.checks.texts import Texts
from filon.miner.core.transcript import Transcript

# in the seeds' order of trust: actions, their order and their turn, then the shop, then words
KINDS: tuple[Check, ...] = (
    Tools(),
    Escalation(),
    Order(),
    TurnActions(),
    Texts(),
    TurnTexts(),
    FinalState(),
    Simulated(),
)
TOOL_KINDS = frozenset(("outils", "ordre", "actions par tour"))
_ORDERED = tuple(sorted(KINDS, key=lambda k: k.cost))


def grade(
    case: Case,
    transcript: Transcript,
    kinds: Sequence[Check] = KINDS,
    keep: Callable[[Check], bool] | None = None,
) -> list[Gap]:
    """The gaps between what the case expects and what the transcript shows; empty: the case passed."""
    gaps: list[Gap] = []
    ordered = _ORDERED if kinds is KINDS else sorted(kinds, key=lambda k: k.cost)
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
