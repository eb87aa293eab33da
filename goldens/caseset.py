"""Loading and linting the golden set: one JSON file per case in a folder.

Errors make the set invalid (the gate exits 4, `filon goldens lint` exits 1); warnings point at checks
the seeds teach to distrust (no action check, a decimal without its other separator, a decision read
from a single word, a security case that forbids nothing).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent.shop.fixtures import FixtureError, load_fixtures
from agent.tools import TOOL_NAMES
from goldens.grading import norm
from goldens.schema import Case

DEFAULT_DIR = Path("goldens/cases")
ABSOLUTE_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")
DECIMAL = re.compile(r"\d+([.,])\d+")
DECISION_WORDS = frozenset(
    norm(w)
    for w in (
        "conseiller",
        "transfert",
        "transfère",
        "transferer",
        "escalade",
        "remboursé",
        "remboursement",
        "retour",
        "accepté",
        "refusé",
        "annulé",
        "annulation",
        "possible",
        "impossible",
        "oui",
        "non",
    )
)
BLOCKING_DEFAULT = ("securite",)


def goldens_dir(explicit: str | Path | None = None) -> Path:
    return Path(explicit or os.environ.get("FILON_GOLDENS") or DEFAULT_DIR)


@dataclass(frozen=True)
class Problem:
    file: str
    field: str
    message: str
    level: str  # "error" or "warning"

    def line(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        return f"{self.level}: {where}: {self.message}"


@dataclass
class CaseSet:
    folder: Path
    cases: list[Case] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.level == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.level == "warning"]

    def by_id(self) -> dict[str, Case]:
        return {c.id: c for c in self.cases}


def _schema_problems(name: str, exc: ValidationError) -> list[Problem]:
    out = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "(case)"
        out.append(Problem(name, loc, err["msg"].removeprefix("Value error, "), "error"))
    return out


def parse_case(name: str, text: str) -> tuple[Case | None, list[Problem]]:
    """One case from JSON text; problems name the file, line or field."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [
            Problem(name, f"line {exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}", "error")
        ]
    if not isinstance(data, dict):
        return None, [Problem(name, "", "a case is a JSON object", "error")]
    try:
        case = Case.model_validate(data)
    except ValidationError as exc:
        return None, _schema_problems(name, exc)
    return case, lint_case(name, case)


def lint_case(name: str, case: Case) -> list[Problem]:
    out: list[Problem] = []
    for i, group in enumerate(case.expected_tools()):
        for tool in group:
            if tool not in TOOL_NAMES:
                out.append(
                    Problem(
                        name,
                        f"outils[{i}]",
                        f"unknown tool {tool!r} (known: {', '.join(TOOL_NAMES)})",
                        "error",
                    )
                )
    for i, tool in enumerate(case.outils_interdits):
        if tool not in TOOL_NAMES:
            out.append(Problem(name, f"outils_interdits[{i}]", f"unknown tool {tool!r}", "error"))
    if case.fixtures is not None:
        found = ABSOLUTE_DATE.search(json.dumps(case.fixtures, ensure_ascii=False))
        if found:
            out.append(
                Problem(
                    name,
                    "fixtures",
                    f"absolute date {found.group(0)!r}: use J-N (days before today)",
                    "error",
                )
            )
        else:
            try:
                load_fixtures(case.fixtures, date.today())
            except (FixtureError, KeyError, TypeError, ValueError) as exc:
                out.append(Problem(name, "fixtures", str(exc), "error"))
    if not case.has_action_check():
        out.append(
            Problem(
                name,
                "outils",
                "no action check (outils, outils_interdits or escalade): words alone decide",
                "warning",
            )
        )
    for i, group in enumerate(case.text_groups()):
        folded = [norm(v) for v in group]
        for variant in group:
            for match in DECIMAL.finditer(variant):
                other = match.group(0).replace(match.group(1), "." if match.group(1) == "," else ",")
                if not any(other in f for f in folded):
                    out.append(
                        Problem(
                            name, f"contient[{i}]", f"{match.group(0)!r} has no {other!r} variant", "warning"
                        )
                    )
        if len(group) == 1 and " " not in folded[0].strip() and folded[0] in DECISION_WORDS:
            out.append(
                Problem(
                    name,
                    f"contient[{i}]",
                    f"decision read from the word {group[0]!r}: check the action instead",
                    "warning",
                )
            )
    if case.categorie in BLOCKING_DEFAULT and not (case.outils_interdits or case.ne_contient_pas):
        out.append(
            Problem(
                name, "outils_interdits", "a securite case that forbids neither a tool nor a text", "warning"
            )
        )
    if Path(name).stem != case.id:
        out.append(Problem(name, "id", f"file name does not match id {case.id!r}", "warning"))
    return out


def load_set(folder: str | Path | None = None) -> CaseSet:
    """Every `*.json` of the folder, validated and linted, with duplicates across files reported."""
    path = goldens_dir(folder)
    result = CaseSet(path)
    if not path.is_dir():
        result.problems.append(Problem(str(path), "", "no such folder of golden cases", "error"))
        return result
    ids: dict[str, str] = {}
    tels: dict[str, str] = {}
    for file in sorted(path.glob("*.json")):
        name = str(file)
        case, problems = parse_case(name, file.read_text(encoding="utf-8"))
        result.problems.extend(problems)
        if case is None:
            continue
        if case.id in ids:
            result.problems.append(
                Problem(name, "id", f"duplicate id {case.id!r} (also in {ids[case.id]})", "error")
            )
            continue
        if case.tel and case.tel in tels:
            result.problems.append(
                Problem(
                    name,
                    "tel",
                    f"duplicate tel {case.tel} (also in {tels[case.tel]}): the cases would share a conversation",
                    "error",
                )
            )
        ids[case.id] = name
        if case.tel:
            tels[case.tel] = name
        result.cases.append(case)
    if not result.cases and not result.errors:
        result.problems.append(Problem(str(path), "", "the folder holds no case", "error"))
    return result


def write_case(folder: Path, data: dict[str, Any], overwrite: bool = False) -> Path:
    """Write one case atomically (temp file + rename); never over an existing id unless asked."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{data['id']}.json"
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target}: a case with id {data['id']!r} already exists")
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    return target
