"""The gate as a pure decision over built attempts."""

from __future__ import annotations

from filon.goldens.run.runner import Attempt
from filon.goldens.verdict.gate import BudgetStop, Interruption, decide, stability


def attempt(case: str, cat: str = "faq", ok: bool = True, error: str | None = None, n: int = 1) -> Attempt:
    return Attempt(
        case_id=case, category=cat, attempt=n, gaps=[] if ok else ["outil manquant : x"], error=error
    )


def test_passes_over_the_threshold() -> None:
    gate = decide([attempt(f"c{i}") for i in range(9)] + [attempt("bad", ok=False)], 0.9, ["securite"], 0.1)
    assert (gate.decision, gate.exit_code, gate.score) == ("passed", 0, 0.9)


def test_fails_under_the_threshold() -> None:
    gate = decide([attempt("a"), attempt("b", ok=False)], 0.9, ["securite"], 0.1)
    assert gate.decision == "failed" and "sous le seuil" in gate.rule


def test_security_is_not_compensable() -> None:
    attempts = [attempt(f"c{i}") for i in range(29)] + [attempt("adv-01", "securite", ok=False)]
    gate = decide(attempts, 0.9, ["securite"], 0.1)
    assert gate.score is not None and gate.score > 0.9
    assert gate.decision == "failed" and gate.blocking_failures == {"securite": ["adv-01"]}
    assert "securite (adv-01)" in gate.rule


def test_other_blocking_categories_can_be_chosen() -> None:
    attempts = [attempt(f"c{i}") for i in range(29)] + [attempt("esc-01", "escalade", ok=False)]
    assert decide(attempts, 0.9, ["securite"], 0.1).decision == "passed"
    assert decide(attempts, 0.9, ["securite", "escalade"], 0.1).decision == "failed"


def test_infrastructure_errors_are_not_quality_failures() -> None:
    attempts = [attempt(f"c{i}") for i in range(10)] + [attempt("e", error="429 RESOURCE_EXHAUSTED")]
    gate = decide(attempts, 0.9, ["securite"], 0.1)
    assert (gate.decision, gate.score, gate.errors) == ("passed", 1.0, 1)


def test_over_the_error_budget_is_inconclusive() -> None:
    attempts = [attempt("a")] + [attempt(f"e{i}", error="503 UNAVAILABLE") for i in range(3)]
    gate = decide(attempts, 0.9, ["securite"], 0.1)
    assert (gate.decision, gate.exit_code) == ("inconclusive", 3)
    assert decide([attempt("e", error="timeout")], 0.9, [], 1.0).decision == "inconclusive"  # nothing valid


def test_repeat_labels() -> None:
    assert stability([attempt("a", n=1), attempt("a", n=2)]) == "stable réussi"
    assert stability([attempt("a", ok=False, n=1), attempt("a", ok=False, n=2)]) == "stable échec"
    assert stability([attempt("a", n=1), attempt("a", ok=False, n=2)]) == "instable"
    assert stability([attempt("a", error="timeout")]) == "erreur"


def test_an_interruption_decides_nothing_whatever_else_holds() -> None:
    attempts = [attempt("adv-01", "securite", ok=False), attempt("a")]
    gate = decide(attempts, 0.9, ["securite"], 0.1, interrupted=Interruption(2, 10))
    assert (gate.decision, gate.exit_code) == ("interrupted", 130)
    assert "2/10" in gate.rule


def test_a_budget_stop_is_inconclusive_but_a_leak_before_it_still_fails() -> None:
    stop = BudgetStop(limit=0.5, skipped=3, spent=0.49)
    fine = decide([attempt("a"), attempt("b", ok=False)], 0.9, ["securite"], 0.1, budget=stop)
    assert (fine.decision, fine.exit_code) == (
        "inconclusive",
        3,
    ) and "3 tentative(s) non lancée(s)" in fine.rule
    leak = decide([attempt("adv-01", "securite", ok=False)], 0.9, ["securite"], 0.1, budget=stop)
    assert leak.decision == "failed" and "securite (adv-01)" in leak.rule


def test_a_comparison_decides_the_exit_only_of_a_gate_that_passed() -> None:
    passed = decide([attempt("a")], 0.9, ["securite"], 0.1)
    failed = decide([attempt("a", ok=False)], 0.9, ["securite"], 0.1)
    assert passed.exit_with(None) == 0 and passed.exit_with(1) == 1 and passed.exit_with(3) == 3
    assert failed.exit_with(0) == 1 and failed.exit_with(None) == 1
