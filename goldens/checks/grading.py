"""The seeds' public grader, `evaluer_cas(cas, outils, reponses, escaladee) -> list[str]`, kept with its
signature: the flat summary (tools, answers, escalation) read as a transcript and graded by the one loop
over check kinds (`goldens.checks.grade`), gaps as the French strings the report prints.

Everything in filon grades a `Case` against a `Transcript` (`goldens.checks`); this is for scripts
written against the seeds' function.
"""

from __future__ import annotations

from typing import Any

from filon.goldens.case.schema import CHECK_FIELDS, Case
from filon.goldens.checks import comparable, grade
from filon.miner.core.transcript import Transcript
from filon.miner.reading.text import norm

__all__ = ["comparable", "evaluer_cas", "norm"]


def evaluer_cas(cas: dict[str, Any], outils: list[str], reponses: list[str], escaladee: bool) -> list[str]:
    """The gaps between what the case expects and what the agent did; an empty list means it passed."""
    checks = {k: v for k, v in cas.items() if k in CHECK_FIELDS}
    case = Case.model_validate({"id": "cas", "categorie": "cas", "tours": ["?"], **checks})
    transcript = Transcript.flat(outils, reponses, escaladee)
    return [str(g) for g in grade(case, transcript)]
