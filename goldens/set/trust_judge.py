"""The calibrated judge in `filon goldens trust --judge`: what the whole gate CI runs would decide of a
judged answer, the criteria that ask a model included (a rude answer with every fact right is theirs).

As `filon eval` does: a case's `juge` criteria are asked only of an answer that passed every
deterministic check, and a criterion counts only while its calibration lets it gate for the judge model
in use (`goldens.checks.rubrics.standing`); one that is advisory is not asked. The answer is judged
against the case's customer turns. Each verdict costs a model call: the stand-in's in tests.
"""

from __future__ import annotations

from pathlib import Path

from filon.goldens.case.schema import Case, Example
from filon.goldens.checks.rubrics import Rubric, judges_dir, load_rubric, standing
from filon.goldens.models.judge import Judge
from filon.goldens.set.trust import JudgeGaps


def judge_gaps(judge: Judge, goldens: Path, min_kappa: float, min_labels: int) -> JudgeGaps:
    """A function giving the gating criteria an answer fails, one judge call per criterion asked."""
    rubrics: dict[str, Rubric | None] = {}

    def gating(name: str) -> Rubric | None:
        if name not in rubrics:
            rubric = load_rubric(judges_dir(goldens), name)
            gates = standing(rubric, judge.model, min_kappa, min_labels).gates
            rubrics[name] = rubric if gates else None
        return rubrics[name]

    def gaps(case: Case, example: Example) -> list[str]:
        out = []
        for name in case.criteria():
            rubric = gating(name)
            if rubric is None:
                continue
            verdict = judge.score(rubric, list(case.tours), "\n".join(example.answers()))
            if not verdict.passed:
                out.append(f"juge.{name}")
        return out

    return gaps
