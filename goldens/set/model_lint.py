"""Lint for the checks that ask a model: a rubric that exists and parses for every `juge`, and never a
`proche_de` alone (similarity cannot tell « autorisé » from « n'est pas autorisé »: a fact check or a
`ne_contient_pas` must stand beside it). `--embeddings` also proves each `proche_de` threshold against the
case's examples, as the deterministic checks are proven: `bon` answers above it, `mauvais` ones below.
"""

from __future__ import annotations

from pathlib import Path

from filon.goldens.case.problems import Problem
from filon.goldens.case.schema import Case
from filon.goldens.checks.rubrics import RubricError, load_rubric
from filon.goldens.models.similarity import Embedder
from filon.goldens.set.calibration import trials
from filon.miner.core.messages import Said, said, sentence, why


def guard_problems(name: str, case: Case) -> list[Problem]:
    if case.proche_de is not None and not (case.contient or case.ne_contient_pas):
        return [Problem.of(name, "proche_de", said("lint.proche_de_alone"), "error")]
    return []


def rubric_problems(name: str, case: Case, judges: Path) -> list[Problem]:
    out = []
    for i, check in enumerate(case.juge):
        try:
            load_rubric(judges, check.critere)
        except RubricError as exc:
            out.append(Problem.of(name, f"juge[{i}]", sentence(why(exc)), "error"))
    return out


def threshold_problems(name: str, case: Case, embedder: Embedder) -> list[Problem]:
    """Each example's similarity to the reference against the threshold (examples the judge is there to
    reject, and examples the deterministic checks already reject, are not the similarity's to sort)."""
    near = case.proche_de
    if near is None:
        return []
    out = []
    for trial in trials(case):
        if trial.for_the_judge or not trial.accepted:  # the judge's to reject, or rejected already
            continue
        found, _ = embedder.similarity(near.reference, "\n".join(trial.example.answers()), near.seuil)
        where = f"exemples[{trial.index}]"
        if trial.example.verdict == "bon" and not found.passed:
            why = said("lint.proche_de_too_strict", score=found.score, threshold=near.seuil)
            out.append(Problem.of(name, where, why, "error"))
        elif trial.example.verdict == "mauvais" and found.passed:
            out.append(Problem.of(name, where, said("lint.proche_de_too_loose", score=found.score), "error"))
    return out


def prove_thresholds(
    cases: list[Case], folder: Path, backend: str, model_url: str | None, model: str | None
) -> tuple[list[Problem], Said]:
    """`filon goldens lint --embeddings`: every `proche_de` threshold against its case's examples, with
    the embeddings of `backend`; the problems, and a banner naming the model (and the stand-in)."""
    from filon.agent.model import open_backend
    from filon.goldens.models.similarity import EMBEDDING_MODEL, SCRIPTED_EMBEDDING

    near = [c for c in cases if c.proche_de is not None]
    if not near:
        return [], said("banner.no_proche_de")
    with open_backend(backend, None, model_url) as opened:
        name = model or (SCRIPTED_EMBEDDING if opened.scripted else EMBEDDING_MODEL)
        embedder = Embedder(opened.client, name, opened.scripted)
        problems = [p for c in near for p in threshold_problems(str(folder / f"{c.id}.json"), c, embedder)]
    code = "banner.thresholds_stand_in" if opened.scripted else "banner.thresholds"
    return problems, said(code, count=len(near), model=name)
