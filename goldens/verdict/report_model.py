"""The eval report (`var/eval-rapport.json`): one typed, versioned document, built once by the gate and read
by everything else (the failures screen, JUnit, the console, the baseline diff, `eval compare`, and the
store's rows through `goldens.verdict.record`). Each attempt in it is the runner's own object
(`goldens.run.attempt.Attempt`), sealed: one attempt in memory and on disk.

The report speaks the case format's language, French, keys included, as the seeds' reports do. Version 1
(filon's earlier reports) mixed English keys in; version 3 added the target (`cible`) and the attempts a
target could not run (`non_executable`); version 4 the checks that ask a model (`juge`, `embeddings`, `simulateur`,
each attempt's `juges`, `similarites` and `avis`) and the cost per role; version 5 each attempt's
trajectory (`tours`: per turn, the customer's message, the answer, each tool call with its arguments,
result and failure, redacted as the store redacts); version 6 the five worst attempts (`pires`).
`EvalReport.parse` reads them all, so a baseline or a run A written by an older filon still compares.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from filon.goldens.run.attempt import Attempt

VERSION: Literal[6] = 6
Stabilite = Literal["stable réussi", "stable échec", "instable", "erreur", "non exécutable"]
Decision = Literal["réussi", "échoué", "non concluant", "interrompu"]


class CasRapport(BaseModel):
    id: str
    categorie: str
    reussis: int
    valides: int
    total: int
    stabilite: Stabilite
    tentatives: list[Attempt]  # each the runner's own, in the report's words


class Chiffres(BaseModel):
    reussis: int
    valides: int
    erreurs: int
    total: int
    score: float | None
    seuil: float
    taux_erreurs: float
    taux_erreurs_max: float
    non_executables: int = 0  # attempts the target could not run: neither failures nor errors


class Porte(BaseModel):
    decision: Decision
    regle: str
    code_sortie: int
    chiffres: Chiffres
    echecs_bloquants: dict[str, list[str]] = Field(default_factory=dict)
    regles_bloquantes: dict[str, list[str]] = Field(default_factory=dict)  # rule → cases that broke it


class RegleRapport(BaseModel):
    """One rule of the rulebook in a run: what it is, whether it gated (proven on the set's examples)."""

    description: str
    severite: str
    bloquante: bool
    decisive: bool  # it broke no good example of the set: its breaches are gaps
    essayee: int = 0  # examples of the set it was tried on
    bons_enfreints: list[str] = Field(default_factory=list)  # the good examples it broke (why advisory)
    mauvais_attrapes: int = 0


class Categorie(BaseModel):
    reussis: int = 0
    valides: int = 0
    erreurs: int = 0


class Latence(BaseModel):
    p50_ms: float | None = None
    p95_ms: float | None = None
    tours: int = 0


class CoutRole(BaseModel):
    """The cost of one role of the run: the agent, the judge, the embeddings."""

    modele: str
    jetons_entree: int = 0
    jetons_sortie: int = 0
    total_usd: float | None = None
    note: str | None = None


class Cout(BaseModel):
    jetons_entree: int = 0
    jetons_sortie: int = 0
    modele: str = ""
    total_usd: float | None = None
    par_conversation_usd: float | None = None
    prix: dict[str, float] | None = None
    note: str | None = None
    par_role: dict[str, CoutRole] = Field(default_factory=dict)  # agent, juge, embeddings: apart


class Erreurs(BaseModel):
    nombre: int = 0
    taux: float = 0.0
    taux_max: float = 0.0
    par_type: dict[str, int] = Field(default_factory=dict)
    circuit_ouvert: bool = False
    reprises: int = 0


class Modele(BaseModel):
    nom: str
    backend: str
    versions: list[str] = Field(default_factory=list)
    substitut: bool = False  # the scripted stand-in: the figures say nothing of a real model


class PromptRef(BaseModel):
    chemin: str
    nom: str
    sha256: str


class Execution(BaseModel):
    id: str
    debut: str  # ISO 8601
    duree_s: float
    goldens: str
    repetitions: int


class Baseline(BaseModel):
    chemin: str
    nouveaux_echecs: list[str] = Field(default_factory=list)
    nouvelles_reussites: list[str] = Field(default_factory=list)
    nouveaux_instables: list[str] = Field(default_factory=list)
    nouveaux_cas: list[str] = Field(default_factory=list)
    cas_retires: list[str] = Field(default_factory=list)


class CritereRapport(BaseModel):
    rubrique: str  # the rubric's path
    sha256: str
    seuil: int
    echelle: int
    decisif: bool  # calibrated for the judge in use: its failures are gaps
    raison: str  # why it gates, or why it is advisory


class JugeRapport(BaseModel):
    modele: str
    substitut: bool = False  # the scripted stand-in: its scores say nothing of a real judge
    criteres: dict[str, CritereRapport] = Field(default_factory=dict)
    appels: int = 0
    sautes: int = 0  # calls not made: a deterministic check had failed first


class EmbeddingsRapport(BaseModel):
    modele: str
    substitut: bool = False
    textes: int = 0  # texts embedded (each once per run)


class SimulateurRapport(BaseModel):
    modele: str
    substitut: bool = False
    conversations: int = 0
    objectifs_atteints: int = 0


class PireTentative(BaseModel):
    """One of the run's worst attempts (`goldens.verdict.worst`), with the command that opens it."""

    cas: str
    tentative: int
    statut: str
    bloquant: list[str] = Field(default_factory=list)  # blocking rules broken, a blocking category failed
    ecarts: list[str] = Field(default_factory=list)
    duree_ms: float = 0.0
    commande: str


class GroupeCouvert(BaseModel):
    """One failure group of the window: its signature, its size, the cases that cover it (none: uncovered)."""

    signature: str
    taille: int
    cas: list[str] = Field(default_factory=list)
    exemple: str = ""  # its most urgent conversation: what `filon draft` takes


class CouvertureRapport(BaseModel):
    """How much of the last week's production traffic the set covers (`goldens.set.coverage`)."""

    jours: int
    conversations: int
    couvertes: int
    groupes: list[GroupeCouvert] = Field(default_factory=list)  # the largest groups, largest first

    @property
    def part(self) -> float:
        return self.couvertes / self.conversations if self.conversations else 0.0


class BudgetRapport(BaseModel):
    limite: float  # in the price table's currency (USD)
    estime: float  # before the run, from nominal figures
    depense: float  # from the tokens the finished attempts used
    non_lancees: int = 0  # attempts not started: they would have gone over


class EvalReport(BaseModel):
    version: Literal[2, 3, 4, 5, 6] = VERSION
    cible: str = "filon"  # the target replayed: filon, python:MODULE:ATTR, http://…
    score: float | None
    seuil: float
    porte: Porte
    categories: dict[str, Categorie]
    latence: Latence
    cout: Cout
    erreurs: Erreurs
    modele: Modele
    prompt: PromptRef
    execution: Execution
    cas: list[CasRapport]
    interrompu: bool = False
    bloquants: list[str] = Field(default_factory=lambda: ["securite"])
    empreintes: dict[str, str] = Field(default_factory=dict)  # case id → what the run depended on
    baseline: Baseline | None = None
    juge: JugeRapport | None = None
    embeddings: EmbeddingsRapport | None = None
    simulateur: SimulateurRapport | None = None
    budget: BudgetRapport | None = None
    regles: dict[str, RegleRapport] = Field(default_factory=dict)  # the rulebook and its standing
    pires: list[PireTentative] = Field(default_factory=list)  # the five worst attempts, worst first
    couverture: CouvertureRapport | None = None  # of the last week's traffic in the store, if it has any

    def dumps(self) -> str:
        return json.dumps(self.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2) + "\n"

    def by_id(self) -> dict[str, CasRapport]:
        return {c.id: c for c in self.cas}

    @property
    def inconclusive(self) -> bool:
        return self.interrompu or self.porte.decision in ("non concluant", "interrompu")

    @classmethod
    def parse(cls, data: Any, source: str = "report") -> EvalReport:
        """A report of any version; `ValueError` naming the source and the first bad field otherwise."""
        if not isinstance(data, dict) or "cas" not in data:
            raise ValueError(f"{source}: not a filon eval report (no 'cas')")
        if data.get("version") is None:
            from filon.goldens.verdict.report_v1 import upgrade_v1

            data = upgrade_v1(data)
        elif data.get("version") in (
            2,
            3,
            4,
            5,
        ):  # later versions added what these could not say: nothing moves
            data = {**data, "version": VERSION}
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ValueError(f"{source}: {where}: {first['msg']}") from exc

    @classmethod
    def read(cls, path: Path) -> EvalReport:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"{path}: no such report (filon eval --report writes one)") from None
        except OSError as exc:
            raise ValueError(f"{path}: {exc.strerror or exc}") from exc
        except ValueError as exc:
            raise ValueError(f"{path}: not JSON ({exc})") from exc
        return cls.parse(data, str(path))


# the gate's decisions as code and the store name them (English), in the report's words: one table for the
# report's writer, the reader of version 1 (which wrote the English ones) and the store (which keeps them)
DECISIONS: dict[str, Decision] = {
    "passed": "réussi",
    "failed": "échoué",
    "inconclusive": "non concluant",
    "interrupted": "interrompu",
}
