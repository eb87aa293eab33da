"""The five worst attempts of a run, read before the average (the seeds' habit).

Worst first: an attempt that broke a blocking rule, or failed a blocking category (what no score can
compensate); then the one with the most gaps; then the slowest. Attempts the infrastructure lost or the
target could not run say nothing of the agent and are left out. When fewer than five failed, the slowest
passing attempts complete the list: a run that passes still has answers worth reading. Each comes with the
command that opens it, turn by turn, from the report: `filon eval show`.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from filon.goldens.run.attempt import Attempt
from filon.goldens.verdict.report_model import CaseReport, WorstAttempt
from filon.miner.core.messages import Said, render, said

HOW_MANY = 5
CATEGORY = "catégorie "  # a blocking category as the report names it among the rules broken


def _blocking(case: CaseReport, attempt: Attempt, blocking: list[str]) -> list[str]:
    """What of the blocking kind this attempt broke: its blocking rules, or its blocking category."""
    broke = list(attempt.blocking_rules)
    if attempt.status == "echec" and case.category in blocking:
        broke.append(CATEGORY + case.category)
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


def worst_lines(
    pires: list[WorstAttempt], lang: str = "fr", codes: Mapping[str, Said] | None = None
) -> list[str]:
    """The console's block: one line per attempt, its gaps beneath, then the command that opens it."""
    if not pires:
        return []
    codes = codes if codes is not None else {}
    lines = [said("console.worst_one") if len(pires) == 1 else said("console.worst_many", count=len(pires))]
    for rank, p in enumerate(pires, 1):
        names = [_broken(name) for name in p.blocking]
        why = said("console.worst_blocking", names=names) if p.blocking else ""
        state = (
            said("console.worst_passed")
            if p.status == "ok"
            else said("console.worst_gaps", count=len(p.gaps))
        )
        lines.append(
            said(
                "console.worst_line",
                rank=rank,
                case=p.case,
                attempt=p.attempt,
                why=why,
                state=state,
                ms=p.duration_ms,
            )
        )
        lines += [said("console.worst_gap", gap=codes.get(gap, gap)) for gap in p.gaps[:3]]
        if len(p.gaps) > 3:
            lines.append(said("console.worst_more", count=len(p.gaps) - 3))
        lines.append(said("console.worst_command", command=command_in(p.command, lang)))
    return [line.render(lang) for line in lines]


def _broken(name: str) -> str | Said:
    """A blocking rule's name, or the blocking category the report keeps as « catégorie NAME »."""
    category = name.removeprefix(CATEGORY)
    return said("console.blocking_category", category=category) if category != name else name


def blocking_names(names: list[str], lang: str) -> str:
    """What an attempt broke of the blocking kind, as a line of the page or summary says it."""
    return ", ".join(render(_broken(name), lang) for name in names)


def command_in(command: str, lang: str) -> str:
    """The command that opens an attempt, as a console in `lang` runs it: in English, `--attempt` and
    `--lang en`, so that what it prints is English too (the report keeps the French options)."""
    if lang != "en":
        return command
    words = shlex.split(command)
    if "--tentative" in words:
        at = words.index("--tentative")
        words[at : at + 2] = ["--attempt", words[at + 1], "--lang", "en"]
    return shlex.join(words)
