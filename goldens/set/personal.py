"""Personal data in a case: a case lands in git, so an email, a phone, a card or an IBAN in it must be a
pseudonym, a reserved address, a fixture customer's, or one of the agent's declared test identities
(`test_identities` in the set's filon.toml). What counts as one is what redaction replaces
(`tracing.personal_data`), whatever its form: a value in an unusual form is compared in its plain one."""

from __future__ import annotations

import fnmatch
import json
import re
from functools import cache
from pathlib import Path

from filon.agent.shop.fixtures import default_fixtures
from filon.goldens.case.problems import Problem
from filon.goldens.case.schema import Case
from filon.miner.core.messages import said
from filon.miner.reading.identities import phone_key
from filon.miner.rules.config import FlagConfig
from filon.tracing.personal_data import personal_spans


@cache
def _shop_identities() -> frozenset[str]:
    return frozenset(
        v for c in default_fixtures()["clients"] for v in (str(c["email"]).lower(), str(c["tel"]))
    )


# domains reserved for examples and tests (RFC 2606, RFC 6761): nobody's address
RESERVED = re.compile(r"@(?:[\w-]+\.)*(?:example\.(?:org|com|net)|example|invalid|test)$")


def _reserved(value: str) -> bool:
    return "@" in value and RESERVED.search(value) is not None


def _config_file(folder: Path) -> str:
    """Where the set's settings are read from (the nearest filon.toml, or the pyproject.toml with
    [tool.filon], up to the repository's root), or the filon.toml to create beside the set."""
    from filon.miner.places import project_folder

    project = project_folder(folder)
    if project is not None and (project / "filon.toml").is_file():
        return str(project / "filon.toml")
    if project is not None:
        return f"{project / 'pyproject.toml'} [tool.filon]"
    return str(folder / "filon.toml")


def _declared(kind: str, found: str, declared: list[str]) -> bool:
    """Whether `found` is one of the agent's own test identities `test_identities` names (globs allowed:
    "*@example.fr"; a phone however it is written, "06 12 34 56 78" as "+33612345678")."""
    if not declared:
        return False
    if kind == "phone":
        key = phone_key(found)
        keys = {phone_key(p) for p in declared}
        if key is not None and key in keys:
            return True
        values = {found.lower(), re.sub(r"\D", "", found), key or ""}
    else:
        values = {found.lower()}
    return any(fnmatch.fnmatchcase(v, pattern.lower()) for v in values for pattern in declared)


def identity_problems(name: str, case: Case) -> list[Problem]:
    """Personal data that is neither a pseudonym, a fixture customer's, nor a declared test identity (the
    agent's own, `test_identities` in filon.toml): a case lands in git."""
    declared = FlagConfig.load(Path(name).parent).test_identities  # the set's own project
    known = set(_shop_identities())
    for client in (case.fixtures or {}).get("clients", []):
        known.update((str(client.get("email", "")).lower(), str(client.get("tel", ""))))
    texts: list[tuple[str, str]] = [(f"tours[{i}]", t) for i, t in enumerate(case.tours)]
    texts += [(f"exemples[{i}]", a) for i, ex in enumerate(case.exemples) for a in ex.answers()]
    texts += [(f"contient[{i}]", " ".join(g)) for i, g in enumerate(case.text_groups())]
    texts += [(f"ne_contient_pas[{i}]", t) for i, t in enumerate(case.ne_contient_pas)]
    out: list[Problem] = []
    for where, text in texts:
        for kind, found, _, _ in personal_spans(text):
            value = found.lower()
            digits = re.sub(r"\D", "", value)
            if digits.startswith("0") and len(digits) == 10:
                digits = "33" + digits[1:]
            if kind == "email" and (_reserved(value) or value in known):
                continue
            if kind == "phone" and (digits in known or phone_key(found) in known):
                continue
            if _declared(kind, found, declared):
                continue
            what = {"kind": said(f"lint.personal.{kind}"), "remedy": said(f"lint.remedy.{kind}")}
            config = _config_file(Path(name).parent)
            why = said("lint.personal_data", value=repr(found), **what, config=config, json=json.dumps(found))
            out.append(Problem.of(name, where, why, "error"))
    return out
