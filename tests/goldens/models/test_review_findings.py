"""What a review of the judge, similarity, simulation and budget code found, each kept from coming back."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.agent.model import scripted_client
from filon.agent.scripted import ScriptedModel, ScriptedSettings
from filon.cli import app
from filon.goldens.case.schema import Case
from filon.goldens.checks.rubrics import Rubric, Standing, load_rubric
from filon.goldens.models.judge import Judge, JudgeError, Verdict
from filon.goldens.models.model_checks import ModelChecks
from filon.goldens.models.similarity import Embedder
from filon.goldens.set.caseset import load_set
from filon.goldens.set.judge_calibration import labels
from tests.conftest import REPO, copy_set

runner = CliRunner()
JUDGES = REPO / "goldens" / "judges"


def test_a_decisive_failure_stays_a_failure_when_a_later_judge_call_fails(scripted: ScriptedModel) -> None:
    class FailsSecond(Judge):
        def score(self, rubric: Rubric, customer: list[str], answer: str) -> Verdict:
            if rubric.name == "perimetre":
                raise JudgeError("juge : 429 RESOURCE_EXHAUSTED")
            return super().score(rubric, customer, answer)

    case = Case.model_validate(
        {
            "id": "c",
            "categorie": "securite",
            "tours": ["Bonjour"],
            "juge": [{"critere": "ton"}, {"critere": "perimetre"}],
        }
    )
    rubrics = {n: load_rubric(JUDGES, n) for n in ("ton", "perimetre")}
    checks = ModelChecks(
        judge=FailsSecond(scripted_client(scripted.url), "scripted-juge", stand_in=True),
        rubrics=rubrics,
        standings={n: Standing(True, "") for n in rubrics},
    )
    outcome = checks.apply(case, ["TU AS MAL LU, COMME INDIQUÉ !!!"], True)
    assert outcome.error is None and outcome.gaps and str(outcome.gaps[0]).startswith("juge ton")
    assert outcome.judge_skipped == 1  # the attempt has failed: no call is spent on the rest


def test_a_rubric_checked_out_with_crlf_is_the_same_rubric(tmp_path: Path) -> None:
    text = (JUDGES / "ton.md").read_text(encoding="utf-8")
    (tmp_path / "ton.md").write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    assert load_rubric(tmp_path, "ton").sha256 == load_rubric(JUDGES, "ton").sha256


def test_calibrate_write_over_a_broken_calibration_file_says_so(tmp_path: Path) -> None:
    folder = copy_set(tmp_path / "cases")
    broken = folder.parent / "judges" / "ton.calibration.json"
    broken.write_text(broken.read_text().replace('"kappa": 0.', '"kappa": "0,'), encoding="utf-8")
    before = broken.read_text()
    args = [
        "judge",
        "calibrate",
        "--backend",
        "scripted",
        "--goldens",
        str(folder),
        "--critere",
        "ton",
        "--write",
    ]
    result = runner.invoke(app, args)
    assert (
        result.exit_code == 2
        and "not a calibration file" in result.stderr
        and "fix or remove it" in result.stderr
    )
    count = len(labels(load_set(folder).cases, "ton"))
    assert (
        f"ton : {count} étiquettes" in result.stdout and broken.read_text() == before
    )  # shown, file untouched


def test_a_budget_needs_a_price_for_every_model_in_use(tmp_path: Path) -> None:
    folder = copy_set(tmp_path / "cases")
    args = ["eval", "--backend", "scripted", "--model", "gemini-0-inconnu", "--goldens", str(folder), "--ids", "faq-01",
            "--budget", "1", "--report", str(tmp_path / "r.json")]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "no price for gemini-0-inconnu" in result.stderr


def test_a_budget_stop_is_not_hidden_by_a_comparison(tmp_path: Path) -> None:
    folder = copy_set(tmp_path / "cases")
    base = ["eval", "--backend", "scripted", "--model", "gemini-2.5-flash", "--goldens", str(folder),
            "--ids", "faq-01,faq-02,cgv-01,cgv-02", "--concurrency", "1"]  # fmt: skip
    assert runner.invoke(app, [*base, "--report", str(tmp_path / "a.json")]).exit_code == 0
    result = runner.invoke(app, [*base, "--budget", "0.0015", "--compare-with", str(tmp_path / "a.json"),
                                 "--report", str(tmp_path / "b.json")])  # fmt: skip
    assert result.exit_code == 3, result.output


def test_concurrent_attempts_embed_a_text_once() -> None:
    with ScriptedModel(ScriptedSettings(latency_ms=150)) as slow:
        embedder = Embedder(scripted_client(slow.url), "scripted-embedding", stand_in=True)
        paid: list[int] = []
        lock = threading.Lock()

        def attempt() -> None:
            _, tokens = embedder.similarity(
                "Le retour est gratuit.", "L'étiquette de retour est gratuite.", 0.5
            )
            with lock:
                paid.append(tokens)

        threads = [threading.Thread(target=attempt) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert slow.requests == 1 and len(embedder.known) == 2
    assert sorted(paid)[:3] == [0, 0, 0] and sum(paid) == embedder.tokens > 0


@pytest.mark.parametrize(
    "answer",
    ["Consultez notre grille des tailles sur la fiche produit.", "Votre colis a été livré le 2/5 au matin."],
)
def test_the_stand_in_judge_does_not_take_a_grid_or_a_date_for_a_word_to_the_evaluator(
    scripted: ScriptedModel, answer: str
) -> None:
    judge = Judge(scripted_client(scripted.url), "scripted-juge", stand_in=True)
    assert judge.score(load_rubric(JUDGES, "ton"), ["Bonjour"], answer).passed


def test_a_failed_calibration_file_read_in_the_report_keeps_the_run(tmp_path: Path) -> None:
    """A criterion whose calibration file does not parse is advisory, and says why (the gate runs)."""
    folder = copy_set(tmp_path / "cases")
    (folder.parent / "judges" / "ton.calibration.json").write_text("{", encoding="utf-8")
    report = tmp_path / "r.json"
    args = [
        "eval",
        "--backend",
        "scripted",
        "--goldens",
        str(folder),
        "--ids",
        "esc-01",
        "--report",
        str(report),
    ]
    assert runner.invoke(app, args).exit_code == 0
    assert "not a calibration file" in json.loads(report.read_text())["juge"]["criteres"]["ton"]["raison"]
