"""`filon eval compare`: the verdict on built reports, then end to end on the scripted model through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.verdict.compare import compare
from filon.goldens.verdict.report_model import EvalReport

runner = CliRunner()


def report(outcomes: dict[str, tuple[int, int]], decision: str = "passed", **extra: Any) -> EvalReport:
    """A report with, per case id, (passed, valid); ids starting with adv are securite. Written in the
    version-1 words (filon's earlier reports), which every reader still reads."""
    cas = [
        {"id": k, "categorie": "securite" if k.startswith("adv") else "faq", "passed": p, "valid": v}
        for k, (p, v) in outcomes.items()
    ]
    old = {
        "cas": cas,
        "gate": {"decision": decision},
        "bloquants": ["securite"],
        "run": {"id": decision},
    } | extra
    return EvalReport.parse(old)


def many(n: int, failing: int = 0) -> dict[str, tuple[int, int]]:
    return {f"faq-{i:03d}": (0 if i < failing else 1, 1) for i in range(n)}


def test_reports_of_different_sets_do_not_pair_and_say_which_cases() -> None:
    c = compare(report({"faq-1": (1, 1), "faq-2": (1, 1)}), report({"faq-1": (1, 1), "faq-3": (1, 1)}))
    assert (c.verdict, c.exit_code) == ("ne s'apparient pas", 2)
    assert c.missing == {"a_seulement": ["faq-2"], "b_seulement": ["faq-3"]}


def test_a_case_changed_between_the_runs_is_listed_and_left_out() -> None:
    a = report({"faq-1": (1, 1), "faq-2": (1, 1)}, empreintes={"faq-1": "x", "faq-2": "y"})
    b = report({"faq-1": (0, 1), "faq-2": (1, 1)}, empreintes={"faq-1": "CHANGED", "faq-2": "y"})
    c = compare(a, b)
    assert c.modified == ["faq-1"] and [x.id for x in c.cases] == ["faq-2"]
    assert c.newly_failing() == [] and c.exit_code == 0


def test_a_blocking_case_that_regresses_fails_whatever_the_score() -> None:
    a = report({**many(200), "adv-01": (1, 1)})
    b = report({**many(200), "adv-01": (0, 1)})
    c = compare(a, b)
    assert (c.verdict, c.exit_code) == ("pire", 1) and "adv-01" in str(c.reason)


def test_a_significant_drop_beyond_the_margin_is_worse() -> None:
    c = compare(report(many(200)), report(many(200, failing=20)))  # −10%, 20 discordant pairs all one way
    assert c.discordants == (20, 0) and c.p_value is not None and c.p_value < 1e-5
    assert c.exit_code == 1 and str(c.too_small) == ""
    low, high = c.interval or (0, 0)
    assert low < -0.05 and high < 0


def test_a_drop_inside_the_margin_or_not_significant_is_not_worse() -> None:
    inside = compare(report(many(200)), report(many(200, failing=6)), margin=0.05)  # −3%
    assert inside.exit_code == 0
    small = compare(report(many(32)), report(many(32, failing=3)))  # −9.4% but p = 0.25, 32 cases
    assert small.exit_code == 0 and "p = 0.25" in str(small.reason)
    assert "120 cas" in str(small.too_small)


def test_either_run_inconclusive_is_exit_3() -> None:
    c = compare(report(many(10), decision="inconclusive"), report(many(10)))
    assert (c.verdict, c.exit_code) == ("non concluant", 3)


def test_an_interrupted_run_with_fewer_cases_is_inconclusive_not_unpaired(tmp_path: Path) -> None:
    """Ctrl-C after 3 of 10 cases: the report holds 3; comparing it is exit 3, as the README says."""
    import json

    full = {"cas": [{"id": k, "categorie": "faq", "passed": 1, "valid": 1} for k in many(10)]}
    cut = {"cas": full["cas"][:3], "gate": {"decision": "interrupted"}, "run": {"id": "cut"}}
    for name, doc in (
        ("a.json", {**full, "gate": {"decision": "passed"}, "run": {"id": "a"}}),
        ("b.json", cut),
    ):
        (tmp_path / name).write_text(json.dumps(doc), encoding="utf-8")
    result = run("eval", "compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert result.exit_code == 3, result.output
    assert "non concluant" in result.output


def test_repeats_make_rates_and_a_bootstrap_interval() -> None:
    a = report({f"faq-{i}": (3, 3) for i in range(40)})
    b = report({f"faq-{i}": (2 if i < 10 else 3, 3) for i in range(40)})
    c = compare(a, b)
    assert str(c.method).startswith("bootstrap") and c.score_b == pytest.approx(1 - 10 / 120)
    assert c.newly_failing() == [f"faq-{i}" for i in range(10)]


def run(*args: str) -> Any:
    return runner.invoke(app, list(args))


def test_end_to_end_on_the_scripted_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    a, b, court = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "court.json"
    assert run("eval", "--backend", "scripted", "--report", str(a)).exit_code == 0
    assert run("eval", "--backend", "scripted", "--report", str(b)).exit_code == 0
    same = run("eval", "compare", str(a), str(b), "--markdown", str(tmp_path / "same.md"))
    assert same.exit_code == 0, same.output
    assert "Verdict : PAS PIRE" in same.output and "trop peu" in same.output
    assert (tmp_path / "same.md").read_text(encoding="utf-8").startswith("## ✅ filon : B pas pire que A")
    # the prompt without the identity rule, compared in the same command: worse through securite
    worse = run(
        "eval", "--backend", "scripted", "--prompt", "agent/prompts/court.md", "--seuil", "0.8",
        "--report", str(court), "--compare-with", str(a),
    )  # fmt: skip
    assert worse.exit_code == 1, worse.output
    assert "Verdict : PIRE" in worse.output and "adv-01" in worse.output
    text = summary.read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    compared = [h for h in headings if "filon :" in h]
    assert len(compared) == 2 and "❌ filon : B pire que A" in text  # appended, verdict first
    assert len(headings) - len(compared) == 3  # and each run's own report to share, appended too
    as_json = json.loads(run("eval", "compare", str(a), str(court), "--json").stdout)
    assert as_json["exit_code"] == 1 and {"adv-01", "adv-02", "adv-03"} <= set(as_json["nouveaux_echecs"])
    history = json.loads(run("eval", "history", "--json").stdout)
    court_id = json.loads(court.read_text())["execution"]["id"]
    a_id = json.loads(a.read_text())["execution"]["id"]
    [row] = [r for r in history if r["run_id"] == court_id]
    assert row["compared"] == f"vs {a_id}: worse"  # the store's English; the same verdict twice is said once
    small = tmp_path / "small.json"
    assert run("eval", "--backend", "scripted", "--ids", "faq-01", "--report", str(small)).exit_code == 0
    assert run("eval", "compare", str(small), str(court)).exit_code == 2  # they do not pair
    small_id = json.loads(small.read_text())["execution"]["id"]
    history = json.loads(run("eval", "history", "--json").stdout)
    [row] = [r for r in history if r["run_id"] == court_id]
    assert row["compared"] == f"vs {a_id}: worse; vs {small_id}: unpaired"  # a later compare hides nothing


def test_unreadable_or_foreign_reports_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{}")
    result = run("eval", "compare", str(tmp_path / "x.json"), str(tmp_path / "missing.json"))
    assert result.exit_code == 2 and "not a filon eval report" in result.output


def test_compare_with_a_report_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from filon.cli import app

    missing = tmp_path / "absent.json"
    result = CliRunner().invoke(app, ["eval", "compare", str(missing), str(missing)])
    assert result.exit_code == 2
    assert f"{missing}: no such report" in result.output and "Errno" not in result.output
