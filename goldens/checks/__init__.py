"""The checks a case's attempt is graded by: one protocol (`Check`), one typed `Gap`, one loop (`grade`).

Kinds, in cost order: `Actions` (tools expected with their arguments, tools forbidden, escalation),
`Order`, `TurnActions`, `Texts`, `TurnTexts` (deterministic), then `FinalState` and `Simulated` (what the
conversation left behind). The checks that ask a model run after them (`goldens.models.model_checks`).
"""

from filon.goldens.checks.base import Check, Cost, Gap, GapKind, check_kind
from filon.goldens.checks.grader import grade, kinds, words_only
from filon.goldens.checks.matching import case_data
from filon.miner.reading.text import comparable

__all__ = [
    "Check",
    "Cost",
    "Gap",
    "GapKind",
    "case_data",
    "check_kind",
    "comparable",
    "grade",
    "kinds",
    "words_only",
]
