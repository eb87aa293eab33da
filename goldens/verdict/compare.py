"""`filon eval compare A B`: is run B worse than run A beyond noise, and what does the change cost?

Two reports of the same set are paired by case id. A case whose content changed between them (its
fingerprint differs) is listed and left out; a case with no valid attempt on either side too. Outcomes
are per case: passed means every valid attempt passed. The verdict, in order: the reports do not pair
(2); either run was inconclusive (3); a case of a blocking category passed on A and fails on B (1); B's
score is lower by more than the margin and McNemar's exact test says so at 5% (1); otherwise not worse
(0), saying when the set is too small for the test ever to see a drop of the margin.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from filon.goldens.exits import Exit
from filon.goldens.verdict import stats
from filon.goldens.verdict.report_model import EvalReport
from filon.miner.core.messages import Refusal, Said, said

Verdict = Literal["pas pire", "pire", "ne s'apparient pas", "non concluant"]
EXIT: dict[Verdict, Exit] = {
    "pas pire": Exit.OK,
    "pire": Exit.FAILED,
    "ne s'apparient pas": Exit.USAGE,
    "non concluant": Exit.INCONCLUSIVE,
}


@dataclass(frozen=True)
class CaseDelta:
    id: str
    category: str
    passed_a: int
    valid_a: int
    passed_b: int
    valid_b: int

    @property
    def rate_a(self) -> float:
        return self.passed_a / self.valid_a

    @property
    def rate_b(self) -> float:
        return self.passed_b / self.valid_b

    @property
    def ok_a(self) -> bool:
        return self.passed_a == self.valid_a

    @property
    def ok_b(self) -> bool:
        return self.passed_b == self.valid_b


@dataclass
class RunRef:
    """One side of a comparison: which run it was, on what (the report's French keys in JSON)."""

    id: str
    date: str
    model: str
    backend: str
    prompt: str
    prompt_sha256: str
    repetitions: int


@dataclass
class Comparison:
    verdict: Verdict
    reason: Said | str  # a sentence of the catalogue (its French in `--json`)
    margin: float
    cases: list[CaseDelta] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)  # content changed between the runs: left out
    excluded: list[str] = field(default_factory=list)  # no valid attempt on one side
    missing: dict[str, list[str]] = field(default_factory=dict)  # ids on one side only
    score_a: float | None = None
    score_b: float | None = None
    discordants: tuple[int, int] = (0, 0)  # (passed on A only, passed on B only)
    p_value: float | None = None
    interval: tuple[float, float] | None = None
    method: Said | str = ""
    too_small: Said | str = ""
    runs: dict[Literal["a", "b"], RunRef] = field(default_factory=dict)
    cost: dict[str, Any] = field(default_factory=dict)
    latency: dict[str, Any] = field(default_factory=dict)
    categories: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return EXIT[self.verdict]

    @property
    def delta(self) -> float | None:
        if self.score_a is None or self.score_b is None:
            return None
        return self.score_b - self.score_a

    def newly_failing(self) -> list[str]:
        return [c.id for c in self.cases if c.ok_a and not c.ok_b]

    def newly_fixed(self) -> list[str]:
        return [c.id for c in self.cases if c.ok_b and not c.ok_a]

    def as_json(self) -> dict[str, Any]:
        """The comparison in the report's words: its French keys, as `eval compare --json` has written."""
        out = {_ON_DISK.get(k, k): v for k, v in asdict(self).items()}
        for key in ("reason", "method", "too_small"):  # said in French, as the report says it
            out[_ON_DISK[key]] = str(getattr(self, key))
        out["runs"] = {
            name: {("modele" if k == "model" else k): v for k, v in side.items()}
            for name, side in out["runs"].items()
        }
        out.update(exit_code=self.exit_code, delta=self.delta)
        out["nouveaux_echecs"], out["nouvelles_reussites"] = self.newly_failing(), self.newly_fixed()
        out["cas"] = [
            {**{_ON_DISK.get(k, k): v for k, v in asdict(c).items()}, "taux_a": c.rate_a, "taux_b": c.rate_b}
            for c in self.cases
        ]
        return out


# English names in code, the French keys `eval compare --json` writes
_ON_DISK = {
    "reason": "raison",
    "margin": "marge",
    "cases": "cas",
    "modified": "modifies",
    "excluded": "exclus",
    "missing": "manquants",
    "interval": "intervalle",
    "method": "methode",
    "too_small": "trop_petit",
    "cost": "cout",
    "latency": "latence",
    "category": "categorie",
}


def compare(a: EvalReport, b: EvalReport, margin: float = 0.05) -> Comparison:
    if not 0 < margin < 1:
        raise Refusal(said("err.compare.margin", margin=margin))
    cases_a, cases_b = a.by_id(), b.by_id()
    only_a, only_b = sorted(set(cases_a) - set(cases_b)), sorted(set(cases_b) - set(cases_a))
    out = Comparison("pas pire", "", margin, runs={"a": _run(a), "b": _run(b)})
    if (
        a.inconclusive or b.inconclusive
    ):  # an interrupted run holds fewer cases: it is unfinished, not foreign
        which = (
            said("compare.both") if a.inconclusive and b.inconclusive else ("A" if a.inconclusive else "B")
        )
        out.verdict, out.reason = "non concluant", said("compare.inconclusive", which=which)
        return out
    if only_a or only_b or not cases_a:
        out.verdict, out.missing = "ne s'apparient pas", {"a_seulement": only_a, "b_seulement": only_b}
        out.reason = said("compare.not_same_cases" if cases_a else "compare.no_case")
        return out
    fp_a, fp_b = a.fingerprints, b.fingerprints
    for case_id in sorted(cases_a):
        ca, cb = cases_a[case_id], cases_b[case_id]
        if case_id in fp_a and case_id in fp_b and fp_a[case_id] != fp_b[case_id]:
            out.modified.append(case_id)
        elif not ca.valid or not cb.valid:
            out.excluded.append(case_id)
        else:
            out.cases.append(CaseDelta(case_id, ca.category, ca.passed, ca.valid, cb.passed, cb.valid))
    _measure(out, a, b)
    blocking = set(b.blocking or a.blocking or ["securite"])
    regressed = [c.id for c in out.cases if c.category in blocking and c.ok_a and not c.ok_b]
    if regressed:
        out.verdict = "pire"
        out.reason = said("compare.blocking_regressed", ids=", ".join(regressed))
        return out
    delta = out.delta or 0.0
    significant = out.p_value is not None and out.p_value < stats.ALPHA
    if delta < -margin and significant:
        out.verdict = "pire"
        out.reason = said("compare.worse", loss=-delta, margin=margin, p=out.p_value)
    elif delta < -margin:
        out.reason = said("compare.not_significant", loss=-delta, margin=margin, p=out.p_value)
    else:
        out.reason = said("compare.within", delta=delta, margin=margin)
    return out


def _measure(out: Comparison, a: EvalReport, b: EvalReport) -> None:
    """Scores, discordant pairs, the test, the interval, categories, cost and latency."""
    n = len(out.cases)
    if n == 0:
        return
    out.score_a = sum(c.rate_a for c in out.cases) / n
    out.score_b = sum(c.rate_b for c in out.cases) / n
    b_only = sum(1 for c in out.cases if c.ok_a and not c.ok_b)
    c_only = sum(1 for c in out.cases if c.ok_b and not c.ok_a)
    out.discordants = (b_only, c_only)
    out.p_value = stats.mcnemar_exact(b_only, c_only)
    if all(c.valid_a == 1 and c.valid_b == 1 for c in out.cases):
        out.interval, out.method = stats.paired_interval(b_only, c_only, n), said("compare.agresti_min")
    else:
        deltas = [c.rate_b - c.rate_a for c in out.cases]
        out.interval, out.method = stats.bootstrap_interval(deltas), said("compare.bootstrap")
    needed = stats.cases_needed(out.margin)
    if n < needed:
        out.too_small = said(
            "compare.too_small",
            cases=n,
            margin=out.margin,
            discordant=stats.fewest_discordant(),
            needed=needed,
        )
    cats: dict[str, list[CaseDelta]] = {}
    for c in out.cases:
        cats.setdefault(c.category, []).append(c)
    out.categories = {
        name: {
            "a": sum(c.rate_a for c in group) / len(group),
            "b": sum(c.rate_b for c in group) / len(group),
            "cas": len(group),
        }
        for name, group in sorted(cats.items())
    }
    out.cost = {
        "a": a.cost.total_usd,
        "b": b.cost.total_usd,
        "modele_a": a.cost.model,
        "modele_b": b.cost.model,
    }
    out.latency = {
        "p50_a": a.latency.p50_ms,
        "p50_b": b.latency.p50_ms,
        "p95_a": a.latency.p95_ms,
        "p95_b": b.latency.p95_ms,
    }


def _run(report: EvalReport) -> RunRef:
    return RunRef(
        id=report.execution.id,
        date=str(report.execution.started),
        model=report.model.name,
        backend=report.model.backend,
        prompt=report.prompt.path,
        prompt_sha256=report.prompt.sha256,
        repetitions=report.execution.repetitions,
    )
