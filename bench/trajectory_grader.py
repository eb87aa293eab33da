"""The grader's speed with trajectory checks, against the flat grading it replaced, on the same answers.

Every example of the shipped set (its answers, its calls per turn with their arguments) is graded:
- `trajectory`: `goldens.checks.grade(case, transcript)`, the loop over check kinds the gate runs (tools
  with their arguments, escalation, order, per-turn checks, texts);
- `flat`: the seeds' grader as filon ran it before the transcript (kept here verbatim as the reference
  measured against): tool names in a set, one joined answer, the same text reading.
Both read the same inputs built once before timing; only the grading is timed. Beside them, the same
answers graded with the rulebook on top (`with_rules`: the case's checks, then `RuleGate.apply`, the
example's calls replayed on the case's shop once, before timing). The figure that matters
is the ratio (trajectory cases per second / flat), with the absolute rates beside it: a gate replays
each case against a model, so the grader's own time is microseconds against a turn's seconds.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from filon.goldens.case.schema import Case
from filon.goldens.checks import grade
from filon.goldens.checks.rules import RuleGate, Rules
from filon.goldens.set.calibration import transcript
from filon.goldens.set.caseset import load_set
from filon.goldens.set.rule_standing import example_transcript, standings
from filon.miner.core.transcript import Transcript
from filon.miner.reading.text import comparable, norm
from filon.miner.rules.grounding_rule import forget_readings

CASES = Path(__file__).resolve().parent.parent / "goldens" / "cases"
ROUNDS = 40


def _groups(value: Any) -> list[list[str]]:
    return [g if isinstance(g, list) else [g] for g in value or []]


def flat_grade(cas: dict[str, Any], outils: list[str], reponses: list[str], escaladee: bool) -> list[str]:
    """The grader as it was before the transcript: names in a set, every answer joined."""
    ecarts: list[str] = []
    called = set(outils)
    for options in _groups(cas.get("outils")):
        if not called.intersection(options):
            ecarts.append(f"outil manquant : {' ou '.join(options)}")
    for interdit in cas.get("outils_interdits") or []:
        if interdit in called:
            ecarts.append(f"outil interdit appelé : {interdit}")
    attendue = cas.get("escalade")
    if attendue is not None and bool(attendue) != bool(escaladee):
        ecarts.append(f"escalade attendue={attendue} obtenue={bool(escaladee)}")
    said = " ".join(reponses)
    plain, numbers = norm(said), comparable(said)
    for variantes in _groups(cas.get("contient")):
        if not any(norm(v) in plain or comparable(v) in numbers for v in variantes):
            ecarts.append("texte manquant : " + " ou ".join(f"« {v} »" for v in variantes))
    for texte in cas.get("ne_contient_pas") or []:
        if norm(texte) in plain or comparable(texte) in numbers:
            ecarts.append(f"texte interdit présent : « {texte} »")
    return ecarts


def flat_checks(case: Case) -> dict[str, Any]:
    """The case as the flat grader could read it: tools by name only."""
    return {
        "outils": case.expected_tools(),
        "outils_interdits": case.forbidden_tools(),
        "escalade": case.escalade,
        "contient": case.contient,
        "ne_contient_pas": case.ne_contient_pas,
    }


def main() -> None:
    cases = [c for c in load_set(CASES).cases if c.exemples]
    trajectory: list[tuple[Case, Transcript]] = []
    flat: list[tuple[dict[str, Any], list[str], list[str], bool]] = []
    for case in cases:
        checks = flat_checks(case)
        for example in case.exemples:
            seen = transcript(case, example)
            trajectory.append((case, seen))
            flat.append((checks, seen.tool_names, seen.answers, seen.escalated))
    for case, seen in trajectory:  # warm both: the text readings are cached alike
        grade(case, seen)
    for args in flat:
        flat_grade(*args)
    started = time.perf_counter()
    for _ in range(ROUNDS):
        for case, seen in trajectory:
            grade(case, seen)
    trajectory_s = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(ROUNDS):
        for args in flat:
            flat_grade(*args)
    flat_s = time.perf_counter() - started
    rules = Rules()
    gate = RuleGate(rules, standings([c for c, _ in trajectory], rules))  # also warms the tools' replays
    examples = [(c, example_transcript(c, ex)) for c in cases for ex in c.exemples]
    started = time.perf_counter()
    for _ in range(ROUNDS):
        forget_readings()  # each round reads the answers afresh, as the gate reads a new attempt's
        for ruled, said in examples:
            grade(ruled, said)
            gate.apply(ruled, said)
    with_rules_s = time.perf_counter() - started
    graded = ROUNDS * len(trajectory)
    print(
        json.dumps(
            {
                "answers": len(trajectory),
                "cases": len(cases),
                "trajectory_per_s": round(graded / trajectory_s),
                "flat_per_s": round(graded / flat_s),
                "trajectory_vs_flat": round(flat_s / trajectory_s, 3),
                "trajectory_us_per_answer": round(trajectory_s / graded * 1e6, 1),
                # the rulebook on top (each answer read against what the agent saw), same answers
                "with_rules_per_s": round(graded / with_rules_s),
                "with_rules_vs_without": round(trajectory_s / with_rules_s, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
