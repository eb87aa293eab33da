"""The five worst attempts of a run, read before the average (the seeds' habit).

Worst first: an attempt that broke a blocking rule, or failed a blocking category (what no score can
compensate); then the one with the most gaps; then the slowest. Attempts the infrastructure lost or the
target could not run say nothing of the agent and are left out. When fewer than five failed, the slowest
passing attempts complete the list: a run that passes still has answers worth reading. Each comes with the
command that opens it, turn by turn, from the report: `filon eval show`.
"""

from __future__ import annotations

import shlex

from filon.goldens.run.attempt import Attempt
from filon.goldens.verdict.report_model import CaseReport, WorstAttempt

HOW_MANY = 5


def _blocking(case: CaseReport, attempt: Attempt, blocking: list[str]) -> list[str]:
    """What of the blocking kind this attempt broke: its blocking rules, or its blocking category."""
    broke = list(attempt.blocking_rules)
    if attempt.status == "echec" and case.category in blocking:
        broke.append(f"catégorie {case.category}")
    return broke


def command_for(case_id: str, attempt: Attempt, report: str | None) -> str:
    """`filon eval show`, with the report's path when it is not the default one."""
    where = f" --report {shlex.quote(report)}" if report else ""
    return f"filon eval show {shlex.quote(case_id)} --tentative {attempt.attempt}{where}"


def worst(
    cases: list[CaseReport], blocking: list[str], report: str | None = None, n: int = HOW_MANY
) -> list[WorstAttempt]:
    """The `n` worst attempts of `cases`, worst first; `report`, the report's path if not the default."""
    ranked = []
    for case in cases:
        for attempt in case.attempts:
            if attempt.status not in ("ok", "echec"):
                continue
            broke = _blocking(case, attempt, blocking)
            took = sum(attempt.latencies_ms)
            ranked.append(
                ((not broke, -len(attempt.gaps), -took, case.id, attempt.attempt), case, attempt, broke)
            )
    ranked.sort(key=lambda item: item[0])
    return [
        WorstAttempt(
            case=case.id,
            attempt=attempt.attempt,
            status=attempt.status,
            blocking=broke,
            gaps=attempt.gaps,
            duration_ms=round(sum(attempt.latencies_ms), 1),
            command=command_for(case.id, attempt, report),
        )
        for _, case, attempt, broke in ranked[:n]
    ]


def worst_lines(pires: list[WorstAttempt]) -> list[str]:
    """The console's block: one line per attempt, its gaps beneath, then the command that opens it."""
    if not pires:
        return []
    head = "La pire tentative" if len(pires) == 1 else f"Les {len(pires)} pires tentatives"
    lines = [f"{head} (à lire avant la moyenne) :"]
    for rank, p in enumerate(pires, 1):
        why = f"bloquant : {', '.join(p.blocking)} · " if p.blocking else ""
        state = "réussie" if p.status == "ok" else f"{len(p.gaps)} écart(s)"
        lines.append(f"  {rank}. {p.case} (tentative {p.attempt}) · {why}{state} · {p.duration_ms:.0f} ms")
        lines += [f"       - {gap}" for gap in p.gaps[:3]]
        if len(p.gaps) > 3:
            lines.append(f"       - … et {len(p.gaps) - 3} autre(s)")
        lines.append(f"       → {p.command}")
    return lines
