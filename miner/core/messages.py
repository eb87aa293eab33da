"""What filon says to people, as codes with parameters, rendered in French or English from one catalogue.

A gap of a check, the rule that decided the gate and the console's lines are each a `Said`: a code of
`messages.toml` and the values it names (a case id, a tool, a figure, the text a check quotes). The
catalogue holds each code's French and English template, so a sentence is written once and said in
either language; nothing is translated by reading French back. The French rendering is what the report
file keeps (the seeds' words); each sentence's code goes beside it (the report's `codes`, by its French),
so a report read back is said in English as the run said it. An error whose message is a sentence is a
`SaidError` (a target's, a model's): its `said` is kept the same way.

A parameter is a value (formatted by the template: `{score:.1%}`), or a `Said` (or its JSON form, a
mapping with a `code`) rendered in the same language. Values from traces are carried as they are: escaping
them is the job of whoever shows the line (console, JUnit, HTML), as for any other text.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Lang = Literal["fr", "en"]
LANGS: tuple[Lang, ...] = ("fr", "en")
CATALOGUE_FILE = Path(__file__).with_name("messages.toml")


class UnknownCode(KeyError):
    """A code the catalogue does not hold: a programming error, raised where the sentence is made."""


@cache
def catalogue() -> dict[str, dict[str, str]]:
    """Every code with its template in each language (`messages.toml`, read once)."""
    with CATALOGUE_FILE.open("rb") as f:
        data = tomllib.load(f)
    return {code: {lang: entry[lang] for lang in LANGS} for code, entry in _flat(data).items()}


def _flat(table: dict[str, Any], prefix: str = "") -> dict[str, dict[str, str]]:
    """`[gap] missing_tool = {fr=…, en=…}` as `gap.missing_tool`: a table with `fr` is an entry."""
    out: dict[str, dict[str, str]] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            if "fr" in value:
                out[prefix + key] = value
            else:
                out.update(_flat(value, f"{prefix}{key}."))
    return out


class Said(BaseModel):
    """One sentence as a code and its values; `str()` is its French, as the report keeps it."""

    model_config = ConfigDict(frozen=True)

    code: str
    params: dict[str, Any] = Field(default_factory=dict)

    def render(self, lang: str = "fr", inner: str | None = None) -> str:
        """The sentence in `lang`; with `inner`, the sentences of another family it names (another prefix
        of code: lint's `lint.*` quoting the gate's `gap.*`) are said in `inner`, as the gate says them."""
        template = catalogue()[self.code]["en" if lang == "en" else "fr"]
        family = self.code.split(".", 1)[0] if inner else None
        return template.format_map({k: _value(v, lang, inner, family) for k, v in self.params.items()})

    def __str__(self) -> str:
        return self.render("fr")

    def codes(self) -> set[str]:
        """Its code and those of the sentences it names: what a caller may test, never its words."""
        found = {self.code}
        for value in self.params.values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, Said):
                    found |= item.codes()
        return found


class SaidError(Exception):
    """An error whose message is a sentence of the catalogue (or a plain line, as written): `str()` is its
    French (`spoken_in`), `said` the sentence to keep or render in either language."""

    spoken_in: Lang = "fr"

    def __init__(self, message: str | Said) -> None:
        super().__init__(render(message, self.spoken_in))
        self.said = message


class Refusal(SaidError, ValueError):
    """What filon refuses from a user (a file, an option, a setting, a payload): one sentence of the
    catalogue (`err.*`), whose `str()` is English (the CLI's and the logs' language) and whose `said` a
    command renders (`filon.commands.common.fail`). A `ValueError`, as the refusals it replaced were."""

    spoken_in: Lang = "en"


def why(exc: BaseException) -> str | Said:
    """An error as a value another sentence can quote: its sentence when it has one, else its text."""
    return exc.said if isinstance(exc, SaidError) else str(exc)


def sentence(value: str | Said) -> Said:
    """A value as a sentence: itself when it is one, else a line as written (`text.line`)."""
    return value if isinstance(value, Said) else said("text.line", line=value)


def said(code: str, /, **params: Any) -> Said:
    """A sentence of the catalogue; an unknown code raises at once, where it was made."""
    if code not in catalogue():
        raise UnknownCode(code)
    return Said(code=code, params=params)


def one_of(items: Sequence[str | Said]) -> str | Said:
    """Values any one of which would do: « a ou b ou c », « a or b or c »."""
    return chained(items, "text.or")


def chained(items: Sequence[str | Said], code: str) -> str | Said:
    """Items joined two by two by a sentence of the catalogue (`text.or`, `text.semicolons`)."""
    out: str | Said = items[0] if items else ""
    for item in items[1:]:
        out = said(code, first=out, second=item)
    return out


def render(value: str | Said | None, lang: str = "fr") -> str:
    """A sentence in `lang`; a plain string (an older report's, a value from elsewhere) as it is."""
    if value is None:
        return ""
    return value.render(lang) if isinstance(value, Said) else value


def as_said(codes: Mapping[str, Said], text: str, lang: str) -> str:
    """A sentence kept as French text, in `lang`, through the code kept beside it (`codes`, by French);
    as written when it has none (an older report's, a line from elsewhere)."""
    found = codes.get(text)
    return found.render(lang) if found is not None else text


def _value(value: Any, lang: str, inner: str | None = None, family: str | None = None) -> Any:
    if isinstance(value, dict) and "code" in value:  # a sentence read back from a report
        value = Said.model_validate(value)
    if isinstance(value, Said):
        if inner is None:
            return value.render(lang)
        same = value.code.split(".", 1)[0] == family
        return value.render(lang, inner) if same else value.render(inner)
    if isinstance(value, list):  # the items of an enumeration, each in the same language
        return ", ".join(str(_value(v, lang, inner, family)) for v in value)
    return value
