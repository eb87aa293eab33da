"""`filon goldens trust`: how far the whole gate agrees with the reviewers, on every example of the set.

Each example is graded as `filon eval` would grade that answer: the case's own checks, then the
rulebook's rules that gate (proven on the set, `goldens.set.rule_standing`); the checks that ask a model are
left out (no model is called), and an example only a judge is there to reject is counted apart. The
verdict of the gate is compared with the reviewer's: a `bon` answer the gate fails cries wolf, a
`mauvais` one it passes lies. Figures by category, by the kind of check that rejected each wrong answer,
and by where the example came from: answers of the agent a reviewer judged (`revue`, `observé`) apart
from those written by hand (`écrit`), which the checks were written against; and among the answers the
review TUI kept (each with the fingerprint of the case's checks then, `goldens.case.fingerprint`), those
judged on the checks as they still stand (« après les contrôles »: no check was changed after the
verdict) apart from those whose case's checks changed since (« avant un changement »: the checks may
have been fitted to them). The first of each is the honest figure a team watches as its set grows.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from filon.goldens.case.fingerprint import checks_fingerprint
from filon.goldens.case.schema import Case, Example
from filon.goldens.checks.rules import RuleGate
from filon.goldens.set.calibration import gaps, judge_failures
from filon.goldens.set.rule_standing import example_transcript
from filon.miner.core.messages import Refusal, said

REAL = ("revue", "observé")


@dataclass
class Tally:
    good: int = 0
    bad: int = 0
    cries_wolf: int = 0
    lies: int = 0

    @property
    def agreement(self) -> float | None:
        total = self.good + self.bad
        return None if not total else (total - self.cries_wolf - self.lies) / total

    def add(self, good: bool, passed: bool) -> None:
        if good:
            self.good += 1
            self.cries_wolf += not passed
        else:
            self.bad += 1
            self.lies += passed

    def as_json(self) -> dict[str, object]:
        agreement = self.agreement
        return {
            "bons": self.good,
            "mauvais": self.bad,
            "accord": None if agreement is None else round(agreement, 3),
            "crie_au_loup": self.cries_wolf,
            "ment": self.lies,
        }


@dataclass
class Trust:
    overall: Tally = field(default_factory=Tally)
    by_category: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_origin: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    # real answers judged on the checks as they stand ("après") or before a change of the checks ("avant")
    by_arrival: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    caught_by: Counter[str] = field(default_factory=Counter)  # the kind of check that rejected a mauvais
    good_failed_by: Counter[str] = field(default_factory=Counter)  # the kind of check that failed a bon
    with_judge: Tally = field(default_factory=Tally)  # the whole gate, the calibrated judge included
    for_the_judge: int = 0  # mauvais answers only a judge is there to reject: not counted
    # each answer the gate judged otherwise than its reviewer: its place in the table, its case, the
    # reviewer's verdict and the checks that failed it (none: a wrong answer that passed)
    disagreements: list[dict[str, object]] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return {
            "ensemble": self.overall.as_json(),
            "par_categorie": {k: v.as_json() for k, v in sorted(self.by_category.items())},
            "par_origine": {k: v.as_json() for k, v in sorted(self.by_origin.items())},
            "par_arrivee": {k: v.as_json() for k, v in sorted(self.by_arrival.items())},
            "rejets_par_controle": dict(self.caught_by.most_common()),
            "bons_echoues_par_controle": dict(self.good_failed_by.most_common()),
            **(
                {"avec_juge": self.with_judge.as_json()} if self.with_judge.good + self.with_judge.bad else {}
            ),
            "laisses_au_juge": self.for_the_judge,
        }


def set_examples(cases: Sequence[Case]) -> list[tuple[Case, Example]]:
    return [(case, example) for case in cases for example in case.exemples]


def table_examples(cases: Sequence[Case], rows: list[Any], source: str) -> list[tuple[Case, Example]]:
    """A table of judged answers (a JSON list of {case, verdict, reponse, outils, escalade}), each with its
    case; `ValueError` naming the row and the field."""
    known = {c.id: c for c in cases}
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or row.get("case") not in known:
            raise Refusal(said("err.trust.not_a_case", where=f"{source}: row {i}"))
        fields = {k: row[k] for k in ("verdict", "reponse", "outils", "escalade", "origine") if k in row}
        answers = fields.get("reponse")
        if isinstance(answers, list) and len(answers) == 1:
            fields["reponse"] = answers[0]
        try:
            out.append((known[row["case"]], Example.model_validate({"origine": "revue", **fields})))
        except ValidationError as exc:
            where = ".".join(str(p) for p in exc.errors()[0]["loc"])
            raise Refusal(
                said("err.at", where=f"{source}: row {i}: {where}", why=exc.errors()[0]["msg"])
            ) from None
    return out


# the judge's verdicts on an answer that passed every deterministic check: the criteria that gate and fail
JudgeGaps = Callable[[Case, Example], list[str]]


def trust(
    examples: Sequence[tuple[Case, Example]], rules: RuleGate | None, judge: JudgeGaps | None = None
) -> Trust:
    """The deterministic gate's agreement with the reviewers; with `judge`, the whole gate's beside it
    (`with_judge`: the calibrated criteria that gate, asked only where every deterministic check passed,
    as `filon eval` asks them), the answers only a judge can reject counted there."""
    out = Trust()
    for i, (case, example) in enumerate(examples):
        criteria = tuple(case.criteria())
        seen = rules.rules.seen if rules is not None else None
        found = [g.kind if g.kind != "regle" else g.check for g in gaps(case, example, seen)]
        if rules is not None and case.simulation is None:  # the rules that gate, by their gap's own path
            breaches = rules.rules.grade(case, example_transcript(case, example))
            found += [g.check for g in breaches if rules.gates(g.check.split(".", 1)[1])]
        good = example.verdict == "bon"
        if judge is not None:
            whole = found or (judge(case, example) if criteria else [])
            out.with_judge.add(good, not whole)
            if good and whole and not found:  # a good answer only the judge failed
                out.good_failed_by[whole[0]] += 1
        if not good and judge_failures(criteria, example):
            out.for_the_judge += 1
            continue
        passed = not found
        origin = "réelle" if example.origine in REAL else "écrite"
        for tally in (out.overall, out.by_category[case.categorie], out.by_origin[origin]):
            tally.add(good, passed)
        if example.controles:
            when = (
                "après les contrôles"
                if example.controles == checks_fingerprint(case)
                else "avant un changement"
            )
            out.by_arrival[when].add(good, passed)
        if good != passed:
            out.disagreements.append(
                {"ligne": i, "cas": case.id, "verdict": example.verdict, "echoue_par": found}
            )
        if not good and found:
            out.caught_by[found[0]] += 1
        if good and found:
            out.good_failed_by[found[0]] += 1
    return out
