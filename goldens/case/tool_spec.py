"""The trajectory checks of the case format: a tool with its arguments, an order, checks per turn.

- An element of `outils` / `outils_interdits` (and of `ordre`) may be an object: `{"outil": NAME, "args":
  {...}, "mode": "exact" | "sous_ensemble", "max": N, "si_reussi": true}` (`si_reussi`: only a call that
  succeeded counts: a forbidden write the tool refused changed nothing). An argument's value is a JSON value (strings
  compared folded, numbers as numbers), a pattern `{"motif": REGEX}`, or the case's own data
  `{"du_cas": "commande" | "email" | "tel"}`, so a drafted case stays right when its fixtures move, or
  anything but a value, `{"sauf": VALUE}` (forbid `{"numero": {"sauf": {"du_cas": "commande"}}}`: the
  lookup of any order but the customer's own).
- `ordre`: tools (names or objects) in their relative order, other calls allowed in between;
  `ordre_exact`: the whole sequence of calls, nothing else.
- `par_tour`: one block per customer turn, with that turn's own `outils`, `outils_interdits`, `escalade`,
  `contient` and `ne_contient_pas`.
- An example's `outils` may be per turn: a list per turn of calls, each a name or
  `{"outil", "args", "erreur", "resultat"}`.
A plain string keeps the seeds' meaning everywhere.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from filon.miner.core.messages import Refusal, Said, render, said

Mode = Literal["exact", "sous_ensemble"]
CaseData = Literal["commande", "email", "tel"]  # built in; a case's `donnees` name more
DATA_NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


class ToolSpec(BaseModel):
    """A tool a case expects (or forbids), optionally with the arguments it must be called with."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    outil: str = Field(min_length=1)
    args: dict[str, Any] | None = None
    mode: Mode = "sous_ensemble"
    max: int | None = Field(default=None, ge=1)
    # only a call that succeeded counts (its span did not fail, its result is no error message): a
    # forbidden write the tool refused changed nothing; a required one that failed was not made
    si_reussi: bool = Field(default=False, strict=True)

    @field_validator("args")
    @classmethod
    def _args(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        for key, expected in (value or {}).items():
            _check_value(key, expected)
        return value

    def said(self) -> str | Said:
        """How the report names it: the tool, and its arguments where it has some (« <commande du cas> »
        for the case's own data, said in the console's language); « (si_reussi) », the case's own word,
        when only a call that succeeded counts."""
        done = " (si_reussi)" if self.si_reussi else ""
        if not self.args:
            return self.outil + done
        shown = [said("tool.arg", key=k, value=_show(v)) for k, v in self.args.items()]
        return said("tool.call", tool=self.outil, args=shown, done=done)

    def label(self, lang: str = "fr") -> str:
        return render(self.said(), lang)


def _check_value(key: str, value: Any) -> None:
    if isinstance(value, dict) and set(value) == {"sauf"}:
        _check_value(f"{key}.sauf", value["sauf"])
        return
    if isinstance(value, dict) and ("motif" in value or "du_cas" in value or "sauf" in value):
        if set(value) == {"motif"}:
            try:
                re.compile(str(value["motif"]))
            except re.error as exc:
                raise Refusal(said("err.case.not_regex", where=f"args.{key}.motif", why=str(exc))) from exc
            return
        if set(value) == {"du_cas"}:
            if not isinstance(value["du_cas"], str) or not DATA_NAME.match(value["du_cas"]):
                raise Refusal(
                    said("err.case.du_cas", where=f"args.{key}.du_cas", value=repr(value["du_cas"]))
                )
            return
        raise Refusal(said("err.case.pattern", where=f"args.{key}"))


def _show(value: Any) -> str | Said:
    if isinstance(value, dict) and set(value) == {"sauf"}:
        return said("tool.other_than", value=_show(value["sauf"]))
    if isinstance(value, dict) and set(value) == {"motif"}:
        return f"/{value['motif']}/"
    if isinstance(value, dict) and set(value) == {"du_cas"}:
        return said("tool.case_value", name=value["du_cas"])
    return repr(value) if not isinstance(value, str) else value


Tool = str | ToolSpec
ToolGroup = str | ToolSpec | list[str | ToolSpec]


def as_group(value: ToolGroup) -> list[Tool]:
    return list(value) if isinstance(value, list) else [value]


def tool_name(tool: Tool) -> str:
    return tool if isinstance(tool, str) else tool.outil


def tool_label(tool: Tool) -> str:
    return tool if isinstance(tool, str) else tool.label()


def tool_said(tool: Tool) -> str | Said:
    """The tool as a gap names it, in whatever language the gap is said."""
    return tool if isinstance(tool, str) else tool.said()


class TurnChecks(BaseModel):
    """The checks of one customer turn (`par_tour`): the same meaning as at the case's level, on that
    turn alone. An empty block checks nothing on its turn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    outils: list[ToolGroup] = Field(default_factory=list)
    outils_interdits: list[Tool] = Field(default_factory=list)
    escalade: bool | None = None
    contient: list[str | list[str]] = Field(default_factory=list)
    ne_contient_pas: list[str] = Field(default_factory=list)

    @field_validator("outils", "contient")
    @classmethod
    def _groups(cls, value: list[Any]) -> list[Any]:
        if any(isinstance(g, list) and not g for g in value):
            raise ValueError("an empty group can never be satisfied")
        return value

    def has_action_check(self) -> bool:
        return bool(self.outils or self.outils_interdits or self.escalade is not None)

    def has_text_check(self) -> bool:
        return bool(self.contient or self.ne_contient_pas)


class ExampleCall(BaseModel):
    """A tool call of a reviewer's example: its arguments where the reviewer gives them, a failure."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    outil: str = Field(min_length=1)
    args: dict[str, Any] | None = None
    erreur: str | None = None
    resultat: Any = None


ExampleTool = str | ExampleCall
