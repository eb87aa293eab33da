"""The report as the console prints it, in the seeds' shape: a line per case, the score, per category,
latency, cost (per role when a judge, embeddings or a simulated customer took part), the five worst, and
the rule that decided. Read from the typed report only, so a report on disk prints the same.
"""

from __future__ import annotations

from filon.goldens.set.coverage import percent
from filon.goldens.verdict.report_model import CaseReport, EvalReport
from filon.goldens.verdict.worst import worst_lines

WIDE = 100  # a case line longer than this says each gap on a line of its own


def case_line(case: CaseReport) -> str:
    """One case as the seeds print it: status (or k/N and stability with repeats), id, tools, time, gaps."""
    last = case.attempts[-1]
    status = {"ok": "OK", "echec": "ÉCHEC", "erreur": "ERREUR", "non_executable": "N/EXÉC"}[last.status]
    if case.total > 1:
        status = f"{case.passed}/{case.valid} {case.stability}"
    tools = ",".join(last.tools) or "-"
    ms = f"{sum(last.latencies_ms):.0f} ms" if last.latencies_ms else "-"
    details = list(last.gaps) or [last.error or last.not_runnable or ""]
    if not any(details) and last.notes:
        details = ["avis : " + "; ".join(last.notes)]
    head = f"{status:<6} {case.id:<16} {tools:<45}{ms:>9}"  # ids of 16 in 80 columns
    whole = f"{head}  {'; '.join(details)}".rstrip()
    if len(whole) <= WIDE:
        return whole
    # a line of 300 characters wraps anywhere in a terminal: each gap on a line of its own, under the case
    return "\n".join([head, *(f"{' ' * 7}{d}" for d in details if d)])


def model_check_lines(report: EvalReport) -> list[str]:
    """The judge, the embeddings and their cost, each said to be the stand-in where it is one."""
    lines = []
    if report.cost.per_role:
        roles = ", ".join(
            (f"{name} {r.total_usd:.5f} $" if r.total_usd is not None else f"{name} ? $")
            + f" ({r.input_tokens}+{r.output_tokens} jetons)"
            for name, r in report.cost.per_role.items()
        )
        lines.append(f"Coût par rôle : {roles}")
    if report.judge is not None:
        j = report.judge
        stand_in = " (substitut : ses notes ne disent rien d'un vrai juge)" if j.stand_in else ""
        lines.append(
            f"Juge {j.model}{stand_in} : {j.calls} appel(s) ; {j.skipped} évité(s), un contrôle déterministe "
            "ayant déjà échoué"
        )
        lines += [f"  {name} : {c.reason}" for name, c in sorted(j.criteria.items())]
    if report.embeddings is not None:
        e = report.embeddings
        lines.append(f"Embeddings {e.model}{' (substitut)' if e.stand_in else ''} : {e.texts} textes")
    if report.simulator is not None:
        sim = report.simulator
        stand_in = " (substitut)" if sim.stand_in else ""
        lines.append(
            f"Client simulé {sim.model}{stand_in} : objectif atteint {sim.goals_reached}/{sim.conversations}"
        )
        played = [a.conversation for c in report.cases for a in c.attempts if a.objective_reached is not None]
        if played and played[0]:
            lines.append(
                f"  les conversations simulées sont dans le store : filon review --conversation {played[0]}"
            )
    if report.rules:
        said = []
        for name, r in report.rules.items():
            how = ("bloquante" if r.blocking else "décisive") if r.decisive else "consultative"
            said.append(f"{name} ({how})")
        lines.append("Règles : " + ", ".join(said))
        advisory = [(n, r) for n, r in report.rules.items() if not r.decisive]
        lines += [
            f"  {n} consultative : enfreinte par {len(r.good_broken)} bon(s) exemple(s) du jeu ({', '.join(r.good_broken[:3])})"
            if r.good_broken
            else f"  {n} consultative : essayée sur {r.tried} exemple(s) seulement"
            for n, r in advisory
        ]
    avis = sum(1 for c in report.cases for a in c.attempts if a.notes)
    if avis:
        lines.append(f"Avis de critères consultatifs (hors score) : {avis} tentative(s)")
    return lines


def console_lines(report: EvalReport) -> list[str]:
    """The seeds' shape: a line per case, score, per category, latency, cost, five worst, the rule."""
    lines = [case_line(case) for case in report.cases]
    g = report.gate.figures
    score = f"{report.score:.0%}" if report.score is not None else "-"
    lines.append("")
    lines.append(f"Score {g.passed}/{g.valid} = {score} (seuil {report.threshold:.0%})")
    cats = ", ".join(f"{k} {v.passed}/{v.valid}" for k, v in sorted(report.categories.items()))
    lines.append(f"Par catégorie : {cats}")
    lat = report.latency
    if lat.p50_ms is not None and lat.p95_ms is not None:
        lines.append(f"Latence par tour : p50 {lat.p50_ms:.0f} ms, p95 {lat.p95_ms:.0f} ms")
    c = report.cost
    if c.total_usd is not None and c.per_conversation_usd is not None:
        priced = " (les prix du tableau appliqués aux jetons du substitut : rien n'a été dépensé)"
        stand_in = priced if report.model.stand_in and c.total_usd > 0 else ""
        lines.append(
            f"Coût : {c.total_usd:.5f} $ au total, {c.per_conversation_usd:.5f} $ par conversation{stand_in}"
        )
    lines += model_check_lines(report)
    e = report.errors
    if e.count:
        causes = " ; ".join(f"{cause} (×{n})" for cause, n in sorted(e.by_type.items(), key=lambda x: -x[1]))
        lines.append(f"Erreurs d'infrastructure (hors score) : {e.count} — {causes}")
    if g.not_runnable:
        skipped = sorted({c.id for c in report.cases if c.stability == "non exécutable"})
        lines.append(
            f"Non exécutables par la cible {report.target} (hors score) : {g.not_runnable} ({', '.join(skipped)})"
        )
    lines += worst_lines(report.worst)
    if report.coverage is not None:
        cov = report.coverage
        lines.append(
            f"Couverture : le jeu couvre {percent(cov.part)} du trafic des {cov.days} derniers jours "
            f"({cov.covered}/{cov.conversations} conversations ; filon goldens coverage dit ce qui manque)"
        )
    lines.append(f"Décision : {report.gate.decision} — {report.gate.rule}")
    return lines
