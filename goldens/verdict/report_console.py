"""The report as the console prints it, in the seeds' shape: a line per case, the score, per category,
latency, cost (per role when a judge, embeddings or a simulated customer took part), the five worst, and
the rule that decided. Read from the typed report only, so a report on disk prints the same; every line
is a sentence of the catalogue (`miner.core.messages`), said in French (the default) or English, and the
report's own sentences (gaps, notes, errors, the rule) through the codes it keeps beside them.
"""

from __future__ import annotations

from collections.abc import Mapping

from filon.goldens.set.coverage import percent
from filon.goldens.verdict.report_model import CaseReport, EvalReport
from filon.goldens.verdict.worst import worst_lines
from filon.miner.core.messages import Said, as_said, catalogue, chained, said

WIDE = 100  # a case line longer than this says each gap on a line of its own
STABILITY = {
    "stable réussi": "stable_pass",
    "stable échec": "stable_fail",
    "instable": "unstable",
    "erreur": "error",
    "non exécutable": "not_runnable",
}


def case_line(case: CaseReport, lang: str = "fr", codes: Mapping[str, Said] | None = None) -> str:
    """One case as the seeds print it: status (or k/N and stability with repeats), id, tools, time, gaps."""
    codes = codes if codes is not None else {}
    last = case.attempts[-1]
    status = said(f"console.status.{last.status}").render(lang)
    if case.total > 1:
        status = f"{case.passed}/{case.valid} " + said(
            f"console.stability.{STABILITY[case.stability]}"
        ).render(lang)
    tools = ",".join(last.tools) or "-"
    ms = f"{sum(last.latencies_ms):.0f} ms" if last.latencies_ms else "-"
    details = [as_said(codes, d, lang) for d in last.gaps or [last.error or last.not_runnable or ""]]
    if not any(details) and last.notes:
        notes = "; ".join(as_said(codes, n, lang) for n in last.notes)
        details = [said("console.advisory_notes", notes=notes).render(lang)]
    head = f"{status:<6} {case.id:<16} {tools:<45}{ms:>9}"  # ids of 16 in 80 columns
    whole = f"{head}  {'; '.join(details)}".rstrip()
    if len(whole) <= WIDE:
        return whole
    # a line of 300 characters wraps anywhere in a terminal: each gap on a line of its own, under the case
    return "\n".join([head, *(f"{' ' * 7}{d}" for d in details if d)])


def _roles(report: EvalReport) -> Said:
    roles = []
    for name, r in report.cost.per_role.items():
        code = f"console.role.{name}"  # the roles the catalogue names (juge, simulateur); others as they are
        shown = said(code) if code in catalogue() else name
        tokens = {"name": shown, "input": r.input_tokens, "output": r.output_tokens}
        if r.total_usd is not None:
            roles.append(said("console.role_cost", usd=r.total_usd, **tokens))
        else:
            roles.append(said("console.role_cost_unknown", **tokens))
    return said("console.roles", roles=roles)


def _rule_lines(report: EvalReport) -> list[Said]:
    out = []
    shown = []
    for name, r in report.rules.items():
        how = ("blocking" if r.blocking else "decisive") if r.decisive else "advisory"
        shown.append(said(f"console.rule_{how}", name=name))
    out.append(said("console.rules", rules=shown))
    for n, r in report.rules.items():
        if r.decisive:
            continue
        if r.good_broken:
            ids = ", ".join(r.good_broken[:3])
            out.append(said("console.rule_broken_by_good", name=n, count=len(r.good_broken), ids=ids))
        else:
            out.append(said("console.rule_tried_few", name=n, tried=r.tried))
    return out


def model_check_lines(report: EvalReport, lang: str = "fr") -> list[str]:
    """The judge, the embeddings and their cost, each said to be the stand-in where it is one."""
    lines: list[Said] = []
    if report.cost.per_role:
        lines.append(_roles(report))
    if report.judge is not None:
        j = report.judge
        stand_in = said("console.judge_stand_in") if j.stand_in else ""
        lines.append(
            said("console.judge", model=j.model, stand_in=stand_in, calls=j.calls, skipped=j.skipped)
        )
        for name, c in sorted(j.criteria.items()):
            reason = report.codes.get(c.reason, c.reason)
            lines.append(said("console.criterion", name=name, reason=reason))
    if report.embeddings is not None:
        e = report.embeddings
        stand_in = said("console.stand_in") if e.stand_in else ""
        lines.append(said("console.embeddings", model=e.model, stand_in=stand_in, texts=e.texts))
    if report.simulator is not None:
        sim = report.simulator
        stand_in = said("console.stand_in") if sim.stand_in else ""
        reached, total = sim.goals_reached, sim.conversations
        lines.append(
            said("console.simulator", model=sim.model, stand_in=stand_in, reached=reached, total=total)
        )
        played = [a.conversation for c in report.cases for a in c.attempts if a.objective_reached is not None]
        if played and played[0]:
            lines.append(said("console.simulated_in_store", conversation=played[0]))
    if report.rules:
        lines += _rule_lines(report)
    avis = sum(1 for c in report.cases for a in c.attempts if a.notes)
    if avis:
        lines.append(said("console.advisory_count", count=avis))
    return [line.render(lang) for line in lines]


def _figures(report: EvalReport) -> list[Said]:
    """Score, per category, latency and cost."""
    g = report.gate.figures
    score = f"{report.score:.0%}" if report.score is not None else "-"
    out = [said("console.score", passed=g.passed, valid=g.valid, score=score, threshold=report.threshold)]
    cats = ", ".join(f"{k} {v.passed}/{v.valid}" for k, v in sorted(report.categories.items()))
    out.append(said("console.by_category", categories=cats))
    lat = report.latency
    if lat.p50_ms is not None and lat.p95_ms is not None:
        out.append(said("console.latency", p50=lat.p50_ms, p95=lat.p95_ms))
    c = report.cost
    if c.total_usd is not None and c.per_conversation_usd is not None:
        priced = report.model.stand_in and c.total_usd > 0
        stand_in = said("console.cost_stand_in") if priced else ""
        out.append(said("console.cost", total=c.total_usd, per=c.per_conversation_usd, stand_in=stand_in))
    return out


def _apart(report: EvalReport) -> list[Said]:
    """What the score leaves out: infrastructure errors, attempts the target could not run."""
    out = []
    e = report.errors
    if e.count:
        causes = [
            said("console.error_cause", cause=report.codes.get(cause, cause), count=n)
            for cause, n in sorted(e.by_type.items(), key=lambda x: -x[1])
        ]
        out.append(said("console.errors", count=e.count, causes=chained(causes, "text.then")))
    g = report.gate.figures
    if g.not_runnable:
        skipped = ", ".join(sorted({c.id for c in report.cases if c.stability == "non exécutable"}))
        out.append(said("console.not_runnable", target=report.target, count=g.not_runnable, ids=skipped))
    return out


def console_lines(report: EvalReport, lang: str = "fr") -> list[str]:
    """The seeds' shape: a line per case, score, per category, latency, cost, five worst, the rule."""
    lines = [case_line(case, lang, report.codes) for case in report.cases]
    lines.append("")
    lines += [s.render(lang) for s in _figures(report)]
    lines += model_check_lines(report, lang)
    lines += [s.render(lang) for s in _apart(report)]
    lines += worst_lines(report.worst, lang, report.codes)
    end: list[Said] = []
    if report.coverage is not None:
        cov = report.coverage
        end.append(
            said(
                "console.coverage",
                part=percent(cov.part),
                days=cov.days,
                covered=cov.covered,
                total=cov.conversations,
            )
        )
    decision = said(f"console.decision_word.{report.gate.decision}")
    rule = report.codes.get(report.gate.rule, report.gate.rule)
    end.append(said("console.decision", decision=decision, rule=rule))
    return lines + [s.render(lang) for s in end]
