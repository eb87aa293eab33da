"""A run to share: what `filon eval --html` and `--summary` show, gathered once for both renderings.

What a lead asks of a run fits one page: the score by prompt over the recorded runs (a prompt change is
a new line, not a dip), the pass rate by category over the runs of this prompt, the five worst attempts
with their turns and calls, the blocking rules and what broke them, and the set's coverage of the last
week's traffic by failure group. The report holds the run; the store holds the runs before it. The store
is optional: without it, the page shows this run alone and says why (the gate never depends on it).

Every text that came from a trace or a model (answers, arguments, results, gaps, signatures) is carried
as it is here; each rendering escapes it for its own format (`share_html`, `share_md`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from filon.goldens.run.attempt import Attempt
from filon.goldens.verdict.report_model import EvalReport, WorstAttempt
from filon.goldens.verdict.worst import command_in

RUNS_SHOWN = 30  # recorded runs drawn, newest last


@dataclass(frozen=True)
class RunPoint:
    """One recorded run, as the charts draw it."""

    run_id: str
    started_at: datetime
    prompt: str  # the prompt's file name and the start of its digest: a changed prompt is a new line
    score: float | None
    passed: int
    valid: int
    categories: dict[str, tuple[int, int]] = field(default_factory=dict)  # category → (passed, valid)


@dataclass(frozen=True)
class WorstShown:
    """One of the five worst, with the attempt itself (its turns and calls) when the report holds it."""

    worst: WorstAttempt
    attempt: Attempt | None


@dataclass
class Shared:
    report: EvalReport
    report_path: str
    runs: list[RunPoint]  # oldest first, this run last
    history_note: str = ""  # why the runs before this one are missing, when they are
    worst: list[WorstShown] = field(default_factory=list)

    @property
    def this_prompt(self) -> str:
        return self.runs[-1].prompt if self.runs else prompt_label(self.report)

    def prompts(self) -> list[str]:
        """The prompts of the runs shown, in the order they first appear."""
        return list(dict.fromkeys(r.prompt for r in self.runs))

    def categories(self) -> list[str]:
        """Every category of the runs of this prompt, this run's first."""
        names = list(self.report.categories)
        for run in self.runs:
            if run.prompt == self.this_prompt:
                names += [c for c in run.categories if c not in names]
        return names


def prompt_label(report: EvalReport) -> str:
    name = Path(report.prompt.path).name or report.prompt.name
    return f"{name} {report.prompt.sha256[:7]}".strip()


def _this_run(report: EvalReport) -> RunPoint:
    numbers = report.gate.figures
    return RunPoint(
        run_id=report.execution.id,
        started_at=datetime.fromisoformat(report.execution.started),
        prompt=prompt_label(report),
        score=report.score,
        passed=numbers.passed,
        valid=numbers.valid,
        categories={name: (c.passed, c.valid) for name, c in report.categories.items()},
    )


def _recorded(report: EvalReport) -> tuple[list[RunPoint], str]:
    """The runs the store recorded, oldest first (this one included when it was recorded), or why not."""
    from filon.miner.store import Store, StoreError

    try:
        store = Store.open()
        try:
            rows = store.eval_history(None, RUNS_SHOWN)
            by_run = store.eval_categories([r.run_id for r in rows])
        finally:
            store.close()
    except StoreError as exc:
        return [], f"runs before this one unavailable: {exc}"
    points = [
        RunPoint(
            run_id=r.run_id,
            started_at=r.started_at,
            prompt=f"{Path(r.prompt_path).name or '?'} {r.prompt_sha256[:7]}".strip(),
            score=r.score,
            passed=r.passed,
            valid=r.valid,
            categories=by_run.get(r.run_id, {}),
        )
        for r in reversed(rows)
    ]
    return points, ""


def gather(report: EvalReport, report_path: str, history: bool = True) -> Shared:
    """The run and, from the store, the runs before it (`history` False: this run alone)."""
    runs, note = _recorded(report) if history else ([], "")
    runs = [*[r for r in runs if r.run_id != report.execution.id][-(RUNS_SHOWN - 1) :], _this_run(report)]
    attempts = {(c.id, a.attempt): a for c in report.cases for a in c.attempts}
    worst = [WorstShown(p, attempts.get((p.case, p.attempt))) for p in report.worst]
    return Shared(report=report, report_path=report_path, runs=runs, history_note=note, worst=worst)


# The page's own words, in the console's language (`FILON_LANG`); what the report says is said by
# `goldens.verdict.lang`.
WORDS: dict[str, dict[str, str]] = {
    "title": {"fr": "Run filon", "en": "filon run"},
    "passed": {"fr": "réussi", "en": "passed"},
    "failed": {"fr": "échoué", "en": "failed"},
    "inconclusive": {"fr": "non concluant", "en": "inconclusive"},
    "score": {"fr": "Score", "en": "Score"},
    "threshold": {"fr": "seuil", "en": "threshold"},
    "rule": {"fr": "Règle qui décide", "en": "Deciding rule"},
    "stand_in": {
        "fr": "Modèle de substitution (scripté) : ces chiffres ne disent rien d'un vrai modèle.",
        "en": "Scripted stand-in model: these figures say nothing of a real model.",
    },
    "over_runs": {"fr": "Score par prompt au fil des runs", "en": "Score by prompt over the runs"},
    "by_category": {"fr": "Taux de réussite par catégorie", "en": "Pass rate by category"},
    "by_category_runs": {
        "fr": "Taux de réussite par catégorie au fil des runs de ce prompt",
        "en": "Pass rate by category over this prompt's runs",
    },
    "category": {"fr": "catégorie", "en": "category"},
    "blocking": {"fr": "bloquante", "en": "blocking"},
    "worst": {"fr": "Les pires tentatives", "en": "The worst attempts"},
    "worst_none": {"fr": "Aucune tentative notée.", "en": "No graded attempt."},
    "attempt": {"fr": "tentative", "en": "attempt"},
    "ok": {"fr": "réussie", "en": "passed"},
    "gaps": {"fr": "écart(s)", "en": "gap(s)"},
    "turn": {"fr": "Tour", "en": "Turn"},
    "customer": {"fr": "Client", "en": "Customer"},
    "agent": {"fr": "Agent", "en": "Agent"},
    "escalated": {"fr": "transmis à un humain", "en": "handed to a human"},
    "no_turns": {
        "fr": "Les tours ne sont pas dans le rapport (cible sans spans).",
        "en": "The turns are not in the report (a target without spans).",
    },
    "rules": {"fr": "Règles bloquantes", "en": "Blocking rules"},
    "rules_none": {"fr": "Aucune règle bloquante.", "en": "No blocking rule."},
    "broke": {"fr": "enfreinte par", "en": "broken by"},
    "decisive": {"fr": "décisive", "en": "decisive"},
    "advisory": {"fr": "indicative (enfreint un bon exemple)", "en": "advisory (breaks a good example)"},
    "blocking_failed": {"fr": "Catégories bloquantes en échec", "en": "Blocking categories failed"},
    "coverage": {"fr": "Couverture du trafic par groupe d'échec", "en": "Traffic coverage by failure group"},
    "coverage_none": {
        "fr": "Aucun trafic des 7 derniers jours dans le store : couverture non mesurée.",
        "en": "No traffic of the last 7 days in the store: coverage not measured.",
    },
    "covered_by": {"fr": "couvert par", "en": "covered by"},
    "uncovered": {"fr": "non couvert", "en": "not covered"},
    "size": {"fr": "conversations", "en": "conversations"},
    "signature": {"fr": "groupe", "en": "group"},
    "one_run": {
        "fr": "Un seul run enregistré pour l'instant : la courbe viendra avec les suivants.",
        "en": "One recorded run so far: the line comes with the next ones.",
    },
    "days": {"fr": "jours", "en": "days"},
}


def word(key: str, lang: str) -> str:
    return WORDS[key]["en" if lang == "en" else "fr"]


def backend_shown(backend: str, lang: str) -> str:
    """The run's backend as the page says it: the report writes « cible » for a team's own agent."""
    return "target" if backend == "cible" and lang == "en" else backend


def colon(lang: str) -> str:
    """« : » as each language writes it: a space before in French, none in English."""
    return ": " if lang == "en" else " : "


def shown_command(command: str, lang: str) -> str:
    """The command that opens an attempt, as the console in that language runs it (`worst.command_in`)."""
    return command_in(command, lang)


def prompt_shown(shared: Shared) -> str:
    """The header's prompt, unless it only repeats the model's name (a `python:` or HTTP target is both)."""
    return "" if shared.this_prompt == shared.report.model.name else shared.this_prompt
