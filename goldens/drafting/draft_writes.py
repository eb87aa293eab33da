"""Drafting a case from what a conversation did to the world, for an agent whose tools that change it are
declared (`write_tools` in filon.toml): actions first, and only the actions that decide the outcome.

A case drafted from one right conversation must judge the other conversations of the same request: the
tau-bench airline trials of one task, the same customer asking again. What they share when they are right
is what they wrote, not what they said: every write the conversation made, with its arguments (the
customer's own ids as the case's data, `{"du_cas": NAME}`, read from `donnees`), each counted no more
than it was made; every other write tool forbidden (a refusal drafts as the write forbidden, not as a
word), a failed call changing nothing (`si_reussi`); the record (a reservation, the profile) read before
the first
write changed it (`ordre`); figures a tool computed and the agent told (« 23,553 » as 23553) proposed,
not enabled: another right answer need not repeat a figure on the way. The hand-over is left to the
reviewer (`escalade` null): one trial's choice is not the policy. Pure functions.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from filon.goldens.drafting.check import Check, Origin
from filon.miner.core.model import Conversation, ToolCall
from filon.miner.core.results import failed_result
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.writes import succeeded_writes

_ID_LIKE = re.compile(r"^(?=.*\d)[\w.@+-]{4,}$|^[A-Z0-9]{5,}$")
_GLOB = re.compile(r"[*?\[]")


def customer_data(conv: Conversation) -> dict[str, str]:
    """The ids the customer wrote that the agent's calls then used (`user_id`, `reservation_id`…), by the
    argument's name: what the case's checks name as its own data."""
    said = " ".join(t.user for t in conv.turns).lower()
    out: dict[str, str] = {}
    for turn in conv.turns:
        for call in turn.tools:
            for key, value in call.arguments.items():
                if type(value) is str and _ID_LIKE.match(value) and value.lower() in said:
                    name = re.sub(r"[^a-z0-9_]", "_", key.lower())[:40] or "donnee"
                    if not name[0].isalpha():
                        name = "d_" + name
                    out.setdefault(name, value)
    return out


def mapped(value: Any, data: dict[str, str]) -> Any:
    """An argument's value with the customer's own data named (`{"du_cas": NAME}`), at any depth."""
    if type(value) is dict:
        return {k: mapped(v, data) for k, v in value.items()}
    if type(value) is list:
        return [mapped(v, data) for v in value]
    if type(value) is str:
        name = next((k for k, v in data.items() if v == value), None)
        return {"du_cas": name} if name is not None else value
    return value


def write_names(conv: Conversation, cfg: FlagConfig) -> list[str]:
    """The agent's write tools by name: those filon.toml names literally, and any the conversation called
    that a pattern of it matches; never an escalation (the case's `escalade` says that)."""
    declared = [n for n in cfg.write_tools or [] if not _GLOB.search(n)]
    called = [c.name for t in conv.turns for c in t.tools if cfg.writes(c.name)]
    return [n for n in dict.fromkeys([*declared, *called]) if not cfg.escalates(n)]


def deciding_lookup(conv: Conversation, write: ToolCall) -> tuple[ToolCall, str] | None:
    """The lookup that decided the first write: the last successful call before it, not itself a write,
    that read the record the write changed (an argument of the same name and value: the reservation
    looked up, then changed; the profile read, then booked for); and the argument they share."""
    calls = [c for t in conv.turns for c in t.tools]
    before = calls[: next(i for i, c in enumerate(calls) if c is write)]
    for call in reversed(before):
        if call.error or failed_result(call.result) is not None or call.name == write.name:
            continue
        for key, value in call.arguments.items():
            if type(value) is str and write.arguments.get(key) == value:
                return call, key
    return None


def computed_figures(conv: Conversation) -> list[str]:
    """Figures a tool computed (its whole result a number: a calculator's) that an answer then told."""
    out: list[str] = []
    for turn in conv.turns:
        for call in turn.tools:
            value = _number(call.result)
            if value is None or abs(value) < 10:
                continue
            shown = str(int(value)) if value.is_integer() else f"{value:g}"
            written = (shown, f"{int(value):,}" if value.is_integer() else shown)
            if any(w in t.agent for t in conv.turns for w in written) and shown not in out:
                out.append(shown)
    return out


def _number(result: Any) -> float | None:
    if type(result) in (int, float):
        return float(result)
    if type(result) is str:
        try:
            return float(result.strip())
        except ValueError:
            return None
    return None


def write_checks(conv: Conversation, cfg: FlagConfig) -> tuple[list[Check], dict[str, str]]:
    """The action checks of an agent with declared writes, and the case's data they name."""
    data = customer_data(conv)
    made = [call for _, call in succeeded_writes(conv, cfg)]
    checks: list[Check] = []
    for call in made:
        spec = {"outil": call.name, "args": mapped(call.arguments, data), "si_reussi": True}
        if all(c.value != spec for c in checks):
            checks.append(Check("outils", spec, Origin.OBSERVED, "a write the conversation made"))
    for name, n in Counter(c.name for c in made).items():
        spec = {"outil": name, "si_reussi": True, "max": n}
        checks.append(Check("outils", spec, Origin.OBSERVED, f"made {n} time(s), no more"))
    made_names = {c.name for c in made}
    for name in write_names(conv, cfg):
        if name not in made_names:
            spec = {"outil": name, "si_reussi": True}
            why = "a write this conversation did not make (a refused one changed nothing)"
            checks.append(Check("outils_interdits", spec, Origin.OBSERVED, why))
    decided = deciding_lookup(conv, made[0]) if made else None
    if decided is not None:
        lookup, key = decided
        first = {"outil": lookup.name, "args": {key: mapped(lookup.arguments[key], data)}}
        why = "the record looked up before the first write changed it"
        checks.append(Check("ordre", [first, made[0].name], Origin.OBSERVED, why))
    checks.append(
        Check("escalade", None, Origin.SUGGESTED, "one conversation's hand-over is not the policy: say it")
    )
    for shown in computed_figures(conv):  # an output the customer asked for, or a figure on the way to it
        why = "a figure a tool computed and the agent told: keep it if the customer needed it (enable)"
        checks.append(Check("contient", shown, Origin.SUGGESTED, why, enabled=False))
    return checks, data
