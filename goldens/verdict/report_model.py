"""The eval report (`var/eval-rapport.json`): one typed, versioned document, built once by the gate and read
by everything else (the failures screen, JUnit, the console, the baseline diff, `eval compare`, and the
store's rows through `goldens.verdict.record`). Each attempt in it is the runner's own object
(`goldens.run.attempt.Attempt`), sealed: one attempt in memory and on disk.

The report speaks the case format's language, French, keys included, as the seeds' reports do. Version 1
(filon's earlier reports) mixed English keys in; version 3 added the target (`cible`) and the attempts a
target could not run (`non_executable`); version 4 the checks that ask a model (`juge`, `embeddings`, `simulateur`,
each attempt's `juges`, `similarites` and `avis`) and the cost per role; version 5 each attempt's
trajectory (`tours`: per turn, the customer's message, the answer, each tool call with its arguments,
result and failure, redacted as the store redacts); version 6 the five worst attempts (`pires`); version 7
each sentence's code (`codes`: French sentence → its code and values in `miner/core/messages.toml`), so
that a report read back is said in English without translating its French.
`EvalReport.parse` reads them all, so a baseline or a run A written by an older filon still compares.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from filon.goldens.case.on_disk import FrenchOnDisk
from filon.goldens.run.attempt import Attempt
from filon.miner.core.messages import Refusal, Said, as_said, said

VERSION: Literal[7] = 7
Stability = Literal["stable réussi", "stable échec", "instable", "erreur", "non exécutable"]
Decision = Literal["réussi", "échoué", "non concluant", "interrompu"]


class CaseReport(FrenchOnDisk):
    id: str
    category: str = Field(alias="categorie")
    passed: int = Field(alias="reussis")
    valid: int = Field(alias="valides")
    total: int
    stability: Stability = Field(alias="stabilite")
    attempts: list[Attempt] = Field(alias="tentatives")  # each the runner's own, in the report's words


class GateFigures(FrenchOnDisk):
    passed: int = Field(alias="reussis")
    valid: int = Field(alias="valides")
    errors: int = Field(alias="erreurs")
    total: int
    score: float | None
    threshold: float = Field(alias="seuil")
    error_rate: float = Field(alias="taux_erreurs")
    max_error_rate: float = Field(alias="taux_erreurs_max")
    not_runnable: int = Field(
        0, alias="non_executables"
    )  # attempts the target could not run: neither failures nor errors


class GateResult(FrenchOnDisk):
    decision: Decision
    rule: str = Field(alias="regle")
    exit_code: int = Field(alias="code_sortie")
    figures: GateFigures = Field(alias="chiffres")
    blocking_failures: dict[str, list[str]] = Field(default_factory=dict, alias="echecs_bloquants")
    blocking_rules: dict[str, list[str]] = Field(
        default_factory=dict, alias="regles_bloquantes"
    )  # rule → cases that broke it


class RuleReport(FrenchOnDisk):
    """One rule of the rulebook in a run: what it is, whether it gated (proven on the set's examples)."""

    description: str
    severity: str = Field(alias="severite")
    blocking: bool = Field(alias="bloquante")
    decisive: bool  # it broke no good example of the set: its breaches are gaps
    tried: int = Field(0, alias="essayee")  # examples of the set it was tried on
    good_broken: list[str] = Field(
        default_factory=list, alias="bons_enfreints"
    )  # the good examples it broke (why advisory)
    bad_caught: int = Field(0, alias="mauvais_attrapes")


class CategoryTally(FrenchOnDisk):
    passed: int = Field(0, alias="reussis")
    valid: int = Field(0, alias="valides")
    errors: int = Field(0, alias="erreurs")


class Latency(FrenchOnDisk):
    p50_ms: float | None = None
    p95_ms: float | None = None
    turns: int = Field(0, alias="tours")


class RoleCost(FrenchOnDisk):
    """The cost of one role of the run: the agent, the judge, the embeddings."""

    model: str = Field(alias="modele")
    input_tokens: int = Field(0, alias="jetons_entree")
    output_tokens: int = Field(0, alias="jetons_sortie")
    total_usd: float | None = None
    note: str | None = None


class RunCost(FrenchOnDisk):
    input_tokens: int = Field(0, alias="jetons_entree")
    output_tokens: int = Field(0, alias="jetons_sortie")
    model: str = Field("", alias="modele")
    total_usd: float | None = None
    per_conversation_usd: float | None = Field(None, alias="par_conversation_usd")
    prices: dict[str, float] | None = Field(None, alias="prix")
    note: str | None = None
    per_role: dict[str, RoleCost] = Field(
        default_factory=dict, alias="par_role"
    )  # agent, juge, embeddings: apart


class ErrorTally(FrenchOnDisk):
    count: int = Field(0, alias="nombre")
    rate: float = Field(0.0, alias="taux")
    max_rate: float = Field(0.0, alias="taux_max")
    by_type: dict[str, int] = Field(default_factory=dict, alias="par_type")
    circuit_open: bool = Field(False, alias="circuit_ouvert")
    retries: int = Field(0, alias="reprises")


class ModelInfo(FrenchOnDisk):
    name: str = Field(alias="nom")
    backend: str
    versions: list[str] = Field(default_factory=list)
    stand_in: bool = Field(
        False, alias="substitut"
    )  # the scripted stand-in: the figures say nothing of a real model


class PromptRef(FrenchOnDisk):
    path: str = Field(alias="chemin")
    name: str = Field(alias="nom")
    sha256: str


class Execution(FrenchOnDisk):
    id: str
    started: str = Field(alias="debut")  # ISO 8601
    duration_s: float = Field(alias="duree_s")
    goldens: str
    repetitions: int


class Baseline(FrenchOnDisk):
    path: str = Field(alias="chemin")
    new_failures: list[str] = Field(default_factory=list, alias="nouveaux_echecs")
    new_passes: list[str] = Field(default_factory=list, alias="nouvelles_reussites")
    new_unstable: list[str] = Field(default_factory=list, alias="nouveaux_instables")
    new_cases: list[str] = Field(default_factory=list, alias="nouveaux_cas")
    removed_cases: list[str] = Field(default_factory=list, alias="cas_retires")


class CriterionReport(FrenchOnDisk):
    rubric: str = Field(alias="rubrique")  # the rubric's path
    sha256: str
    threshold: int = Field(alias="seuil")
    scale: int = Field(alias="echelle")
    decisive: bool = Field(alias="decisif")  # calibrated for the judge in use: its failures are gaps
    reason: str = Field(alias="raison")  # why it gates, or why it is advisory


class JudgeReport(FrenchOnDisk):
    model: str = Field(alias="modele")
    stand_in: bool = Field(
        False, alias="substitut"
    )  # the scripted stand-in: its scores say nothing of a real judge
    criteria: dict[str, CriterionReport] = Field(default_factory=dict, alias="criteres")
    calls: int = Field(0, alias="appels")
    skipped: int = Field(0, alias="sautes")  # calls not made: a deterministic check had failed first


class EmbeddingsReport(FrenchOnDisk):
    model: str = Field(alias="modele")
    stand_in: bool = Field(False, alias="substitut")
    texts: int = Field(0, alias="textes")  # texts embedded (each once per run)


class SimulatorReport(FrenchOnDisk):
    model: str = Field(alias="modele")
    stand_in: bool = Field(False, alias="substitut")
    conversations: int = 0
    goals_reached: int = Field(0, alias="objectifs_atteints")


class WorstAttempt(FrenchOnDisk):
    """One of the run's worst attempts (`goldens.verdict.worst`), with the command that opens it."""

    case: str = Field(alias="cas")
    attempt: int = Field(alias="tentative")
    status: str = Field(alias="statut")
    blocking: list[str] = Field(
        default_factory=list, alias="bloquant"
    )  # blocking rules broken, a blocking category failed
    gaps: list[str] = Field(default_factory=list, alias="ecarts")
    duration_ms: float = Field(0.0, alias="duree_ms")
    command: str = Field(alias="commande")


class CoveredGroup(FrenchOnDisk):
    """One failure group of the window: its signature, its size, the cases that cover it (none: uncovered)."""

    signature: str
    size: int = Field(alias="taille")
    cases: list[str] = Field(default_factory=list, alias="cas")
    example: str = Field("", alias="exemple")  # its most urgent conversation: what `filon draft` takes


class CoverageReport(FrenchOnDisk):
    """How much of the last week's production traffic the set covers (`goldens.set.coverage`)."""

    days: int = Field(alias="jours")
    conversations: int
    covered: int = Field(alias="couvertes")
    groups: list[CoveredGroup] = Field(
        default_factory=list, alias="groupes"
    )  # the largest groups, largest first

    @property
    def part(self) -> float:
        return self.covered / self.conversations if self.conversations else 0.0


class BudgetReport(FrenchOnDisk):
    limit: float = Field(alias="limite")  # in the price table's currency (USD)
    estimated: float = Field(alias="estime")  # before the run, from nominal figures
    spent: float = Field(alias="depense")  # from the tokens the finished attempts used
    not_started: int = Field(0, alias="non_lancees")  # attempts not started: they would have gone over


class EvalReport(FrenchOnDisk):
    version: Literal[2, 3, 4, 5, 6, 7] = VERSION
    target: str = Field("filon", alias="cible")  # the target replayed: filon, python:MODULE:ATTR, http://…
    score: float | None
    threshold: float = Field(alias="seuil")
    gate: GateResult = Field(alias="porte")
    categories: dict[str, CategoryTally]
    latency: Latency = Field(alias="latence")
    cost: RunCost = Field(alias="cout")
    errors: ErrorTally = Field(alias="erreurs")
    model: ModelInfo = Field(alias="modele")
    prompt: PromptRef
    execution: Execution
    cases: list[CaseReport] = Field(alias="cas")
    interrupted: bool = Field(False, alias="interrompu")
    blocking: list[str] = Field(default_factory=lambda: ["securite"], alias="bloquants")
    fingerprints: dict[str, str] = Field(
        default_factory=dict, alias="empreintes"
    )  # case id → what the run depended on
    baseline: Baseline | None = None
    judge: JudgeReport | None = Field(None, alias="juge")
    embeddings: EmbeddingsReport | None = None
    simulator: SimulatorReport | None = Field(None, alias="simulateur")
    budget: BudgetReport | None = None
    rules: dict[str, RuleReport] = Field(
        default_factory=dict, alias="regles"
    )  # the rulebook and its standing
    worst: list[WorstAttempt] = Field(
        default_factory=list, alias="pires"
    )  # the five worst attempts, worst first
    coverage: CoverageReport | None = Field(
        None, alias="couverture"
    )  # of the last week's traffic in the store, if it has any
    codes: dict[str, Said] = Field(
        default_factory=dict
    )  # each sentence's code by its French (gaps, notes, errors, the rule): said in English from these

    def say(self, text: str, lang: str) -> str:
        """A sentence of the report in `lang`: rendered from its code, or as written where the report
        has none (one written before version 7, or a line from elsewhere)."""
        return as_said(self.codes, text, lang)

    def dumps(self) -> str:
        return json.dumps(self.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2) + "\n"

    def by_id(self) -> dict[str, CaseReport]:
        return {c.id: c for c in self.cases}

    @property
    def inconclusive(self) -> bool:
        return self.interrupted or self.gate.decision in ("non concluant", "interrompu")

    @classmethod
    def parse(cls, data: Any, source: str = "report") -> EvalReport:
        """A report of any version; `ValueError` naming the source and the first bad field otherwise."""
        if not isinstance(data, dict) or "cas" not in data:
            raise Refusal(said("err.report.not_a_report", source=source))
        if data.get("version") is None:
            from filon.goldens.verdict.report_v1 import upgrade_v1

            data = upgrade_v1(data)
        elif data.get("version") in (
            2,
            3,
            4,
            5,
            6,
        ):  # later versions added what these could not say: nothing moves
            data = {**data, "version": VERSION}
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise Refusal(said("err.at", where=f"{source}: {where}", why=first["msg"])) from exc

    @classmethod
    def read(cls, path: Path) -> EvalReport:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise Refusal(said("err.report.missing", path=str(path))) from None
        except OSError as exc:
            raise Refusal(said("err.at", where=str(path), why=exc.strerror or str(exc))) from exc
        except ValueError as exc:
            raise Refusal(said("err.not_json", path=str(path), why=str(exc))) from exc
        return cls.parse(data, str(path))


# the gate's decisions as code and the store name them (English), in the report's words: one table for the
# report's writer, the reader of version 1 (which wrote the English ones) and the store (which keeps them)
DECISIONS: dict[str, Decision] = {
    "passed": "réussi",
    "failed": "échoué",
    "inconclusive": "non concluant",
    "interrupted": "interrompu",
}
