"""Problems of a case file that read like the case format, not like the validator: a field path as the
file writes it (`exemples[1].verdict`), an unknown key with the key it was likely meant to be, and a
category spelt like another (« security » beside « securite »), whose cases would be scored apart and,
for a blocking category, would not block.
"""

from __future__ import annotations

from collections import Counter
from difflib import get_close_matches
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from filon.goldens.case.problems import Problem
from filon.goldens.case.schema import Case
from filon.miner.core.messages import Said, chained, said, sentence
from filon.miner.reading.text import fold

CLOSE = 0.75  # difflib's ratio from which two names read as one misspelt


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds, alone, in a list or optional (`list[Example]` → `Example`)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        if (found := _model_in(arg)) is not None:
            return found
    return None


def _walk(loc: tuple[int | str, ...]) -> tuple[str, type[BaseModel] | None]:
    """The path of `loc` as the file writes it (`exemples[1].verdict`: list indexes in brackets, the
    validator's union tags such as `str` or `list[str]` left out), and the model `loc` leads into."""
    out = ""
    model: type[BaseModel] | None = Case
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        if model is None or part not in model.model_fields:
            continue  # a union member's tag, not a key of the file
        out += f".{part}" if out else part
        model = _model_in(model.model_fields[part].annotation)
    return out or "(case)", model


def schema_problems(name: str, exc: ValidationError) -> list[Problem]:
    """One problem per field at fault; the members of a union refused together said in one line."""
    found: dict[str, list[str | Said]] = {}
    for err in exc.errors():
        why: str | Said = err["msg"].removeprefix("Value error, ")  # pydantic's own English
        where, _ = _walk(err["loc"])
        if err["type"] == "extra_forbidden":  # a key no model has: where it sits, and its likely spelling
            key = str(err["loc"][-1])
            parent, holder = _walk(err["loc"][:-1])
            fields = [f for f in (holder.model_fields if holder else {}) if f != key]
            meant = get_close_matches(key, fields, n=1, cutoff=CLOSE)
            where = f"{parent}.{key}" if err["loc"][:-1] else key
            why = said(
                "lint.unknown_field", hint=said("lint.did_you_mean", name=repr(meant[0])) if meant else ""
            )
        found.setdefault(where, []).append(why)
    return [Problem.of(name, where, _either(whys), "error") for where, whys in found.items()]


def _either(whys: list[str | Said]) -> Said:
    """« Input should be a valid string » and « … a valid list » → « … a valid string or a valid list »
    (pydantic's sentences, in its English; filon's own are codes)."""
    first, *rest = whys
    prefix = "Input should be "
    if rest and all(isinstance(w, str) and w.startswith(prefix) for w in whys):
        return said(
            "text.line", line=str(first) + "".join(f" or {str(w).removeprefix(prefix)}" for w in rest)
        )
    return sentence(chained([sentence(w) for w in whys], "text.semicolons"))


def category_problems(cases: list[Case], files: dict[str, str], blocking: tuple[str, ...]) -> list[Problem]:
    """A case whose category is spelt like a blocking one, or like one more cases of the set use."""
    counts = Counter(c.categorie for c in cases)
    known = set(counts) | set(blocking)
    out = []
    for case in cases:
        if case.categorie in blocking:  # spelt right: another spelling is the one to warn of
            continue
        mine = fold(case.categorie)
        for other in sorted(known - {case.categorie}):
            if other not in blocking and counts[other] <= counts[case.categorie]:
                continue
            if get_close_matches(mine, [fold(other)], n=1, cutoff=CLOSE):
                stake = said("lint.stake_blocking" if other in blocking else "lint.stake_apart")
                why = said(
                    "lint.category_spelt", category=repr(case.categorie), other=repr(other), stake=stake
                )
                out.append(Problem.of(files[case.id], "categorie", why, "warning"))
    return out
