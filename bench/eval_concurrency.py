"""The runner's concurrency: the golden set on the scripted model at 800 ms per call, --concurrency 8.

Side by side in one run: the replay's wall time (from the report: set-up excluded) and the ideal computed
from nominal figures, not from the run it judges: the model calls the replay made (counted by the model
server) × the nominal 800 ms / 8 workers, or the longest conversation's calls one after the other
(`bench/_ideal.py`). Goal: wall / ideal at most 1.25. Also the pure grader's cases
per second on the attempts this run recorded.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ideal import ideal_seconds

from filon.agent.scripted.server import ScriptedModel, ScriptedSettings
from filon.goldens.case.schema import Case
from filon.goldens.checks import grade
from filon.goldens.evaluate import EvalConfig, evaluate
from filon.miner.core.transcript import Transcript

LATENCY_MS = 800
CONCURRENCY = 8


def main() -> None:
    with (
        ScriptedModel(ScriptedSettings(latency_ms=LATENCY_MS)) as model,
        tempfile.TemporaryDirectory() as tmp,
    ):
        started = time.perf_counter()
        result = evaluate(
            EvalConfig(
                backend="scripted",
                model_url=model.url,
                concurrency=CONCURRENCY,
                report=Path(tmp) / "r.json",
                goldens="goldens/cases",
            )
        )
        wall = time.perf_counter() - started
        calls = model.requests
    assert result.report is not None, result.message
    replay = result.report.execution.duration_s  # the replay itself: set-up (imports, server start) excluded
    ideal = ideal_seconds(result.report, calls, LATENCY_MS, CONCURRENCY)
    cases = [
        Case.model_validate(json.loads(p.read_text())) for p in sorted(Path("goldens/cases").glob("*.json"))
    ]
    recorded = {c.id: c.attempts[0] for c in result.report.cases}
    rounds = 300
    start = time.perf_counter()
    for _ in range(rounds):
        for case in cases:
            a = recorded[case.id]
            grade(case, Transcript(turns=a.turns))
    grader_rate = rounds * len(cases) / (time.perf_counter() - start)
    print(
        json.dumps(
            {
                "cases": len(result.report.cases),
                "model_calls": calls,
                "latency_ms_per_call": LATENCY_MS,
                "concurrency": CONCURRENCY,
                "replay_wall_s": round(replay, 2),
                "total_wall_s_with_setup": round(wall, 2),
                "ideal_s": round(ideal, 2),
                "ratio_wall_to_ideal": round(replay / ideal, 3),
                "goal_ratio_at_most": 1.25,
                "grader_cases_per_s": round(grader_rate),
            }
        )
    )


if __name__ == "__main__":
    main()
