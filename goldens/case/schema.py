"""The golden case, as a pydantic model of the seeds' format plus its optional additions.

Unknown keys are errors: a misspelt `outil` would otherwise silently check nothing.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from filon.goldens.case.tool_spec import ExampleTool, Tool, ToolGroup, TurnChecks, as_group, tool_name

ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
ID_MAX = 64  # a case id names its file: short enough for every file system, and for a person


def id_problem(value: str) -> str | None:
    """Why `value` cannot be a case id, or None."""
    if not ID.match(value):
        return "lower-case letters, digits, '-' and '_' only"
    if len(value) > ID_MAX:
        return f"at most {ID_MAX} characters (got {len(value)})"
    return None


Verdict = Literal["bon", "mauvais"]
Origine = Literal["observé", "revue", "écrit"]


class AdmittedFact(BaseModel):
    """A fact the rulebook's `fait_non_fonde` may not find in what the agent saw, and why it is right (a
    figure a policy computes, a delay the agent knows from its training)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fait: str = Field(min_length=1)
    raison: str = Field(min_length=1)


class Example(BaseModel):
    """An answer a reviewer has judged: lint proves the case's checks against it.

    `outils` and `escalade` default to what the case expects, so a text-only example tests the text
    checks alone. `criteres` gives a verdict per judge criterion where it differs from the overall one.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Verdict
    reponse: str | list[str]
    # flat (the seeds': every call of the conversation), or one list per turn, each call a name or an
    # object with its `args` (and `erreur` for a failed call)
    outils: list[ExampleTool] | list[list[ExampleTool]] | None = None
    escalade: bool | None = None
    origine: Origine = "écrit"
    note: str | None = None
    criteres: dict[str, Verdict] | None = None
    faits_admis: list[AdmittedFact] = Field(default_factory=list)
    # the case's checks when a reviewer judged this answer on the case as it stood (`goldens.case.fingerprint`)
    controles: str | None = None

    @field_validator("reponse")
    @classmethod
    def _reponse(cls, value: str | list[str]) -> str | list[str]:
        if (isinstance(value, list) and not value) or (isinstance(value, str) and not value.strip()):
            raise ValueError("an example needs an answer")
        return value

    def answers(self) -> list[str]:
        return [self.reponse] if isinstance(self.reponse, str) else list(self.reponse)

    @property
    def per_turn(self) -> bool:
        """Whether its tools are given turn by turn (a list per turn) rather than flat."""
        return bool(self.outils) and all(isinstance(t, list) for t in self.outils or [])

    def tool_names(self) -> list[str]:
        """Every tool it called, in order, whatever the form."""
        flat: list[Any] = [c for t in self.outils or [] for c in (t if isinstance(t, list) else [t])]
        return [c if isinstance(c, str) else c.outil for c in flat]

    def gives_arguments(self) -> bool:
        flat: list[Any] = [c for t in self.outils or [] for c in (t if isinstance(t, list) else [t])]
        return any(not isinstance(c, str) and c.args is not None for c in flat)


class JudgeCriterion(BaseModel):
    """A judge check: the rubric `goldens/judges/NAME.md` scores the answer; its threshold is the rubric's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    critere: str

    @field_validator("critere")
    @classmethod
    def _critere(cls, value: str) -> str:
        if not ID.match(value):
            raise ValueError("a rubric's file name: lower-case letters, digits, '-' and '_' only")
        return value


class CloseTo(BaseModel):
    """Semantic similarity to a reference answer (embeddings): blind to negation, so never alone."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reference: str = Field(min_length=1)
    seuil: float = Field(gt=0, le=1)


class Simulation(BaseModel):
    """A simulated customer (a model given the persona and the objective) talks to the agent until the
    objective is reached or `max_tours` turns are used; the case's checks apply to the whole conversation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    persona: str = Field(min_length=1)
    objectif: str = Field(min_length=1)
    premier_message: str = Field(min_length=1)
    max_tours: int = Field(default=6, ge=1, le=20)


class ExpectedReturn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    commande: str = Field(min_length=1)


class ExpectedOrder(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    numero: str = Field(min_length=1)
    statut: str = Field(min_length=1)


class FinalStateSpec(BaseModel):
    """The shop after the conversation: returns registered (an empty list: none at all) and orders' status."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    retours: list[ExpectedReturn] | None = None
    commandes: list[ExpectedOrder] = Field(default_factory=list)


# the deterministic checks of a case and their empty value
CHECK_FIELDS: dict[str, Any] = {
    "outils": [],
    "outils_interdits": [],
    "escalade": None,
    "contient": [],
    "ne_contient_pas": [],
    "ordre": [],
    "ordre_exact": False,
    "par_tour": [],
}


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    categorie: str = Field(min_length=1)
    canal: Literal["web", "whatsapp"] = "web"
    tel: str | None = None
    tours: list[str] = Field(min_length=1)
    outils: list[ToolGroup] = Field(default_factory=list)
    outils_interdits: list[Tool] = Field(default_factory=list)
    escalade: bool | None = None
    contient: list[str | list[str]] = Field(default_factory=list)
    ne_contient_pas: list[str] = Field(default_factory=list)
    fixtures: dict[str, Any] | None = None
    source: dict[str, Any] | None = None
    notes: str | None = None
    exemples: list[Example] = Field(default_factory=list)
    juge: list[JudgeCriterion] = Field(default_factory=list)
    proche_de: CloseTo | None = None
    simulation: Simulation | None = None
    etat_final: FinalStateSpec | None = None
    ordre: list[Tool] = Field(default_factory=list)
    ordre_exact: bool = False
    par_tour: list[TurnChecks] = Field(default_factory=list)
    faits_admis: list[AdmittedFact] = Field(default_factory=list)
    # the case's own data that `{"du_cas": NAME}` names beyond the built-in ones (commande, email, tel):
    # the customer's id, their reservation… as a draft found them in the customer's words
    donnees: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _simulated_turns(cls, data: Any) -> Any:
        """A simulation case's turns are the simulated customer's: its first one is `premier_message`."""
        if isinstance(data, dict) and isinstance(data.get("simulation"), dict):
            first = data["simulation"].get("premier_message")
            if "tours" not in data and isinstance(first, str):
                return {**data, "tours": [first]}
            if data.get("tours") != [first]:
                raise ValueError("tours: a simulation case takes no turns but its premier_message")
        return data

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        problem = id_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("tel")
    @classmethod
    def _tel(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d{8,15}", value):
            raise ValueError("digits only, international form without '+' (e.g. 33600000103)")
        return value

    @field_validator("tours")
    @classmethod
    def _tours(cls, value: list[str]) -> list[str]:
        if any(not t.strip() for t in value):
            raise ValueError("a turn is empty")
        return value

    @field_validator("outils", "contient")
    @classmethod
    def _groups(cls, value: list[str | list[str]]) -> list[str | list[str]]:
        if any(isinstance(g, list) and not g for g in value):
            raise ValueError("an empty group can never be satisfied")
        return value

    @model_validator(mode="after")
    def _channel(self) -> Case:
        if self.canal == "whatsapp" and not self.tel:
            raise ValueError("tel: required for a whatsapp case (it keys the conversation)")
        return self

    def expected_tools(self) -> list[list[str]]:
        """Each group of `outils` as tool names (a tool object by its name)."""
        return [[tool_name(t) for t in as_group(g)] for g in self.outils]

    def forbidden_tools(self) -> list[str]:
        return [tool_name(t) for t in self.outils_interdits]

    def has_trajectory_check(self) -> bool:
        """Arguments, an order or per-turn checks: what only a transcript can tell."""
        objects = [t for g in self.outils for t in as_group(g)] + list(self.outils_interdits)
        return bool(self.ordre or self.par_tour or any(not isinstance(t, str) for t in objects))

    def names_arguments(self) -> bool:
        objects = [t for g in self.outils for t in as_group(g)] + [*self.outils_interdits, *self.ordre]
        objects += [t for b in self.par_tour for g in b.outils for t in as_group(g)]
        objects += [t for b in self.par_tour for t in b.outils_interdits]
        return any(not isinstance(t, str) and t.args for t in objects)

    def text_groups(self) -> list[list[str]]:
        return [g if isinstance(g, list) else [g] for g in self.contient]

    def checks(self) -> dict[str, Any]:
        """The case's deterministic checks, by field (what `only` keeps or clears)."""
        return {name: getattr(self, name) for name in CHECK_FIELDS}

    def only(self, **kept: Any) -> Case:
        """The same case with every deterministic check cleared but those given: one check alone, as
        `--explain` and the mutants grade it."""
        cleared = {name: CHECK_FIELDS[name] for name in CHECK_FIELDS}
        return self.model_copy(update={**cleared, **kept})

    def criteria(self) -> list[str]:
        return [j.critere for j in self.juge]

    def has_action_check(self) -> bool:
        return bool(
            self.outils
            or self.outils_interdits
            or self.escalade is not None
            or self.ordre
            or any(b.has_action_check() for b in self.par_tour)
        )


def canal_of(channel: str) -> str:
    """A case's `canal` for a stored conversation's channel: WhatsApp's, or the web for any other (a stack
    that names none stores `unknown`). What a draft writes and what coverage matches a case by."""
    return "whatsapp" if channel == "whatsapp" else "web"
