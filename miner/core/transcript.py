"""What the grader reads of one attempt (or of one reviewer's example): the conversation turn by turn.

Per turn: the customer's message, the answer, each tool call in order with its arguments, its result and
whether it failed, and whether the turn escalated. The runner builds it from the spans of a replay, lint
from an example; the eval report keeps it as it is (the same object in memory and on disk), with the
arguments and results redacted as the store redacts them.

It lives in the bottom room because the report, which the store reads, carries it. Field names are
English in code and French on disk (the report speaks the case format's language), through aliases.
"""

from __future__ import annotations

from typing import Annotated, Any, Required

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    TypeAdapter,
    ValidationError,
)
from typing_extensions import TypedDict

from filon.miner.core.messages import Refusal, said
from filon.miner.core.model import ToolCall, Turn


class _CallOnDisk(TypedDict, total=False):
    outil: Required[str]
    args: dict[str, Any] | None
    resultat: Any
    erreur: str | None


class _TurnOnDisk(TypedDict, total=False):
    client: str
    reponse: str
    appels: list[_CallOnDisk]
    escalade: bool


_ON_DISK = TypeAdapter(_TurnOnDisk)


def _read_turn(value: Any) -> Any:
    """A turn as the report writes it (`client`, `reponse`, `appels`, `escalade`: each field checked by
    its type, a bad one named in one line), or one already made."""
    if not isinstance(value, dict):
        return value
    try:
        turn = _ON_DISK.validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise Refusal(
            said("err.at", where=".".join(str(p) for p in first["loc"]), why=first["msg"])
        ) from None
    calls = [
        ToolCall.named(c["outil"], c.get("args"), c.get("resultat"), c.get("erreur"))
        for c in turn.get("appels", [])
    ]
    return Turn.exchange(turn.get("client", ""), turn.get("reponse", ""), calls, turn.get("escalade", False))


def _written_turn(turn: Turn) -> dict[str, Any]:
    calls = [{"outil": c.name, "args": c.args, "resultat": c.result, "erreur": c.error} for c in turn.tools]
    return {"client": turn.user, "reponse": turn.agent, "appels": calls, "escalade": turn.escalated}


# one customer turn as the grader reads it and the report keeps it: the `Turn` read from the spans (what was
# asked, each call in order, what was answered, the escalation), written with the case format's keys
ReportTurn = Annotated[Turn, BeforeValidator(_read_turn), PlainSerializer(_written_turn)]
TURN = TypeAdapter(ReportTurn)


class Transcript(BaseModel):
    """A whole conversation as the grader reads it.

    `from_spans`: read from a replay's spans, where a call without arguments means the stack records none
    (an argument check then cannot be decided: an infrastructure error). An example's transcript is
    written by a reviewer: a call given without `args` is checked by its name only, and an example that
    gives its tools flat (not per turn) has them all on its last turn (`per_turn` False: per-turn action
    checks cannot read it). `final_state` and `objective_reached`: what the checks of the shop afterwards
    and of a simulation read.
    """

    model_config = ConfigDict(populate_by_name=True)

    turns: list[ReportTurn] = Field(default_factory=list, alias="tours")
    from_spans: bool = Field(default=True, alias="depuis_spans")
    per_turn: bool = Field(default=True, alias="par_tour")
    final_state: dict[str, Any] | None = Field(default=None, alias="etat_final")
    objective_reached: bool | None = Field(default=None, alias="objectif_atteint")
    allowed: list[str] = Field(default_factory=list, alias="faits_admis")  # an example's admitted facts

    @property
    def calls(self) -> list[ToolCall]:
        return [c for t in self.turns for c in t.tools]

    @property
    def tool_names(self) -> list[str]:
        return [c.name for c in self.calls]

    @property
    def answers(self) -> list[str]:
        return [t.agent for t in self.turns]

    @property
    def customer(self) -> list[str]:
        return [t.user for t in self.turns]

    @property
    def escalated(self) -> bool:
        return any(t.escalated for t in self.turns)

    @classmethod
    def of_turns(cls, turns: list[Turn]) -> Transcript:
        """A stored conversation's turns as the grader reads them."""
        return cls(turns=list(turns))

    def dump(self) -> dict[str, Any]:
        """The report's form: French keys, runtime-only fields left out."""
        return self.model_dump(mode="json", by_alias=True, include={"turns"}, exclude_none=False)

    @classmethod
    def flat(
        cls, tools: list[str], answers: list[str], escalated: bool, customer: list[str] | None = None
    ) -> Transcript:
        """The seeds' flat summary (tools, answers, escalation) as a transcript: tools on the last turn."""
        said = answers or [""]
        asked = list(customer or [])
        turns = []
        for i, answer in enumerate(said):
            last = i == len(said) - 1
            calls = [ToolCall.named(t) for t in tools] if last else []
            turns.append(Turn.exchange(asked[i] if i < len(asked) else "", answer, calls, escalated and last))
        return cls(turns=turns, from_spans=False, per_turn=len(said) == 1)
