"""The checks that ask a model, run after the deterministic ones and only when those passed: similarity to
a reference answer (`proche_de`, embeddings), then the judge (`juge`, one rubric each).

Cheapest first, as the seeds order evaluators: a case whose tools or facts are wrong has failed already,
and no token is spent judging its tone. A criterion that is not calibrated for the judge model in use
(`goldens.checks.rubrics.standing`) is advisory: its failures are reported as `avis`, never as a gap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from filon.agent.model import Backend
from filon.goldens.case.schema import Case
from filon.goldens.checks.base import Cost, Gap
from filon.goldens.checks.rubrics import Rubric, Standing, judges_dir, load_rubric, standing
from filon.goldens.models.judge import Judge, JudgeError
from filon.goldens.models.similarity import Embedder, EmbeddingError, Similarity
from filon.goldens.models.simulator import Simulator
from filon.miner.core.messages import Said, said, sentence
from filon.miner.core.transcript import Transcript
from filon.miner.rules.config import FlagConfig


@dataclass(frozen=True)
class Judged:
    """One criterion's verdict on one attempt, with whether it gated."""

    criterion: str
    score: int
    scale: int
    threshold: int
    passed: bool
    gates: bool
    reason: str


@dataclass
class Outcome:
    """What the model checks added to an attempt."""

    gaps: list[Gap] = field(default_factory=list)
    notes: list[Said] = field(default_factory=list)  # advisory criteria: never gaps
    judged: list[Judged] = field(default_factory=list)
    similarities: list[Similarity] = field(default_factory=list)
    judge_skipped: int = 0
    judge_input_tokens: int = 0
    judge_output_tokens: int = 0
    embedding_tokens: int = 0  # what this attempt's texts cost to embed (each text once per run)
    error: str | Said | None = None


@dataclass
class ModelChecks:
    """The judge and the embedder of a run, with each rubric and its standing for the judge in use."""

    judge: Judge | None = None
    embedder: Embedder | None = None
    rubrics: dict[str, Rubric] = field(default_factory=dict)
    standings: dict[str, Standing] = field(default_factory=dict)
    simulator: Simulator | None = None  # the simulated customer of `simulation` cases

    @classmethod
    def for_cases(
        cls,
        cases: list[Case],
        goldens_folder: Path,
        judge: Judge | None,
        embedder: Embedder | None,
        min_kappa: float,
        min_labels: int,
    ) -> ModelChecks:
        """The rubrics the cases name, loaded (`RubricError` if one is missing), and their standing."""
        folder = judges_dir(goldens_folder)
        names = sorted({c for case in cases for c in case.criteria()})
        rubrics = {name: load_rubric(folder, name) for name in names}
        model = judge.model if judge else ""
        standings = {n: standing(r, model, min_kappa, min_labels) for n, r in rubrics.items()}
        return cls(judge, embedder, rubrics, standings)

    def announce(self) -> list[Said]:
        """Each model these checks call, for the run's banner; the scripted stand-in said to be one."""
        named = (
            ("role.judge", self.judge),
            ("role.embeddings", self.embedder),
            ("role.simulator", self.simulator),
        )
        return [
            said("banner.role_stand_in" if m.stand_in else "banner.role", role=said(role), model=m.model)
            for role, m in named
            if m is not None
        ]

    def apply(
        self, case: Case, answers: list[str], deterministic_passed: bool, customer: list[str] | None = None
    ) -> Outcome:
        """The attempt's similarity, then its judge criteria; `customer`: the messages sent (a simulated
        customer's, for a simulation), the case's turns by default."""
        out = Outcome()
        if not deterministic_passed:
            out.judge_skipped = len(case.juge)
            return out
        answer = "\n".join(a for a in answers if a)
        try:
            if case.proche_de is not None and self.embedder is not None:
                found, out.embedding_tokens = self.embedder.similarity(
                    case.proche_de.reference, answer, case.proche_de.seuil
                )
                out.similarities.append(found)
                if not found.passed:
                    why = said("gap.similarity", score=found.score, threshold=found.threshold)
                    out.gaps.append(Gap("similarite", "proche_de", why))
            if out.gaps:
                out.judge_skipped = len(case.juge)
                return out
            for done, check in enumerate(case.juge, start=1):
                self._judge(check.critere, customer or list(case.tours), answer, out)
                if out.gaps:  # a decisive criterion failed: the attempt has failed, whatever comes next
                    out.judge_skipped = len(case.juge) - done
                    break
        except (JudgeError, EmbeddingError) as exc:
            out.error = exc.said
        return out

    def _judge(self, critere: str, customer: list[str], answer: str, out: Outcome) -> None:
        if self.judge is None:
            raise JudgeError(said("model.no_judge"))
        rubric = self.rubrics[critere]
        verdict = self.judge.score(rubric, customer, answer)
        out.judge_input_tokens += verdict.input_tokens
        out.judge_output_tokens += verdict.output_tokens
        gates = self.standings[critere].gates
        out.judged.append(
            Judged(
                critere, verdict.score, rubric.scale, rubric.threshold, verdict.passed, gates, verdict.reason
            )
        )
        if not verdict.passed:
            line = said(
                "gap.judge",
                criterion=critere,
                score=verdict.score,
                scale=rubric.scale,
                threshold=rubric.threshold,
                reason=verdict.reason,
            )
            if gates:
                out.gaps.append(Gap("juge", "juge", line))
            else:
                out.notes.append(line)


def open_model_checks(
    cases: list[Case],
    goldens_folder: Path,
    backend: Backend,
    judge_model: str | None = None,
    embedding_model: str | None = None,
    simulator_model: str | None = None,
) -> ModelChecks | None:
    """The judge, the embedder and the simulated customer the cases ask for, on `backend` (Gemini, or the
    stand-in with its own model names); None when no case asks. `RubricError` for a missing rubric."""
    from filon.goldens.models.judge import default_judge_model
    from filon.goldens.models.similarity import EMBEDDING_MODEL, SCRIPTED_EMBEDDING
    from filon.goldens.models.simulator import SCRIPTED_SIMULATOR, SIMULATOR_MODEL

    if not any(c.juge or c.proche_de or c.simulation for c in cases):
        return None
    judge = embedder = simulator = None
    stand_in = backend.scripted
    if any(c.juge for c in cases):
        judge = Judge(backend.client, judge_model or default_judge_model(backend.model, stand_in), stand_in)
    if any(c.proche_de for c in cases):
        model = embedding_model or (SCRIPTED_EMBEDDING if stand_in else EMBEDDING_MODEL)
        embedder = Embedder(backend.client, model, stand_in)
    if any(c.simulation for c in cases):
        model = simulator_model or (SCRIPTED_SIMULATOR if stand_in else SIMULATOR_MODEL)
        simulator = Simulator(backend.client, model, stand_in)
    flags = FlagConfig.load()
    checks = ModelChecks.for_cases(
        cases, goldens_folder, judge, embedder, flags.judge_min_kappa, flags.judge_min_labels
    )
    checks.simulator = simulator
    return checks


class AskModels:
    """The checks that ask a model, as one kind of the grading loop (`goldens.checks.grade`), the costliest:
    it runs only when every cheaper check passed. One per attempt: it keeps what the models said (tokens,
    verdicts, advisory criteria) for the report, in `outcome`."""

    name = "modèles"
    cost = Cost.MODEL

    def __init__(self, checks: ModelChecks, customer: list[str] | None = None) -> None:
        self.checks, self.customer = checks, customer
        self.outcome = Outcome()
        self.graded = False

    def applies(self, case: Case) -> bool:
        return bool(case.juge or case.proche_de)

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        self.graded = True
        self.outcome = self.checks.apply(case, transcript.answers, True, self.customer)
        gaps = list(self.outcome.gaps)
        if self.outcome.error is not None:
            error = self.outcome.error
            gaps.append(
                Gap(
                    "infrastructure",
                    "juge",
                    sentence(error),
                )
            )
        return gaps

    def finished(self, case: Case) -> Outcome:
        """What the models said; when a cheaper check failed first, the judge calls that were spared."""
        if not self.graded and self.applies(case):
            self.outcome.judge_skipped = len(case.juge)
        return self.outcome
