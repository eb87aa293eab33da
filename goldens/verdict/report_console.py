"""The report as the console prints it, in the seeds' shape: a line per case, the score, per category,
latency, cost (per role when a judge, embeddings or a simulated customer took part), the five worst, and
the rule that decided. Read from the typed report only, so a report on disk prints the same.
"""

from __future__ import annotations

from filon.goldens.verdict.report_model import CasRapport, EvalReport
from filon.goldens.verdict.worst import worst_lines


def case_line(case: CasRapport) -> str:
    """One case as the seeds print it: status (or k/N and stability with repeats), id, tools, time, gaps."""
    last = case.tentatives[-1]
    status = {"ok": "OK", "echec": "ÉCHEC", "erreur": "ERREUR", "non_executable": "N/EXÉC"}[last.status]
    if case.total > 1:
        status = f"{case.reussis}/{case.valides} {case.stabilite}"
    tools = ",".join(last.tools) or "-"
    ms = f"{sum(last.latencies_ms):.0f} ms" if last.latencies_ms else "-"
    detail = "; ".join(last.gaps) or (last.error or last.not_runnable or "")
    if not detail and last.notes:
        detail = "avis : " + "; ".join(last.notes)
    return f"{status:<6} {case.id:<16} {tools:<45}{ms:>9}  {detail}".rstrip()  # ids of 16 in 80 columns


def model_check_lines(report: EvalReport) -> list[str]:
    """The judge, the embeddings and their cost, each said to be the stand-in where it is one."""
    lines = []
    if report.cout.par_role:
        roles = ", ".join(
            (f"{name} {r.total_usd:.5f} $" if r.total_usd is not None else f"{name} ? $")
            + f" ({r.jetons_entree}+{r.jetons_sortie} jetons)"
            for name, r in report.cout.par_role.items()
        )
        lines.append(f"Coût par rôle : {roles}")
    if report.juge is not None:
        j = report.juge
        stand_in = " (substitut : ses notes ne disent rien d'un vrai juge)" if j.substitut else ""
        lines.append(
            f"Juge {j.modele}{stand_in} : {j.appels} appel(s) ; {j.sautes} évité(s), un contrôle déterministe "
            "ayant déjà échoué"
        )
        lines += [f"  {name} : {c.raison}" for name, c in sorted(j.criteres.items())]
    if report.embeddings is not None:
        e = report.embeddings
        lines.append(f"Embeddings {e.modele}{' (substitut)' if e.substitut else ''} : {e.textes} textes")
    if report.simulateur is not None:
        sim = report.simulateur
        stand_in = " (substitut)" if sim.substitut else ""
        lines.append(
            f"Client simulé {sim.modele}{stand_in} : objectif atteint {sim.objectifs_atteints}/{sim.conversations}"
        )
        played = [a.conversation for c in report.cas for a in c.tentatives if a.objective_reached is not None]
        if played and played[0]:
            lines.append(
                f"  les conversations simulées sont dans le store : filon review --conversation {played[0]}"
            )
    if report.regles:
        said = []
        for name, r in report.regles.items():
            how = ("bloquante" if r.bloquante else "décisive") if r.decisive else "consultative"
            said.append(f"{name} ({how})")
        lines.append("Règles : " + ", ".join(said))
        advisory = [(n, r) for n, r in report.regles.items() if not r.decisive]
        lines += [
            f"  {n} consultative : enfreinte par {len(r.bons_enfreints)} bon(s) exemple(s) du jeu ({', '.join(r.bons_enfreints[:3])})"
            if r.bons_enfreints
            else f"  {n} consultative : essayée sur {r.essayee} exemple(s) seulement"
            for n, r in advisory
        ]
    avis = sum(1 for c in report.cas for a in c.tentatives if a.notes)
    if avis:
        lines.append(f"Avis de critères consultatifs (hors score) : {avis} tentative(s)")
    return lines


def console_lines(report: EvalReport) -> list[str]:
    """The seeds' shape: a line per case, score, per category, latency, cost, five worst, the rule."""
    lines = [case_line(case) for case in report.cas]
    g = report.porte.chiffres
    score = f"{report.score:.0%}" if report.score is not None else "-"
    lines.append("")
    lines.append(f"Score {g.reussis}/{g.valides} = {score} (seuil {report.seuil:.0%})")
    cats = ", ".join(f"{k} {v.reussis}/{v.valides}" for k, v in sorted(report.categories.items()))
    lines.append(f"Par catégorie : {cats}")
    lat = report.latence
    if lat.p50_ms is not None and lat.p95_ms is not None:
        lines.append(f"Latence par tour : p50 {lat.p50_ms:.0f} ms, p95 {lat.p95_ms:.0f} ms")
    c = report.cout
    if c.total_usd is not None and c.par_conversation_usd is not None:
        priced = " (les prix du tableau appliqués aux jetons du substitut : rien n'a été dépensé)"
        stand_in = priced if report.modele.substitut and c.total_usd > 0 else ""
        lines.append(
            f"Coût : {c.total_usd:.5f} $ au total, {c.par_conversation_usd:.5f} $ par conversation{stand_in}"
        )
    lines += model_check_lines(report)
    e = report.erreurs
    if e.nombre:
        causes = " ; ".join(f"{cause} (×{n})" for cause, n in sorted(e.par_type.items(), key=lambda x: -x[1]))
        lines.append(f"Erreurs d'infrastructure (hors score) : {e.nombre} — {causes}")
    if g.non_executables:
        skipped = sorted({c.id for c in report.cas if c.stabilite == "non exécutable"})
        lines.append(
            f"Non exécutables par la cible {report.cible} (hors score) : {g.non_executables} ({', '.join(skipped)})"
        )
    lines += worst_lines(report.pires)
    if report.couverture is not None:
        cov = report.couverture
        lines.append(
            f"Couverture : le jeu couvre {cov.part:.0%} du trafic des {cov.jours} derniers jours "
            f"({cov.couvertes}/{cov.conversations} conversations ; filon goldens coverage dit ce qui manque)"
        )
    lines.append(f"Décision : {report.porte.decision} — {report.porte.regle}")
    return lines
