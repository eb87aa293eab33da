"""How a tool call is matched against what a case expects: its name, then its arguments.

Strings are compared folded (case, accents, typographic apostrophes), numbers as numbers (« 30 », 30 and
30.0 are one value), a pattern `{"motif": REGEX}` is searched in the value (case ignored, on the value as
written or folded), `{"du_cas": NAME}` stands for the case's own data (`case_data`): the order number
and the e-mail the customer gives in the case's turns (a simulated customer's persona), else the case's
fixtures', and its `tel`; and
`{"sauf": VALUE}` matches any value but that one.
A call whose arguments were not recorded matches by name; whether that can decide is the caller's.
"""

from __future__ import annotations

import re
from typing import Any

from filon.goldens.case.schema import Case
from filon.goldens.case.tool_spec import Tool, ToolSpec, tool_name
from filon.miner.core.messages import Said, said
from filon.miner.core.model import ToolCall
from filon.miner.reading.emails import emails
from filon.miner.reading.text import norm

# an order number as shops write them: « LL-10587 », « PP-2001 »; and « A-300 », read only where the
# customer wrote none of those (one letter is also how tickets are numbered: « T-0001 »)
ORDER = re.compile(r"\b[A-Z]{2,4}-\d{3,8}\b")
ORDER_ONE_LETTER = re.compile(r"\b[A-Z]-\d{3,8}\b")
_NUMBER = re.compile(r"^\s*-?\d+(?:[.,]\d+)?\s*$")


def said_data(said: str) -> dict[str, str]:
    """The first order number and the first e-mail in what the customer wrote."""
    out: dict[str, str] = {}
    orders = ORDER.findall(said) or ORDER_ONE_LETTER.findall(said)
    if orders:
        out["commande"] = orders[0]
    mails = [m.group() for m in emails(said)]
    if mails:
        out["email"] = mails[0]
    return out


_last: tuple[Case | None, dict[str, str]] = (None, {})  # the case graded last: every kind reads its data


def case_data(case: Case) -> dict[str, str]:
    """The values `{"du_cas": NAME}` stands for: what the customer gives first, else the fixtures'. Read
    once per case while the grader's kinds run on it (the same object: a copy is read anew)."""
    global _last
    seen, data = _last
    if seen is case:
        return data
    data = _case_data(case)
    _last = (case, data)
    return data


def _case_data(case: Case) -> dict[str, str]:
    fixtures = case.fixtures or {}
    known = (
        case.simulation.persona if case.simulation is not None else ""
    )  # what the simulated customer holds
    out = said_data(" ".join([*case.tours, known]))
    orders = [str(o["numero"]) for o in fixtures.get("commandes", []) if o.get("numero")]
    if "commande" not in out and orders:
        out["commande"] = orders[0]
    mails = [str(c["email"]) for c in fixtures.get("clients", []) if c.get("email")]
    if "email" not in out and mails:
        out["email"] = mails[0]
    if case.tel:
        out["tel"] = case.tel
    out.update(case.donnees)
    return out


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _NUMBER.match(value):
        return float(value.replace(",", "."))
    return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def value_matches(expected: Any, actual: Any, data: dict[str, str]) -> bool:
    """Whether the argument's actual value is what the case's expected value says."""
    if isinstance(expected, dict) and set(expected) == {"sauf"}:
        return actual is not None and not value_matches(expected["sauf"], actual, data)
    if isinstance(expected, dict) and set(expected) == {"motif"}:
        if actual is None:
            return False
        pattern = re.compile(str(expected["motif"]), re.IGNORECASE)
        return bool(pattern.search(_text(actual)) or pattern.search(norm(_text(actual))))
    if isinstance(expected, dict) and set(expected) == {"du_cas"}:
        known = data.get(str(expected["du_cas"]))
        return known is not None and value_matches(known, actual, data)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    a, b = _number(expected), _number(actual)
    if a is not None and b is not None:
        return a == b
    if isinstance(expected, str) and isinstance(actual, str):
        return norm(expected).strip() == norm(actual).strip()
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(
            value_matches(e, v, data) for e, v in zip(expected, actual, strict=True)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and value_matches(v, actual[k], data) for k, v in expected.items())
    return bool(expected == actual)


def args_match(spec: ToolSpec, args: dict[str, Any], data: dict[str, str]) -> bool:
    expected = spec.args or {}
    if spec.mode == "exact" and set(args) != set(expected):
        return False
    return all(k in args and value_matches(v, args[k], data) for k, v in expected.items())


def matches(spec: Tool, call: ToolCall, data: dict[str, str]) -> bool | None:
    """True or False; None where the name matches, the spec names arguments and none were recorded."""
    if call.name != tool_name(spec):
        return False
    if isinstance(spec, str):
        return True
    if spec.si_reussi and not call.succeeded:
        return False
    if spec.args is None:
        return True
    if call.args is None:
        return None
    return args_match(spec, call.args, data)


def wrong_arguments(spec: ToolSpec, calls: list[ToolCall], data: dict[str, str]) -> str | Said:
    """How the calls of the spec's tool differ from it, for the gap's message: the arguments seen."""
    seen = [c.args for c in calls if c.name == spec.outil and c.args is not None]
    out: str | Said = said("tool.none")
    for n, args in enumerate(seen):
        shown = ", ".join(f"{k}={v!r}" for k, v in sorted(args.items())) or said("tool.no_argument")
        out = shown if n == 0 else said("text.then", first=out, second=shown)
    return out
