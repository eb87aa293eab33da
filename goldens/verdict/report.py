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
    CaseReport,
    CategoryTally,
    CoverageReport,
    CoveredGroup,
    CriterionReport,
    EmbeddingsReport,
    ErrorTally,
    EvalReport,
    Execution,
    GateFigures,
    GateResult,
    JudgeReport,
    Latency,
    ModelInfo,
    PromptRef,
    RoleCost,
    RuleReport,
    RunCost,
    SimulatorReport,
)
from filon.miner.core.messages import Said
from filon.miner.rules.config import test_identities
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


def role_cost(model: str, tokens_in: int, tokens_out: int) -> RoleCost:
    price = prices().get(model)
    if price is None:
        note = f"no price for {model!r} in goldens/prices.json"
        return RoleCost(model=model, input_tokens=tokens_in, output_tokens=tokens_out, note=note)
    total = tokens_in / 1e6 * price["input_per_million"] + tokens_out / 1e6 * price["output_per_million"]
    return RoleCost(model=model, input_tokens=tokens_in, output_tokens=tokens_out, total_usd=round(total, 6))


def cost(model: str, attempts: list[Attempt], checks: ModelChecks | None = None) -> RunCost:
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
    return RunCost(
        input_tokens=agent.input_tokens,
        output_tokens=agent.output_tokens,
        model=model,
        total_usd=total,
        per_conversation_usd=None if total is None else round(total / conversations, 6),
        prices=prices().get(model),
        note=next((r.note for r in roles.values() if r.note), None),
        per_role=roles if len(roles) > 1 else {},
    )


def simulator_report(checks: ModelChecks | None, attempts: list[Attempt]) -> SimulatorReport | None:
    if checks is None or checks.simulator is None:
        return None
    played = [a for a in attempts if a.objective_reached is not None]
    return SimulatorReport(
        model=checks.simulator.model,
        stand_in=checks.simulator.stand_in,
        conversations=len(played),
        goals_reached=sum(bool(a.objective_reached) for a in played),
    )


def model_checks_report(
    checks: ModelChecks | None, attempts: list[Attempt]
) -> tuple[JudgeReport | None, EmbeddingsReport | None]:
    """Which judge and which embeddings the run used, each criterion's standing, the calls made and saved."""
    if checks is None:
        return None, None
    juge = None
    if checks.judge is not None and checks.rubrics:
        criteres = {
            name: CriterionReport(
                rubric=str(r.path),
                sha256=r.sha256,
                threshold=r.threshold,
                scale=r.scale,
                decisive=checks.standings[name].gates,
                reason=str(checks.standings[name].reason),
            )
            for name, r in checks.rubrics.items()
        }
        juge = JudgeReport(
            model=checks.judge.model,
            stand_in=checks.judge.stand_in,
            criteria=criteres,
            calls=sum(len(a.model_checks.judged) for a in attempts),
            skipped=sum(a.model_checks.judge_skipped for a in attempts),
        )
    embeddings = None
    if checks.embedder is not None:
        e = checks.embedder
        embeddings = EmbeddingsReport(model=e.model, stand_in=e.stand_in, texts=len(e.known))
    return juge, embeddings


def gate_result(gate: Gate) -> GateResult:
    """The gate's decision in the report's words."""
    return GateResult(
        decision=DECISIONS[gate.decision],
        rule=gate.rule,
        exit_code=int(gate.exit_code),
        figures=GateFigures(
            passed=gate.passed,
            valid=gate.valid,
            errors=gate.errors,
            total=gate.total,
            score=gate.score,
            threshold=gate.threshold,
            error_rate=round(gate.error_rate, 4),
            max_error_rate=gate.max_error_rate,
            not_runnable=gate.not_runnable,
        ),
        blocking_failures=gate.blocking_failures,
        blocking_rules=gate.blocking_rules,
    )


def per_category(attempts: list[Attempt]) -> dict[str, CategoryTally]:
    """Passed, valid and errors per category; attempts the target could not run are left out."""
    categories: dict[str, CategoryTally] = defaultdict(CategoryTally)
    for a in attempts:
        if a.not_runnable:
            continue
        c = categories[a.category]
        c.passed += a.ok
        c.valid += a.valid
        c.errors += not a.valid
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
        threshold=gate.threshold,
        gate=gate_result(gate),
        categories=per_category(run.attempts),
        latency=Latency(p50_ms=percentile(turns, 50), p95_ms=percentile(turns, 95), turns=len(turns)),
        cost=cost(model, run.attempts, checks),
        errors=ErrorTally(
            count=gate.errors,
            rate=round(gate.error_rate, 4),
            max_rate=gate.max_error_rate,
            by_type=dict(error_types),
            circuit_open=run.circuit_opened,
            retries=run.retried,
        ),
        model=ModelInfo(
            name=model,
            backend=backend,
            versions=sorted({v for a in run.attempts for v in a.models}),
            stand_in=backend == "scripted"
            or any(v.startswith("scripted") for a in run.attempts for v in a.models),
        ),
        prompt=PromptRef(path=prompt.path, name=Path(prompt.path).name, sha256=prompt.sha256),
        execution=Execution(
            id=run.run_id,
            started=run.started_at.isoformat(),
            duration_s=round(run.duration_s, 3),
            goldens=goldens,
            repetitions=repeat,
        ),
        cases=sorted((case_entry(attempts) for attempts in by_case.values()), key=lambda c: c.id),
        judge=juge,
        embeddings=embeddings,
        simulator=simulator_report(checks, run.attempts),
        rules=rules_report(rules),
        codes=codes_of(gate, run.attempts, checks),
    )


def codes_of(gate: Gate, attempts: list[Attempt], checks: ModelChecks | None) -> dict[str, Said]:
    """Every sentence of the report that has a code, by its French: what `EvalReport.say` renders."""
    out: dict[str, Said] = {}
    for a in attempts:
        out.update(a.codes)
    if gate.said is not None:
        out[gate.rule] = gate.said
    for standing in checks.standings.values() if checks is not None else ():
        out[str(standing.reason)] = standing.reason
    return out


def rules_report(rules: RuleGate | None) -> dict[str, RuleReport]:
    """The rulebook as the run held attempts to it: each rule, and whether it gated or was advisory."""
    if rules is None:
        return {}
    out = {}
    for name, rule in rules.rules.config.rules.rules.items():
        if not rule.enabled:
            continue
        standing = rules.standings.get(name)
        out[name] = RuleReport(
            description=rule.description,
            severity=rule.severity.value,
            blocking=rule.blocking,
            decisive=rules.gates(name),
            tried=standing.tried if standing else 0,
            good_broken=list(standing.good_broken) if standing else [],
            bad_caught=standing.bad_caught if standing else 0,
        )
    return out


def baseline_diff(report: EvalReport, baseline: EvalReport, path: str) -> Baseline:
    now = {c.id: c.stability for c in report.cases}
    before = {c.id: c.stability for c in baseline.cases}
    failing = ("stable échec", "instable")
    return Baseline(
        path=path,
        new_failures=sorted(
            i for i, s in now.items() if s == "stable échec" and before.get(i) == "stable réussi"
        ),
        new_passes=sorted(i for i, s in now.items() if s == "stable réussi" and before.get(i) in failing),
        new_unstable=sorted(i for i, s in now.items() if s == "instable" and before.get(i) != "instable"),
        new_cases=sorted(set(now) - set(before)),
        removed_cases=sorted(set(before) - set(now)),
    )


def _redact(attempts: list[Attempt]) -> None:
    """The report on disk is redacted as the store is (unless redaction is configured off)."""
    secret = redaction_secret()
    redactor = Redactor(secret, test_identities()) if secret is not None else None
    for a in attempts:
        a.redact(redactor)


def case_entry(attempts: list[Attempt]) -> CaseReport:
    """A case's entry in the report, from its attempts (also printed as each case finishes)."""
    attempts = sorted(attempts, key=lambda a: a.attempt)
    valid = [a for a in attempts if a.valid]
    return CaseReport(
        id=attempts[0].case_id,
        category=attempts[0].category,
        passed=sum(a.ok for a in valid),
        valid=len(valid),
        total=len(attempts),
        stability=stability(attempts),
        attempts=attempts,
    )


GROUPS_REPORTED = 20  # the largest failure groups of the window the report lists


def coverage_entry(covered: Coverage, days: int) -> CoverageReport:
    """The set's coverage of the window's traffic, with its largest groups and the cases covering each."""
    return CoverageReport(
        days=days,
        conversations=covered.conversations,
        covered=covered.covered,
        groups=[
            CoveredGroup(
                signature=g.signature,
                size=g.size,
                cases=covered.covering.get(g.signature, []),
                example=g.representative,
            )
            for g in covered.groups[:GROUPS_REPORTED]
        ],
    )
