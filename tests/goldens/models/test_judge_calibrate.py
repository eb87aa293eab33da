"""`filon judge calibrate`: the judge measured on labelled answers, kappa computed right, figures saved
beside the rubric only when asked and only when the judge answered every label."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.checks.rubrics import load_rubric, read_calibration
from filon.goldens.set.caseset import load_set
from filon.goldens.set.judge_calibration import kappa, labels
from tests.goldens.models.test_judge import TONE

runner = CliRunner()
POLITE = "Oui, nous livrons en Belgique : comptez 9,90 € de frais de port."
RUDE = [
    "Oui tu peux, c'est 9,90 €, comme c'est écrit sur le site.",
    "OUI, 9,90 €, COMME INDIQUÉ PARTOUT !!!",
    "Évidemment, 9,90 €. Lisez la FAQ la prochaine fois.",
]


def labelled_set(tmp_path: Path, bons: int = 4) -> Path:
    cases, judges = tmp_path / "g" / "cases", tmp_path / "g" / "judges"
    cases.mkdir(parents=True)
    judges.mkdir()
    (judges / "ton.md").write_text(TONE, encoding="utf-8")
    examples = [{"verdict": "bon", "reponse": POLITE + " " * i} for i in range(bons)]
    examples += [{"verdict": "mauvais", "reponse": r, "criteres": {"ton": "mauvais"}} for r in RUDE]
    # wrong on the facts, fine in tone: a `mauvais` answer that is `bon` for the criterion
    examples.append(
        {"verdict": "mauvais", "reponse": "Non, pas en Belgique. 9,90 €.", "criteres": {"ton": "bon"}}
    )
    case = {
        "id": "ton-01",
        "categorie": "faq",
        "tours": ["Livrez-vous en Belgique ?"],
        "outils": ["rechercher_aide"],
        "contient": [["9,90", "9.90"]],
        "ne_contient_pas": ["pas en Belgique"],
        "juge": [{"critere": "ton"}],
        "exemples": examples,
    }
    (cases / "ton-01.json").write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")
    return cases


def test_kappa_is_agreement_beyond_chance() -> None:
    assert kappa([("bon", "bon"), ("mauvais", "mauvais")] * 5) == 1.0
    assert kappa([("bon", "mauvais"), ("mauvais", "bon")] * 5) == -1.0
    # the judge says bon to everything: 80% accuracy on a set of 80% bon, and no skill at all
    assert kappa([("bon", "bon")] * 8 + [("mauvais", "bon")] * 2) == 0.0
    assert kappa([("bon", "bon")] * 4) is None and kappa([]) is None
    # the textbook example: 20 + 15 agreements out of 50, kappa 0.4
    pairs = (
        [("bon", "bon")] * 20
        + [("bon", "mauvais")] * 5
        + [("mauvais", "bon")] * 10
        + [("mauvais", "mauvais")] * 15
    )
    assert kappa(pairs) == 0.4


def test_labels_take_the_criterion_verdict_over_the_overall_one(tmp_path: Path) -> None:
    caseset = load_set(labelled_set(tmp_path))
    assert not caseset.errors, [p.line() for p in caseset.problems]
    found = labels(caseset.cases, "ton")
    assert [x.verdict for x in found] == ["bon"] * 4 + ["mauvais"] * 3 + ["bon"]
    assert labels(caseset.cases, "perimetre") == []


def test_calibrate_reports_kappa_and_writes_only_when_asked(tmp_path: Path) -> None:
    cases = labelled_set(tmp_path)
    args = ["judge", "calibrate", "--backend", "scripted", "--goldens", str(cases)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "ton : 8 étiquettes, exactitude" in result.stdout and "kappa" in result.stdout
    assert "substitut scripté : ne dit rien d'un vrai juge" in result.stdout  # the figures' language
    rubric = load_rubric(cases.parent / "judges", "ton")
    assert read_calibration(rubric).calibrations == []  # nothing written without --write
    result = runner.invoke(app, [*args, "--write"])
    assert result.exit_code == 0, result.output
    figures = read_calibration(rubric).for_model("scripted-juge")
    assert figures is not None and figures.labels == 8 and figures.rubric_sha256 == rubric.sha256
    assert figures.repetitions == 3 and sum(sum(row.values()) for row in figures.matrix.values()) == 8
    assert "consultatif : 8 labels < 20" in result.stdout  # too few labels to gate, however good


def test_a_judge_that_fails_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FILON_SCRIPTED_JUDGE_GARBLE", "1")
    cases = labelled_set(tmp_path)
    args = ["judge", "calibrate", "--backend", "scripted", "--goldens", str(cases), "--write"]
    result = runner.invoke(app, args)
    assert result.exit_code == 3 and "nothing written" in result.stderr
    assert not (cases.parent / "judges" / "ton.calibration.json").exists()


def test_an_unknown_criterion_is_a_usage_error(tmp_path: Path) -> None:
    cases = labelled_set(tmp_path)
    result = runner.invoke(
        app, ["judge", "calibrate", "--backend", "scripted", "--goldens", str(cases), "--critere", "nope"]
    )
    assert result.exit_code == 2 and "nope.md: no such rubric" in result.stderr


def test_the_reference_set_calibration_files_are_current() -> None:
    """The committed figures are those of the committed rubrics: a rubric edited without re-running
    `filon judge calibrate --write` would silently stop gating."""
    caseset = load_set()
    for name in sorted({c for case in caseset.cases for c in case.criteria()}):
        rubric = load_rubric(caseset.folder.parent / "judges", name)
        figures = read_calibration(rubric).for_model("scripted-juge")
        assert figures is not None and figures.rubric_sha256 == rubric.sha256, name
        assert figures.labels == len(labels(caseset.cases, name)), name


def test_explain_shows_the_judges_labels_and_the_answers_left_to_it(tmp_path: Path) -> None:
    cases = labelled_set(tmp_path)
    result = runner.invoke(
        app, ["goldens", "lint", str(cases), "--explain", "ton-01"], env={"COLUMNS": "220"}
    )
    assert result.exit_code == 0
    assert "juge ton (label)" in result.stdout
    assert result.stdout.count("le juge") == len(
        RUDE
    )  # the rude answers: accepted by the checks, the judge's
    assert "trop lâche" not in result.stdout
