"""`filon judge calibrate`: the judge measured on answers of known verdict before anyone trusts it.

The known verdicts are the cases' examples: for a criterion, every example of a case that carries it
(its `criteres` verdict where the reviewer gave one, else its overall verdict), and any other example a
reviewer labelled for it. The judge scores each one `repeats` times; the majority is its verdict. The
figures are the seeds': accuracy, Cohen's kappa (agreement beyond chance), the confusion matrix, the
worst disagreements, and the stability over the repeats. `--write` keeps them beside the rubric, where the
gate reads whether the criterion may gate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime

from filon.goldens.case.schema import Case
from filon.goldens.checks.rubrics import Calibration, Disagreement, Rubric
from filon.goldens.models.judge import Judge, JudgeError
from filon.goldens.set.calibration import label
from filon.miner.core.messages import Said, said, why

VERDICTS = ("bon", "mauvais")


@dataclass(frozen=True)
class Label:
    case_id: str
    index: int
    verdict: str  # the reviewer's, for this criterion
    customer: list[str]
    answer: str


def labels(cases: list[Case], critere: str) -> list[Label]:
    out = []
    for case in cases:
        carries = critere in case.criteria()
        for i, example in enumerate(case.exemples):
            if carries or critere in (example.criteres or {}):
                answer = "\n".join(example.answers())
                out.append(Label(case.id, i, label(example, critere), list(case.tours), answer))
    return out


def kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's kappa of (reviewer, judge) verdicts; None when chance agreement is total (one class only)."""
    n = len(pairs)
    if not n:
        return None
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[v] * second[v] for v in VERDICTS) / (n * n)
    if expected >= 1.0:
        return None
    return round((observed - expected) / (1 - expected), 4)


@dataclass
class Scored:
    label: Label
    scores: list[int] = field(default_factory=list)
    reason: str = ""
    error: str | None = None

    def verdict(self, rubric: Rubric) -> str:
        passes = sum(rubric.passes(s) for s in self.scores)
        return "bon" if passes * 2 > len(self.scores) else "mauvais"

    def stable(self, rubric: Rubric) -> bool:
        return len({rubric.passes(s) for s in self.scores}) <= 1


@dataclass
class Result:
    rubric: Rubric
    figures: Calibration
    errors: list[str]


def calibrate(
    judge: Judge,
    rubric: Rubric,
    known: list[Label],
    repeats: int = 3,
    concurrency: int = 4,
    on_done: Callable[[], None] | None = None,
) -> Result:
    def run(item: Label) -> Scored:
        scored = Scored(item)
        try:
            for _ in range(repeats):
                verdict = judge.score(rubric, item.customer, item.answer)
                scored.scores.append(verdict.score)
                scored.reason = verdict.reason
        except JudgeError as exc:
            scored.error = str(exc)
        if on_done:
            on_done()
        return scored

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        done = list(pool.map(run, known))
    scored = [s for s in done if s.error is None]
    pairs = [(s.label.verdict, s.verdict(rubric)) for s in scored]
    matrix = {a: {b: sum(1 for x, y in pairs if (x, y) == (a, b)) for b in VERDICTS} for a in VERDICTS}
    wrong = [s for s in scored if s.verdict(rubric) != s.label.verdict]
    # the worst: the judge's mean score farthest from the threshold, on the wrong side
    wrong.sort(key=lambda s: -abs(sum(s.scores) / len(s.scores) - (rubric.threshold - 0.5)))
    figures = Calibration(
        model=judge.model,
        rubric_sha256=rubric.sha256,
        labels=len(pairs),
        accuracy=round(sum(a == b for a, b in pairs) / len(pairs), 4) if pairs else 0.0,
        kappa=kappa(pairs),
        matrix=matrix,
        stability=round(sum(s.stable(rubric) for s in scored) / len(scored), 4) if scored else 0.0,
        repetitions=repeats,
        date=datetime.now(UTC).date().isoformat(),
        disagreements=[
            Disagreement(
                case=s.label.case_id,
                example=s.label.index,
                expected=s.label.verdict,
                score=round(sum(s.scores) / len(s.scores)),
                reason=s.reason,
            )
            for s in wrong[:5]
        ],
    )
    return Result(
        rubric, figures, [f"{s.label.case_id}[{s.label.index}]: {s.error}" for s in done if s.error]
    )


@dataclass
class CalibrateOutcome:
    """What `filon judge calibrate` hands back: each criterion's result and where it was written."""

    exit_code: int
    message: str | Said = ""
    results: list[Result] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    banner: Said | str = ""


def calibrate_set(
    goldens: str | None,
    criteres: list[str] | None,
    backend: str,
    model_url: str | None,
    judge_model: str | None,
    repeats: int = 3,
    write: bool = False,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[], None] | None = None,
) -> CalibrateOutcome:
    """The library call behind the command: every criterion the set uses (or those asked for) calibrated
    on the set's examples; with `write`, the figures saved beside each rubric (never after a judge error)."""
    from filon.agent.model import MissingCredentials, open_backend
    from filon.goldens.checks.rubrics import RubricError, judges_dir, load_rubric
    from filon.goldens.exits import Exit
    from filon.goldens.models.judge import default_judge_model
    from filon.goldens.set.caseset import load_set, missing_set

    if repeats < 1:
        return CalibrateOutcome(Exit.USAGE, said("err.judge.repeats"))
    absent = missing_set(goldens)
    if absent is not None:  # no folder: a usage error (2), as `eval` and `lint` say it
        return CalibrateOutcome(Exit.USAGE, absent)
    caseset = load_set(goldens)
    if caseset.errors:
        return CalibrateOutcome(Exit.INVALID_SET, said("err.set.invalid", folder=str(caseset.folder)))
    used = sorted({c for case in caseset.cases for c in case.criteria()})
    names = criteres or used
    folder = judges_dir(caseset.folder)
    try:
        rubrics = [load_rubric(folder, n) for n in names]
    except RubricError as exc:
        return CalibrateOutcome(Exit.USAGE, said("err.at", where="--critere", why=why(exc)))
    if not rubrics:
        return CalibrateOutcome(Exit.USAGE, said("err.judge.no_juge", folder=str(caseset.folder)))
    try:
        with open_backend(backend, None, model_url) as opened:
            judge = Judge(
                opened.client,
                judge_model or default_judge_model(opened.model, opened.scripted),
                opened.scripted,
            )
            known = {r.name: labels(caseset.cases, r.name) for r in rubrics}
            if on_start:
                on_start(sum(len(v) for v in known.values()))
            results = [calibrate(judge, r, known[r.name], repeats, on_done=on_done) for r in rubrics]
    except MissingCredentials as exc:
        return CalibrateOutcome(Exit.INCONCLUSIVE, why(exc))
    except ValueError as exc:
        return CalibrateOutcome(Exit.USAGE, why(exc))
    banner = said("banner.judge_stand_in" if judge.stand_in else "banner.judge", model=judge.model)
    return _written(results, write, banner)


def _written(results: list[Result], write: bool, banner: Said) -> CalibrateOutcome:
    """The figures saved beside each rubric when asked, never after a judge error."""
    from filon.goldens.checks.rubrics import RubricError, write_calibration
    from filon.goldens.exits import Exit

    if any(r.errors for r in results):
        return CalibrateOutcome(Exit.INCONCLUSIVE, said("err.judge.failed"), results, banner=banner)
    try:
        written = [str(write_calibration(r.rubric, r.figures)) for r in results] if write else []
    except RubricError as exc:  # a calibration file edited by hand into something else: not overwritten
        return CalibrateOutcome(
            Exit.USAGE, said("err.judge.calibration_file", why=why(exc)), results, banner=banner
        )
    return CalibrateOutcome(Exit.OK, "", results, written, banner)
