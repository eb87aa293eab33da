"""Judge checks at scale: the reference set with a `juge` check on 20% of its cases, on the scripted model
at 800 ms per call (the judge and the agent alike), `--concurrency 8`.

Side by side in one run: the replay's wall time (from the report: set-up excluded) against the ideal
computed from the calls the run needed and the nominal 800 ms (`bench/_ideal.py`). Goal: at most 1.25.
Also printed: the share of judge calls skipped because a deterministic check had failed first (on the
default prompt, then on court.md, where the identity rule is missing and more cases fail first).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ideal import ideal_seconds

from filon.agent.scripted.server import ScriptedModel, ScriptedSettings
from filon.goldens.evaluate import EvalConfig, evaluate

LATENCY_MS = 800
CONCURRENCY = 8
SHARE = 0.2


def judged_set(folder: Path) -> int:
    """The reference set with `juge` on one case in five (by id), and on no other."""
    shutil.copytree("goldens/cases", folder / "cases")
    shutil.copytree("goldens/judges", folder / "judges")
    files = sorted((folder / "cases").glob("*.json"))
    step = round(1 / SHARE)
    for i, path in enumerate(files):
        case = json.loads(path.read_text(encoding="utf-8"))
        judged = i % step == 0
        case.pop("juge", None)
        if judged:
            case["juge"] = [{"critere": "ton"}]
        # an answer only a judge rejects proves nothing where no judge runs: lint would call it trop lâche
        keep = ("ton",) if judged else ()
        case["exemples"] = [
            e
            for e in case.get("exemples", [])
            if not any(v == "mauvais" and c not in keep for c, v in (e.get("criteres") or {}).items())
        ]
        path.write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")
    return len(files)


def run(folder: Path, prompt: str) -> dict[str, float]:
    with ScriptedModel(ScriptedSettings(latency_ms=LATENCY_MS)) as model:
        result = evaluate(
            EvalConfig(
                backend="scripted",
                model_url=model.url,
                concurrency=CONCURRENCY,
                report=folder / f"r-{prompt}.json",
                goldens=folder / "cases",
                prompt=f"agent/prompts/{prompt}.md",
            )
        )
        calls = model.requests
    report = result.report
    assert report is not None and report.judge is not None, result.message
    replay = report.execution.duration_s
    ideal = ideal_seconds(report, calls, LATENCY_MS, CONCURRENCY)
    planned = report.judge.calls + report.judge.skipped
    return {
        "model_calls": calls,
        "judge_calls": report.judge.calls,
        "judge_calls_skipped": report.judge.skipped,
        "judge_skipped_share": round(report.judge.skipped / planned, 3) if planned else 0.0,
        "replay_wall_s": round(replay, 2),
        "ideal_s": round(ideal, 2),
        "ratio_wall_to_ideal": round(replay / ideal, 3),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases = judged_set(folder)
        default, court = run(folder, "system"), run(folder, "court")
    print(
        json.dumps(
            {
                "cases": cases,
                "judged_share": SHARE,
                "latency_ms_per_call": LATENCY_MS,
                "concurrency": CONCURRENCY,
                **{f"system_{k}": v for k, v in default.items()},
                **{f"court_{k}": v for k, v in court.items()},
                "goal_ratio_at_most": 1.25,
            }
        )
    )


if __name__ == "__main__":
    main()
