"""The tau-bench airline corpus (tasks 0-24: `tests/corpus/tau_airline`) through the CLI, as a team running
that agent would use filon: the queue's order against the benchmark's verdict, the precision of each
cause, and how far a case drafted from a right trial agrees with the benchmark on the task's other
trials. A development figure: the rules were shaped on these 100 conversations; tasks 25-49 measure
them apart (`tests/corpus/tau_airline/record.py` records them; nobody changing filon reads them).

The queue's AUC is read two ways: the queue as it is (incidents, then severity, then a changed record
first, then the newest) and by severity alone (ties count half)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the corpus lives with the tests

from filon.cli import app
from tests.corpus import tau

RANK = {"critical": 4, "high": 3, "medium": 2, "low": 1, None: 0}


def auc(score: dict[str, Any], wrong: set[str], right: set[str]) -> float:
    """The chance a wrong trial ranks above a right one (ties: half)."""
    pairs = [float(score[w] > score[r]) + 0.5 * (score[w] == score[r]) for w in wrong for r in right]
    return round(float(sum(pairs)) / len(pairs), 3)


def _cli(folder: Path, *args: str) -> Any:
    env = {
        "FILON_DB": f"sqlite:///{folder / 'filon.db'}",
        "FILON_HOME": str(folder / "var"),
        "FILON_GOLDENS": str(folder / "goldens" / "cases"),
    }
    here = Path.cwd()
    os.chdir(folder)
    try:
        result = CliRunner().invoke(app, list(args), env=env)
    finally:
        os.chdir(here)
    if result.exit_code != 0:
        raise SystemExit(f"filon {' '.join(args[:3])}: exit {result.exit_code}: {result.output[-500:]}")
    return result


def queue(folder: Path) -> dict[str, Any]:
    verdicts = tau.verdicts()
    rows = json.loads(_cli(folder, "traces", "list", "--json", "--limit", "500").stdout)
    wrong = {c for c, ok in verdicts.items() if not ok}
    right = set(verdicts) - wrong
    order = {r["conversation_id"]: -i for i, r in enumerate(rows)}
    severity = {r["conversation_id"]: RANK[r.get("severity")] for r in rows}
    causes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        for cause in {x["cause"] for x in r["reasons"]}:
            causes[cause][r["conversation_id"] in wrong] += 1
    critical = sum(1 for r in rows if r.get("severity") == "critical")
    return {
        "auc_queue_order": auc({c: order.get(c, -1000) for c in verdicts}, wrong, right),
        "auc_by_severity": auc({c: severity.get(c, 0) for c in verdicts}, wrong, right),
        "critical_flags": critical,
        "precision_by_cause": {
            cause: {"wrong": w, "right": r, "precision": round(w / (w + r), 3)}
            for cause, (r, w) in sorted(causes.items())
        },
    }


def drafts(folder: Path) -> dict[str, Any]:
    by_task: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for trial in tau.trials():
        by_task[trial["task"]].append(trial)
    agree = total = wrong = passed = made = actionless = 0
    for task, trials in sorted(by_task.items()):
        for source in (t for t in trials if t["reward"] == 1.0):
            case_id = f"t{task:02d}-{source['trial']}"
            _cli(folder, "draft", source["conversation"], "--id", case_id, "--write", "--force")
            made += 1
            case = json.loads((folder / "goldens" / "cases" / f"{case_id}.json").read_text())
            actionless += not (case["outils"] or case["outils_interdits"])
            for other in (t for t in trials if t is not source):
                verdict = "bon" if other["reward"] == 1.0 else "mauvais"
                said = _cli(folder, "goldens", "label", case_id, other["conversation"], "--verdict", verdict)
                total += 1
                agree += "the checks agree" in said.stdout
                wrong += verdict == "mauvais"
                passed += "trop lâche" in said.stdout
    return {
        "drafts": made,
        "drafts_naming_no_action": actionless,
        "agreement_on_other_trials": round(agree / total, 3),
        "wrong_trials_passed": round(passed / wrong, 3),
        "graded": total,
    }


def tau_figures() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "filon.toml").write_text(tau.FILON_TOML)
        (folder / "goldens" / "cases").mkdir(parents=True)
        _cli(folder, "ingest", *map(str, tau.payloads()), "--sample-rate", "1")
        return {"conversations": len(tau.trials()), **queue(folder), **drafts(folder)}


if __name__ == "__main__":
    print(json.dumps(tau_figures(), indent=1))
