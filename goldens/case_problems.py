"""Problems of a case file that read like the case format, not like the validator: a field path as the
file writes it (`exemples[1].verdict`), an unknown key with the key it was likely meant to be, and a
category spelt like another (« security » beside « securite »), whose cases would be scored apart and,
for a blocking category, would not block.
"""

from __future__ import annotations

from collections import Counter
from difflib import get_close_matches

from pydantic import BaseModel, ValidationError

from goldens import schema
from goldens.problems import Problem
from goldens.schema import Case
from miner.text import fold

_MODELS: tuple[type[BaseModel], ...] = tuple(
    m
    for m in vars(schema).values()
    if isinstance(m, type) and issubclass(m, BaseModel) and m is not BaseModel
)
FIELDS = sorted({name for model in _MODELS for name in model.model_fields})
CLOSE = 0.75  # difflib's ratio from which two names read as one misspelt


def path(loc: tuple[int | str, ...]) -> str:
    """("exemples", 1, "verdict") → "exemples[1].verdict"."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(case)"


def schema_problems(name: str, exc: ValidationError) -> list[Problem]:
    out = []
    for err in exc.errors():
        why = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            key = str(err["loc"][-1])
            meant = get_close_matches(key, FIELDS, n=1, cutoff=CLOSE)
            why = "unknown field" + (f" (did you mean {meant[0]!r}?)" if meant else "")
        out.append(Problem(name, path(err["loc"]), why, "error"))
    return out


def category_problems(cases: list[Case], files: dict[str, str], blocking: tuple[str, ...]) -> list[Problem]:
    """A case whose category is spelt like a blocking one, or like one more cases of the set use."""
    counts = Counter(c.categorie for c in cases)
    known = set(counts) | set(blocking)
    out = []
    for case in cases:
        mine = fold(case.categorie)
        for other in sorted(known - {case.categorie}):
            if other not in blocking and counts[other] <= counts[case.categorie]:
                continue
            if get_close_matches(mine, [fold(other)], n=1, cutoff=CLOSE):
                stake = (
                    "a blocking category: this case would not block" if other in blocking else "scored apart"
                )
                why = f"categorie {case.categorie!r} is spelt like {other!r} ({stake})"
                out.append(Problem(files[case.id], "categorie", why, "warning"))
    return out
