"""`filon eval --budget`: an estimate before the run, and attempts that would go over it never started."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.case.schema import Case
from filon.goldens.run.budget import Budget, price
from tests.conftest import copy_set

runner = CliRunner()
PRICES = {"m": {"input_per_million": 1.0, "output_per_million": 2.0}}
CASE = Case.model_validate({"id": "c", "categorie": "faq", "tours": ["a", "b"]})


def test_an_attempt_starts_only_if_it_fits_beside_what_is_spent_and_reserved() -> None:
    budget = Budget(limit=1.0, prices=PRICES, agent_model="m", prompt_tokens=100)
    one = budget.estimate(CASE)
    assert one == price(PRICES, "m", 2 * 2 * 1000, 2 * 2 * 120) > 0  # two turns, two calls each
    budget = Budget(limit=2.5 * one, prices=PRICES, agent_model="m", prompt_tokens=100)
    first, second = budget.start(CASE), budget.start(CASE)
    assert first == second == one and budget.start(CASE) is None and budget.skipped == 1
    budget.finish(one, one / 10)  # the first cost less than estimated: room for one more
    assert budget.start(CASE) == one and budget.stopped
    assert Budget(1.0, PRICES, "unpriced", 100).estimate(CASE) == 0.0


def test_a_run_stopped_by_its_budget_is_partial_and_inconclusive(tmp_path: Path) -> None:
    folder = copy_set(tmp_path / "cases")
    report = tmp_path / "r.json"
    args = ["eval", "--backend", "scripted", "--model", "gemini-2.5-flash", "--goldens", str(folder)]
    result = runner.invoke(app, [*args, "--ids", "faq-01,faq-02,cgv-01,cgv-02", "--concurrency", "1",
                                 "--budget", "0.0015", "--report", str(report)])  # fmt: skip
    doc = json.loads(report.read_text())
    assert result.exit_code == 3, result.output
    assert "budget 0.0015 $, estimé à" in result.output and "dépassé" in result.output
    ran = sum(len(c["tentatives"]) for c in doc["cas"])
    assert 0 < ran < 4 and doc["budget"]["non_lancees"] == 4 - ran
    assert 0 < doc["budget"]["depense"] <= doc["budget"]["limite"]
    assert doc["porte"]["decision"] == "non concluant" and "budget de 0.0015 $ : " in doc["porte"]["regle"]


def test_a_budget_large_enough_changes_nothing(tmp_path: Path) -> None:
    folder = copy_set(tmp_path / "cases")
    report = tmp_path / "r.json"
    result = runner.invoke(app, ["eval", "--backend", "scripted", "--model", "gemini-2.5-flash", "--goldens",
                                 str(folder), "--ids", "faq-01,faq-02", "--budget", "5", "--report", str(report)])  # fmt: skip
    doc = json.loads(report.read_text())
    assert result.exit_code == 0, result.output
    assert doc["budget"]["non_lancees"] == 0 and doc["budget"]["depense"] < doc["budget"]["estime"]
    assert "over it" not in result.output


def test_a_budget_nothing_fits_in_is_said_before_anything_runs(tmp_path: Path) -> None:
    folder = copy_set(tmp_path / "cases")
    report = tmp_path / "r.json"
    result = runner.invoke(app, ["eval", "--backend", "scripted", "--model", "gemini-2.5-flash", "--goldens",
                                 str(folder), "--budget", "0.000001", "--report", str(report)])  # fmt: skip
    assert result.exit_code == 3 and "the cheapest attempt is estimated at" in result.stderr
    assert "nothing would run" in result.stderr and not report.exists()
