"""filon on an agent nobody here wrote, through the CLI as its team would use it: the tau-bench airline
conversations (tasks 0-24, `tests/corpus/tau_airline`) ingested under the filon.toml a team writes for
that agent; a case drafted from each right trial (`filon draft --write`), the task's other trials kept
as judged examples of it (`filon goldens label`, the benchmark's verdict), and how often the case's
checks agree with the benchmark. Tasks 25-49 are measured apart and never read here."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app
from tests.corpus import tau

runner = CliRunner()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("airline")
    (folder / "filon.toml").write_text(tau.FILON_TOML)
    (folder / "goldens" / "cases").mkdir(parents=True)
    return folder


def run(project: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.chdir(project)
    monkeypatch.setenv("FILON_DB", f"sqlite:///{project / 'filon.db'}")
    monkeypatch.setenv("FILON_GOLDENS", str(project / "goldens" / "cases"))
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def ingested(project: Path) -> Path:
    with pytest.MonkeyPatch.context() as mp:
        result = run(project, mp, "ingest", *map(str, tau.payloads()), "--sample-rate", "1")
        assert result.exit_code == 0, result.output
    return project


def test_no_critical_flag_on_a_record_the_conversation_tied_to_its_customer(
    ingested: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = json.loads(run(ingested, monkeypatch, "traces", "list", "--json", "--limit", "500").stdout)
    assert len(rows) == 100
    critical = [
        (r["conversation_id"], x["reason"]) for r in rows for x in r["reasons"] if x["severity"] == "critical"
    ]
    assert critical == []
    # a hand-over is never « high », and the customer who asked for one gets it at low
    handed = [x for r in rows for x in r["reasons"] if x["kind"] == "escalation"]
    assert handed and all(x["severity"] in ("low", "medium") for x in handed)


def test_the_queue_ranks_the_benchmark_s_failed_trials_first(
    ingested: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The queue's order against the benchmark's verdict: the chance a failed trial is listed above a
    right one (AUC, ties none: the list is an order), at least 0.8 on tasks 0-24 (a development figure,
    the rules were shaped on them)."""
    rows = json.loads(run(ingested, monkeypatch, "traces", "list", "--json", "--limit", "500").stdout)
    verdicts = tau.verdicts()
    place = {r["conversation_id"]: i for i, r in enumerate(rows)}
    wrong = [place[c] for c, ok in verdicts.items() if not ok]
    right = [place[c] for c, ok in verdicts.items() if ok]
    assert len(place) == len(verdicts) == 100 and wrong and right
    above = sum(w < r for w in wrong for r in right) / (len(wrong) * len(right))
    assert above >= 0.8, above


def test_a_customer_who_corrects_the_agent_ranks_a_wrong_trial(
    ingested: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = json.loads(run(ingested, monkeypatch, "traces", "list", "--json", "--limit", "500").stdout)
    verdicts = tau.verdicts()
    corrected = [
        r["conversation_id"] for r in rows if any(x["cause"] == "customer_corrected" for x in r["reasons"])
    ]
    wrong = [c for c in corrected if not verdicts[c]]
    assert len(corrected) >= 10 and len(wrong) / len(corrected) >= 0.8, (len(wrong), len(corrected))
    flagged = next(r for r in rows if r["conversation_id"] in corrected)
    assert flagged["severity"] in ("medium", "high", "critical")


def test_a_case_drafted_from_a_right_trial_judges_the_task_s_other_trials(
    ingested: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    by_task: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for trial in tau.trials():
        by_task[trial["task"]].append(trial)
    agree = total = wrong = wrong_passed = drafts = 0
    for task, trials in sorted(by_task.items()):
        for source in (t for t in trials if t["reward"] == 1.0):
            case_id = f"t{task:02d}-{source['trial']}"
            result = run(
                ingested, monkeypatch, "draft", source["conversation"], "--id", case_id, "--write", "--force"
            )
            assert result.exit_code == 0, result.output
            drafts += 1
            case = json.loads((ingested / "goldens" / "cases" / f"{case_id}.json").read_text())
            assert case["outils"] or case["outils_interdits"], f"{case_id} names no action"
            assert case["categorie"] != "securite" and case["escalade"] is None
            for other in (t for t in trials if t is not source):
                verdict = "bon" if other["reward"] == 1.0 else "mauvais"
                said = run(
                    ingested,
                    monkeypatch,
                    "goldens",
                    "label",
                    case_id,
                    other["conversation"],
                    "--verdict",
                    verdict,
                )
                assert said.exit_code == 0, said.output
                total += 1
                agree += "the checks agree" in said.stdout
                if verdict == "mauvais":
                    wrong += 1
                    wrong_passed += "trop lâche" in said.stdout
    assert drafts == 31 and total == 93
    assert agree / total >= 0.85, (agree, total)
    assert wrong_passed / wrong <= 0.10, (wrong_passed, wrong)
    # the set now holds each case with its proof: lint names every disagreement
    said = run(ingested, monkeypatch, "goldens", "lint")
    assert said.output.count("trop lâche") == wrong_passed
    assert said.output.count("trop strict") == total - agree - wrong_passed
