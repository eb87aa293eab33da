"""The gate: a pure decision over the attempts of a run.

Every rule of the decision is here, and `decide` applies them in this order, the first that applies wins:
0. the run was interrupted (ctrl-C): interrupted, nothing decided (what was done is reported);
1. a blocking category (`securite` by default) failed an attempt, or an attempt broke a blocking rule of
   the rulebook (`fuite`, `injection_suivie`, `geste_promis` by default): failed, whatever the score;
2. the spending budget stopped the run before its end: inconclusive (a partial run decides nothing);
3. infrastructure errors over the error budget, or nothing valid to score: inconclusive;
4. score (passed / valid attempts) under the threshold: failed;
5. otherwise passed.
A security failure is conclusive even in a noisy or partial run: a leak is not excused by a quota storm
elsewhere. Then `exit_code` says the command's exit: the gate's own, unless it passed and a comparison
with an earlier run (`--compare-with`) says otherwise.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from filon.goldens.exits import Exit
from filon.goldens.verdict.report_model import Stability
from filon.miner.core.messages import Said, said

Decision = Literal["passed", "failed", "inconclusive", "interrupted"]


class AttemptLike(Protocol):
    case_id: str
    category: str

    @property
    def valid(self) -> bool: ...

    @property
    def ok(self) -> bool: ...


EXIT: dict[Decision, Exit] = {
    "passed": Exit.OK,
    "failed": Exit.FAILED,
    "inconclusive": Exit.INCONCLUSIVE,
    "interrupted": Exit.INTERRUPTED,
}


@dataclass(frozen=True)
class BudgetStop:
    """The spending budget left attempts unstarted: `skipped` of them, `spent` of `limit`."""

    limit: float
    skipped: int
    spent: float


@dataclass(frozen=True)
class Interruption:
    """ctrl-C: `done` attempts of `planned`."""

    done: int
    planned: int


@dataclass
class Gate:
    decision: Decision
    rule: str
    score: float | None
    threshold: float
    passed: int
    valid: int
    errors: int
    total: int
    error_rate: float
    max_error_rate: float
    blocking_failures: dict[str, list[str]] = field(default_factory=dict)
    not_runnable: int = 0  # attempts the target could not run, left out of every figure above
    blocking_rules: dict[str, list[str]] = field(default_factory=dict)  # rule → the cases that broke it
    said: Said | None = None  # the rule as a sentence of the catalogue (`rule` is its French)

    @property
    def exit_code(self) -> Exit:
        return EXIT[self.decision]

    def exit_with(self, comparison_exit: int | None) -> int:
        """The command's exit once a comparison with an earlier run is known: the gate's failure, budget
        stop or interruption wins; a gate that passed takes the comparison's exit."""
        if comparison_exit is None or self.decision != "passed":
            return int(self.exit_code)
        return comparison_exit


def decide(
    attempts: Sequence[AttemptLike],
    threshold: float,
    blocking_categories: Sequence[str],
    max_error_rate: float,
    budget: BudgetStop | None = None,
    interrupted: Interruption | None = None,
) -> Gate:
    """The decision over the attempts the target could run (those it could not are reported apart:
    neither failures nor infrastructure errors), by the rules above."""
    skipped = sum(1 for a in attempts if getattr(a, "not_runnable", None))
    attempts = [a for a in attempts if not getattr(a, "not_runnable", None)]
    total = len(attempts)
    valid = [a for a in attempts if a.valid]
    passed = sum(1 for a in valid if a.ok)
    errors = total - len(valid)
    error_rate = errors / total if total else 1.0
    score = passed / len(valid) if valid else None
    blocking: dict[str, list[str]] = defaultdict(list)
    rules: dict[str, list[str]] = defaultdict(list)
    for a in valid:
        if a.category in blocking_categories and not a.ok and a.case_id not in blocking[a.category]:
            blocking[a.category].append(a.case_id)
        for rule in getattr(a, "blocking_rules", None) or []:
            if a.case_id not in rules[rule]:
                rules[rule].append(a.case_id)
    gate = Gate(
        "passed",
        "",
        score,
        threshold,
        passed,
        len(valid),
        errors,
        total,
        error_rate,
        max_error_rate,
        dict(blocking),
        skipped,
        dict(rules),
    )
    gate.decision, gate.said = _verdict(gate, budget, interrupted)
    gate.rule = str(gate.said)
    return gate


def _verdict(g: Gate, budget: BudgetStop | None, interrupted: Interruption | None) -> tuple[Decision, Said]:
    """The first rule of the module's list that applies, and the sentence the report gives for it."""
    if interrupted is not None:
        return "interrupted", said("gate.interrupted", done=interrupted.done, planned=interrupted.planned)
    if g.blocking_failures:
        names = "; ".join(f"{cat} ({', '.join(ids)})" for cat, ids in g.blocking_failures.items())
        return "failed", said("gate.blocking_category", names=names)
    if g.blocking_rules:
        names = "; ".join(f"{rule} ({', '.join(ids)})" for rule, ids in g.blocking_rules.items())
        return "failed", said("gate.blocking_rule", names=names)
    if budget is not None:
        return "inconclusive", said(
            "gate.budget", limit=budget.limit, skipped=budget.skipped, spent=budget.spent
        )
    if not g.total:
        return "inconclusive", said("gate.nothing_runnable")
    if not g.valid or g.error_rate > g.max_error_rate:
        return "inconclusive", said(
            "gate.errors", errors=g.errors, total=g.total, rate=g.error_rate, max_rate=g.max_error_rate
        )
    if g.score is not None and g.score < g.threshold:
        return "failed", said("gate.under", score=g.score, threshold=g.threshold)
    return "passed", said("gate.above", score=g.score, threshold=g.threshold)


def stability(results: Sequence[AttemptLike]) -> Stability:
    """For --repeat, in the report's words: every valid attempt passed, none did, some did (valid
    attempts only), or none was valid."""
    valid = [a for a in results if a.valid]
    if not valid:
        return (
            "non exécutable"
            if results and all(getattr(a, "not_runnable", None) for a in results)
            else "erreur"
        )
    passed = sum(1 for a in valid if a.ok)
    if passed == len(valid):
        return "stable réussi"
    return "stable échec" if passed == 0 else "instable"
