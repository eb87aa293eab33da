"""A run as the store keeps it: the report (French, the gate's) said in the store's words (English, its
own rows). The store knows nothing of the report; this is the one place that reads one into the other.
"""

from __future__ import annotations

import json
from datetime import datetime

from filon.goldens.verdict.report_model import DECISIONS, EvalReport
from filon.miner.store.tables import EvalAttemptRow, EvalRun

# the report's French values, as the store (English) keeps them
STORE_DECISIONS = {french: english for english, french in DECISIONS.items()}
STORE_STATUSES = {"ok": "passed", "echec": "failed", "erreur": "error", "non_executable": "not_runnable"}
STORE_VERDICTS = {
    "pas pire": "not worse",
    "pire": "worse",
    "non concluant": "inconclusive",
    "ne s'apparient pas": "unpaired",
}


def rows(report: EvalReport, report_path: str = "") -> tuple[EvalRun, list[EvalAttemptRow]]:
    """The run's row and one row per attempt, for `miner.store.api.Store.record_eval`."""
    run, numbers = report.execution, report.gate.figures
    row = EvalRun(
        id=run.id,
        started_at=datetime.fromisoformat(run.started),
        duration_s=run.duration_s,
        backend=report.model.backend,
        model=report.model.name,
        prompt_path=report.prompt.path,
        prompt_sha256=report.prompt.sha256,
        goldens=run.goldens,
        threshold=report.threshold,
        score=report.score,
        decision=STORE_DECISIONS[report.gate.decision],
        rule=report.gate.rule,
        passed=numbers.passed,
        valid=numbers.valid,
        errors=numbers.errors,
        report_path=report_path,
    )
    attempts = [
        EvalAttemptRow(
            run_id=row.id,
            case_id=case.id,
            category=case.category,
            attempt=a.attempt,
            status=STORE_STATUSES[a.status],
            tools=json.dumps(a.tools),
            gaps=json.dumps(a.gaps, ensure_ascii=False),
            error=a.error or a.not_runnable,
            latency_ms=sum(a.latencies_ms),
            input_tokens=a.input_tokens,
            output_tokens=a.output_tokens,
        )
        for case in report.cases
        for a in case.attempts
    ]
    return row, attempts


def verdict(french: str) -> str:
    """A comparison's verdict in the store's words."""
    return STORE_VERDICTS.get(french, french)
