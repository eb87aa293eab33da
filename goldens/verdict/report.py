"""The run's report: the JSON document (everything, including which gate rule decided), the seeds'
console shape, JUnit XML from the same data, and the diff against a baseline report.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from functools import cache
from importlib import resources
from pathlib import Path

from filon.agent.prompts import Prompt
from filon.goldens.checks.rules import RuleGate
from filon.goldens.models.model_checks import ModelChecks
from filon.goldens.run.runner import Attempt, RunOutput
from filon.goldens.set.coverage import Coverage
from filon.goldens.verdict.gate import Gate, stability
from filon.goldens.verdict.report_model import (
    DECISIONS,
    Baseline,
    CasRapport,
    Categorie,
    Chiffres,
    Cout,
    CoutRole,
    CouvertureRapport,
    CritereRapport,
    EmbeddingsRapport,
    Erreurs,
    EvalReport,
    Execution,
    GroupeCouvert,
    JugeRapport,
    Latence,
    Modele,
    Porte,
    PromptRef,
    RegleRapport,
    SimulateurRapport,
)
from filon.tracing.redact import Redactor, redaction_secret


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(sorted(values), n=100, method="inclusive")[int(q) - 1]


@cache  # read once per process: every role's cost, the budget and the report read it
def prices() -> dict[str, dict[str, float]]:
    data = json.loads(resources.files("filon.goldens").joinpath("prices.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def role_cost(model: str, tokens_in: int, tokens_out: int) -> CoutRole:
    price = prices().get(model)
    if price is None:
        note = f"no price for {model!r} in goldens/prices.json"
        return CoutRole(modele=model, jetons_entree=tokens_in, jetons_sortie=tokens_out, note=note)
    total = tokens_in / 1e6 * price["input_per_million"] + tokens_out / 1e6 * price["output_per_million"]
    return CoutRole(
        modele=model, jetons_entree=tokens_in, jetons_sortie=tokens_out, total_usd=round(total, 6)
    )


def cost(model: str, attempts: list[Attempt], checks: ModelChecks | None = None) -> Cout:
    """The agent's tokens and cost (the seeds' figures), and each role's apart: agent, judge, embeddings."""
    agent = role_cost(model, sum(a.input_tokens for a in attempts), sum(a.output_tokens for a in attempts))
    roles = {"agent": agent}
    if checks is not None and checks.judge is not None:
        roles["juge"] = role_cost(
            checks.judge.model,
            sum(a.model_checks.judge_input_tokens for a in attempts),
            sum(a.model_checks.judge_output_tokens for a in attempts),
        )
    if checks is not None and checks.embedder is not None:
        roles["embeddings"] = role_cost(checks.embedder.model, checks.embedder.tokens, 0)
    if checks is not None and checks.simulator is not None:
        roles["simulateur"] = role_cost(
            checks.simulator.model,
            sum(a.simulator_input_tokens for a in attempts),
            sum(a.simulator_output_tokens for a in attempts),
        )
    conversations = len([a for a in attempts if a.valid]) or 1
    known = [r.total_usd for r in roles.values()]
    total = None if any(t is None for t in known) else round(sum(t or 0.0 for t in known), 6)
    return Cout(
        jetons_entree=agent.jetons_entree,
        jetons_sortie=agent.jetons_sortie,
        modele=model,
        total_usd=total,
        par_conversation_usd=None if total is None else round(total / conversations, 6),
        prix=prices().get(model),
        note=next((r.note for r in roles.values() if r.note), None),
        par_role=roles if len(roles) > 1 else {},
    )


def simulator_report(checks: ModelChecks | None, attempts: list[Attempt]) -> SimulateurRapport | None:
    if checks is None or checks.simulator is None:
        return None
    played = [a for a in attempts if a.objective_reached is not None]
    return SimulateurRapport(
        modele=checks.simulator.model,
        substitut=checks.simulator.stand_in,
        conversations=len(played),
        objectifs_atteints=sum(bool(a.objective_reached) for a in played),
    )


def model_checks_report(
    checks: ModelChecks | None, attempts: list[Attempt]
) -> tuple[JugeRapport | None, EmbeddingsRapport | None]:
    """Which judge and which embeddings the run used, each criterion's standing, the calls made and saved."""
    if checks is None:
        return None, None
    juge = None
    if checks.judge is not None and checks.rubrics:
        criteres = {
            name: CritereRapport(
                rubrique=str(r.path),
                sha256=r.sha256,
                seuil=r.seuil,
                echelle=r.echelle,
                decisif=checks.standings[name].gates,
                raison=checks.standings[name].raison,
            )
            for name, r in checks.rubrics.items()
        }
        juge = JugeRapport(
            modele=checks.judge.model,
            substitut=checks.judge.stand_in,
            criteres=criteres,
            appels=sum(len(a.model_checks.judged) for a in attempts),
            sautes=sum(a.model_checks.judge_skipped for a in attempts),
        )
    embeddings = None
    if checks.embedder is not None:
        e = checks.embedder
        embeddings = EmbeddingsRapport(modele=e.model, substitut=e.stand_in, textes=len(e.known))
    return juge, embeddings


def porte(gate: Gate) -> Porte:
    """The gate's decision in the report's words."""
    return Porte(
        decision=DECISIONS[gate.decision],
        regle=gate.rule,
        code_sortie=int(gate.exit_code),
        chiffres=Chiffres(
            reussis=gate.passed,
            valides=gate.valid,
            erreurs=gate.errors,
            total=gate.total,
            score=gate.score,
            seuil=gate.seuil,
            taux_erreurs=round(gate.error_rate, 4),
            taux_erreurs_max=gate.max_error_rate,
            non_executables=gate.not_runnable,
        ),
        echecs_bloquants=gate.blocking_failures,
        regles_bloquantes=gate.blocking_rules,
    )


def per_category(attempts: list[Attempt]) -> dict[str, Categorie]:
    """Passed, valid and errors per category; attempts the target could not run are left out."""
    categories: dict[str, Categorie] = defaultdict(Categorie)
    for a in attempts:
        if a.not_runnable:
            continue
        c = categories[a.category]
        c.reussis += a.ok
        c.valides += a.valid
        c.erreurs += not a.valid
    return dict(categories)


def build(
    run: RunOutput,
    gate: Gate,
    *,
    model: str,
    backend: str,
    prompt: Prompt,
    goldens: str,
    repeat: int,
    checks: ModelChecks | None = None,
    rules: RuleGate | None = None,
) -> EvalReport:
    by_case: dict[str, list[Attempt]] = defaultdict(list)
    for a in run.attempts:
        by_case[a.case_id].append(a)
    turns = [ms for a in run.attempts if a.valid for ms in a.latencies_ms]
    juge, embeddings = model_checks_report(checks, run.attempts)
    _redact(run.attempts)
    error_types: dict[str, int] = defaultdict(int)
    for a in run.attempts:
        if a.error:
            error_types[a.error] += 1
    return EvalReport(
        score=gate.score,
        seuil=gate.seuil,
        porte=porte(gate),
        categories=per_category(run.attempts),
        latence=Latence(p50_ms=percentile(turns, 50), p95_ms=percentile(turns, 95), tours=len(turns)),
        cout=cost(model, run.attempts, checks),
        erreurs=Erreurs(
            nombre=gate.errors,
            taux=round(gate.error_rate, 4),
            taux_max=gate.max_error_rate,
            par_type=dict(error_types),
            circuit_ouvert=run.circuit_opened,
            reprises=run.retried,
        ),
        modele=Modele(
            nom=model,
            backend=backend,
            versions=sorted({v for a in run.attempts for v in a.models}),
            substitut=backend == "scripted"
            or any(v.startswith("scripted") for a in run.attempts for v in a.models),
        ),
        prompt=PromptRef(chemin=prompt.path, nom=Path(prompt.path).name, sha256=prompt.sha256),
        execution=Execution(
            id=run.run_id,
            debut=run.started_at.isoformat(),
            duree_s=round(run.duration_s, 3),
            goldens=goldens,
            repetitions=repeat,
        ),
        cas=sorted((case_entry(attempts) for attempts in by_case.values()), key=lambda c: c.id),
        juge=juge,
        embeddings=embeddings,
        simulateur=simulator_report(checks, run.attempts),
        regles=rules_report(rules),
    )


def rules_report(rules: RuleGate | None) -> dict[str, RegleRapport]:
    """The rulebook as the run held attempts to it: each rule, and whether it gated or was advisory."""
    if rules is None:
        return {}
    out = {}
    for name, rule in rules.rules.config.rules.rules.items():
        if not rule.enabled:
            continue
        standing = rules.standings.get(name)
        out[name] = RegleRapport(
            description=rule.description,
            severite=rule.severity.value,
            bloquante=rule.blocking,
            decisive=rules.gates(name),
            essayee=standing.tried if standing else 0,
            bons_enfreints=list(standing.good_broken) if standing else [],
            mauvais_attrapes=standing.bad_caught if standing else 0,
        )
    return out


def baseline_diff(report: EvalReport, baseline: EvalReport, path: str) -> Baseline:
    now = {c.id: c.stabilite for c in report.cas}
    before = {c.id: c.stabilite for c in baseline.cas}
    failing = ("stable échec", "instable")
    return Baseline(
        chemin=path,
        nouveaux_echecs=sorted(
            i for i, s in now.items() if s == "stable échec" and before.get(i) == "stable réussi"
        ),
        nouvelles_reussites=sorted(
            i for i, s in now.items() if s == "stable réussi" and before.get(i) in failing
        ),
        nouveaux_instables=sorted(
            i for i, s in now.items() if s == "instable" and before.get(i) != "instable"
        ),
        nouveaux_cas=sorted(set(now) - set(before)),
        cas_retires=sorted(set(before) - set(now)),
    )


def _redact(attempts: list[Attempt]) -> None:
    """The report on disk is redacted as the store is (unless redaction is configured off)."""
    secret = redaction_secret()
    redactor = Redactor(secret) if secret is not None else None
    for a in attempts:
        a.redact(redactor)


def case_entry(attempts: list[Attempt]) -> CasRapport:
    """A case's entry in the report, from its attempts (also printed as each case finishes)."""
    attempts = sorted(attempts, key=lambda a: a.attempt)
    valid = [a for a in attempts if a.valid]
    return CasRapport(
        id=attempts[0].case_id,
        categorie=attempts[0].category,
        reussis=sum(a.ok for a in valid),
        valides=len(valid),
        total=len(attempts),
        stabilite=stability(attempts),
        tentatives=attempts,
    )


GROUPS_REPORTED = 20  # the largest failure groups of the window the report lists


def coverage_entry(covered: Coverage, days: int) -> CouvertureRapport:
    """The set's coverage of the window's traffic, with its largest groups and the cases covering each."""
    return CouvertureRapport(
        jours=days,
        conversations=covered.conversations,
        couvertes=covered.covered,
        groupes=[
            GroupeCouvert(
                signature=g.signature,
                taille=g.size,
                cas=covered.covering.get(g.signature, []),
                exemple=g.representative,
            )
            for g in covered.groups[:GROUPS_REPORTED]
        ],
    )
