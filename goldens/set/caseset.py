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

from filon.agent.shop.fixtures import FixtureError, default_fixtures, load_fixtures, merge_fixtures
from filon.agent.tools import ESCALATION_TOOL, TOOL_NAMES
from filon.goldens.case import trajectory
from filon.goldens.case.case_problems import category_problems, schema_problems
from filon.goldens.case.problems import Level
from filon.goldens.case.problems import Problem as Problem
from filon.goldens.case.schema import Case
from filon.goldens.case.tool_spec import tool_name
from filon.goldens.checks.grader import kinds
from filon.goldens.checks.grading import norm
from filon.goldens.checks.rubrics import judges_dir
from filon.goldens.set import calibration, model_lint
from filon.goldens.set.case_files import case_text
from filon.goldens.set.personal import identity_problems
from filon.miner.core.messages import Refusal, Said, chained, said, sentence, why
from filon.miner.places import default_goldens
from filon.miner.rules.config import FlagConfig
from filon.miner.settings import settings

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
MIN_BONS, MIN_BONS_BLOCKING, MIN_MAUVAIS_BLOCKING = 1, 2, 1


def goldens_dir(explicit: str | Path | None = None) -> Path:
    """`explicit`, else FILON_GOLDENS, else the project's `goldens/cases` (found as filon.toml is)."""
    return Path(explicit or settings().goldens or default_goldens())


def missing_set(explicit: str | Path | None = None, option: str | None = "--goldens") -> Said | None:
    """Why the set's folder cannot be read (a usage error: nothing to lint or replay), or None; a folder
    given and absent is said after the `option` that gave it (none: an argument)."""
    folder = goldens_dir(explicit)
    if folder.is_dir():
        return None
    if explicit is not None:
        absent = said("err.set.no_folder", folder=str(folder.absolute()))
        return said("err.at", where=option, why=absent) if option else absent
    given = "FILON_GOLDENS" if settings().goldens else said("err.set.the_default")
    return said("err.set.no_set", folder=str(folder.absolute()), given=given)


@dataclass
class CaseSet:
    folder: Path
    cases: list[Case] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # case id → the file it was read from

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.level == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.level == "warning"]

    def by_id(self) -> dict[str, Case]:
        return {c.id: c for c in self.cases}


def parse_case(name: str, text: str, strict: bool = False) -> tuple[Case | None, list[Problem]]:
    """One case from JSON text; problems name the file, line or field."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [
            Problem.of(
                name, f"line {exc.lineno} column {exc.colno}", said("lint.invalid_json", why=exc.msg), "error"
            )
        ]
    except RecursionError:  # arrays or objects nested thousands deep: no case is written like that
        return None, [Problem.of(name, "", said("lint.json_too_deep"), "error")]
    if not isinstance(data, dict):
        return None, [Problem.of(name, "", said("lint.not_an_object"), "error")]
    try:
        case = Case.model_validate(data)
    except ValidationError as exc:
        return None, schema_problems(name, exc)
    except RecursionError:
        return None, [Problem.of(name, "", said("lint.too_deep"), "error")]
    return case, lint_case(name, case, strict)


def lint_case(name: str, case: Case, strict: bool = False) -> list[Problem]:
    """A case's own problems, in the seeds' order of trust: actions, fixtures, then words; then its
    examples (are the checks proven?) and its personal data."""
    out = _tool_problems(name, case)
    if case.fixtures is not None and agent_tools() == TOOL_NAMES:  # another agent's fixtures are its own
        out += _fixture_problems(name, case.fixtures)
    if not any(kind.applies(case) for kind in kinds()) and not (case.juge or case.proche_de):
        out.append(Problem.of(name, "", said("lint.no_check"), "error" if strict else "warning"))
    elif not case.has_action_check():
        out.append(Problem.of(name, "outils", said("lint.no_action_check"), "warning"))
    out += _text_problems(name, case)
    if case.categorie in BLOCKING_DEFAULT and not (case.outils_interdits or case.ne_contient_pas):
        out.append(Problem.of(name, "outils_interdits", said("lint.securite_forbids_nothing"), "warning"))
    out.extend(_example_problems(name, case, strict))
    out.extend(model_lint.guard_problems(name, case))
    out.extend(identity_problems(name, case))
    if Path(name).stem != case.id:
        out.append(Problem.of(name, "id", said("lint.file_name", id=repr(case.id)), "warning"))
    return out


def agent_tools() -> tuple[str, ...]:
    """The agent's tool names, which cases are checked against: `tools` in `[tool.filon]` / filon.toml,
    else the reference agent's. A configuration that does not parse raises `ValueError` naming it."""
    configured = FlagConfig.load().tools
    return tuple(configured) if configured else TOOL_NAMES


def escalation_tool() -> str:
    """The agent's way to a human, as a tool name a case can expect: the reference agent's, or the first
    configured `escalation_tools` name (not a pattern) among the agent's `tools`."""
    known = agent_tools()
    if ESCALATION_TOOL in known:
        return ESCALATION_TOOL
    for name in FlagConfig.load().escalation_tools:
        if name in known:
            return name
    return ESCALATION_TOOL


def _tool_problems(name: str, case: Case) -> list[Problem]:
    """Every tool a check names is the agent's; the trajectory checks make sense together."""
    out: list[Problem] = []
    known = agent_tools()
    for where, tool in trajectory.named_tools(case):
        if tool_name(tool) not in known:
            why = said("lint.unknown_tool", tool=repr(tool_name(tool)), known=list(known))
            out.append(Problem.of(name, where, why, "error"))
    out += [Problem.of(name, where, why, "error") for where, why in trajectory.problems(case)]
    out += [Problem.of(name, where, why, "warning") for where, why in trajectory.warnings(case)]
    return out


def _fixture_problems(name: str, fixtures: dict[str, Any]) -> list[Problem]:
    found = ABSOLUTE_DATE.search(json.dumps(fixtures, ensure_ascii=False))
    if found:
        return [Problem.of(name, "fixtures", said("lint.absolute_date", date=repr(found.group(0))), "error")]
    try:
        load_fixtures(fixtures, date.today())
    except (FixtureError, KeyError, TypeError, ValueError) as exc:
        return [Problem.of(name, "fixtures", sentence(why(exc)), "error")]
    return _fixture_clashes(name, fixtures)


def _text_problems(name: str, case: Case) -> list[Problem]:
    """Amounts with one decimal separator only, and decisions read from a single word."""
    out: list[Problem] = []
    for i, group in enumerate(case.text_groups()):
        folded = [norm(v) for v in group]
        for variant in group:
            for match in DECIMAL.finditer(variant):
                other = match.group(0).replace(match.group(1), "." if match.group(1) == "," else ",")
                if not any(other in f for f in folded):
                    why = said("lint.no_variant", amount=repr(match.group(0)), other=repr(other))
                    out.append(Problem.of(name, f"contient[{i}]", why, "warning"))
        if len(group) == 1 and " " not in folded[0].strip() and folded[0] in DECISION_WORDS:
            why = said("lint.decision_word", word=repr(group[0]))
            out.append(Problem.of(name, f"contient[{i}]", why, "warning"))
    return out


def _fixture_clashes(name: str, fixtures: dict[str, Any]) -> list[Problem]:
    """A case's customer whose email is already another shop customer's: the shop could not load it."""
    out: list[Problem] = []
    owners: dict[str, Any] = {}
    for client in merge_fixtures(default_fixtures(), fixtures)["clients"]:
        email = str(client.get("email", "")).lower()
        if email in owners and owners[email] != client.get("id"):
            why = said("lint.email_clash", id=client.get("id"), email=repr(email), owner=owners[email])
            out.append(Problem.of(name, "fixtures.clients", why, "error"))
        owners.setdefault(email, client.get("id"))
    return out


def _example_problems(name: str, case: Case, strict: bool) -> list[Problem]:
    """The examples proven against the checks, then the minimum counts (errors under `--strict`)."""
    out: list[Problem] = []
    for trial in calibration.trials(case):
        where = f"exemples[{trial.index}]"
        if trial.example.verdict == "bon" and not trial.accepted:
            rejected = said("lint.too_strict", gaps=chained(trial.gaps, "text.semicolons"))
            out.append(Problem.of(name, where, rejected, "error"))
        elif (
            trial.example.verdict == "mauvais"
            and trial.accepted
            and case.proche_de
            and not trial.for_the_judge
        ):
            out.append(Problem.of(name, where, said("lint.only_proche_de"), "warning"))
        elif trial.example.verdict == "mauvais" and trial.accepted and not trial.for_the_judge:
            note = said("lint.note", note=trial.example.note) if trial.example.note else ""
            out.append(Problem.of(name, where, said("lint.too_loose", note=note), "error"))
    bons, quotes = calibration.counting_bons(case)
    for index, copied in quotes:
        out.append(Problem.of(name, f"exemples[{index}]", said("lint.quotes_faq", copied=copied), "warning"))
    blocking = case.categorie in BLOCKING_DEFAULT
    need_bons = MIN_BONS_BLOCKING if blocking else MIN_BONS
    need_mauvais = MIN_MAUVAIS_BLOCKING if blocking else 0
    mauvais = sum(1 for ex in case.exemples if ex.verdict == "mauvais")
    level: Level = "error" if strict else "warning"
    if bons < need_bons:
        why = said("lint.few_bons", n=bons, need=need_bons)
        out.append(Problem.of(name, "exemples", why, level, refused_by_ci=True))
    if mauvais < need_mauvais:
        why = said("lint.few_mauvais", n=mauvais, need=need_mauvais)
        out.append(Problem.of(name, "exemples", why, level, refused_by_ci=True))
    return out


def load_set(folder: str | Path | None = None, strict: bool = False) -> CaseSet:
    """Every `*.json` of the folder, validated and linted, with duplicates across files reported."""
    path = goldens_dir(folder)
    result = CaseSet(path)
    if not path.is_dir():
        result.problems.append(Problem.of(str(path), "", said("lint.no_folder"), "error"))
        return result
    ids: dict[str, str] = {}
    tels: dict[str, str] = {}
    for file in sorted(path.glob("*.json")):
        name = str(file)
        text = case_text(file, path)
        if isinstance(text, Said):  # why it cannot be read
            result.problems.append(Problem.of(name, "", text, "error"))
            continue
        case, problems = parse_case(name, text, strict)
        result.problems.extend(problems)
        if case is None:
            continue
        if case.id in ids:
            result.problems.append(
                Problem.of(
                    name, "id", said("lint.duplicate_id", id=repr(case.id), other=ids[case.id]), "error"
                )
            )
            continue
        if case.tel and case.tel in tels:
            shared = said("lint.duplicate_tel", tel=case.tel, other=tels[case.tel])
            result.problems.append(Problem.of(name, "tel", shared, "error"))
        result.problems.extend(model_lint.rubric_problems(name, case, judges_dir(path)))
        ids[case.id] = name
        if case.tel:
            tels[case.tel] = name
        result.cases.append(case)
    if not result.cases and not result.errors:
        result.problems.append(Problem.of(str(path), "", said("lint.empty_folder"), "error"))
    result.problems.extend(category_problems(result.cases, ids, BLOCKING_DEFAULT))
    result.problems[:0] = _another_agent(path, result.problems, len(ids))
    result.files = ids
    return result


def _another_agent(path: Path, problems: list[Problem], cases: int) -> list[Problem]:
    """One line first when most cases name tools the settings do not know: the set is another agent's
    (a `filon.toml` for a second agent put where the reference shop's set is), not every case wrong."""
    unknown = {p.file for p in problems if p.said and p.said.code == "lint.unknown_tool"}
    if cases < 4 or len(unknown) * 2 <= cases:
        return []
    from filon.miner.rules.config import config_folder

    where = config_folder(Path.cwd())
    why = said("lint.another_agent", unknown=len(unknown), cases=cases, where=where)
    return [Problem.of(str(path), "tools", why, "error")]


class CaseExists(Refusal, FileExistsError):
    """A case file that would be written over an existing id."""


def write_case(folder: Path, data: dict[str, Any], overwrite: bool = False) -> Path:
    """Write one case atomically (temp file + rename); never over an existing id unless asked."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{data['id']}.json"
    if target.exists() and not overwrite:
        raise CaseExists(said("err.case.exists", path=str(target), id=repr(data["id"])))
    tmp = target.with_name(f".{target.name}.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    return target
