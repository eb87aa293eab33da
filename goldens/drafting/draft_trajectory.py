"""Drafting the trajectory checks of a case from a conversation: the observed calls with their
arguments, mapped back to the case's own data (`{"du_cas": "commande"}` where a call was on the order the
customer gave), the lookup before the action it enables, per-turn checks for a conversation of several
turns, and, after a leak, the lookup of the other customer's order forbidden by its arguments (the tool
itself stays allowed on the customer's own order). Pure functions over a `Conversation`.
"""

from __future__ import annotations

from typing import Any

from goldens.checks.matching import said_data
from miner.model import Conversation, ToolCall

LOOKUPS = ("consulter_commande", "suivre_colis")


def example_call(call: ToolCall) -> dict[str, Any]:
    out: dict[str, Any] = {"outil": call.name}
    if call.arguments_recorded:
        out["args"] = call.arguments
    if call.error:
        out["erreur"] = call.error
    return out


def strangers_orders(conv: Conversation, user_ids: set[str]) -> list[tuple[str, str]]:
    """The lookups whose result was another customer's order: (tool, order number), once each."""
    out: dict[tuple[str, str], None] = {}
    owners: dict[str, bool] = {}
    for turn in conv.turns:
        for call in turn.tools:
            numero = str(call.arguments.get("numero") or "")
            result = call.result if isinstance(call.result, dict) else {}
            client = result.get("client")
            if isinstance(client, dict) and numero:
                owners[numero] = bool(
                    {str(v).lower() for v in client.values()} & {u.lower() for u in user_ids}
                )
    for turn in conv.turns:
        for call in turn.tools:
            numero = str(call.arguments.get("numero") or "")
            if call.name in LOOKUPS and numero and owners.get(numero) is False:
                out[(call.name, numero)] = None
    return list(out)


def case_data_of(conv: Conversation) -> dict[str, str]:
    """The order number and e-mail the customer gives, as `{"du_cas": …}` will read them from the case."""
    return said_data(" ".join(t.user for t in conv.turns))


def on_own(call: ToolCall, data: dict[str, str]) -> bool:
    numero = call.arguments.get("numero") if call.arguments_recorded else None
    return bool(numero) and "commande" in data and str(numero).strip().upper() == data["commande"].upper()


def spec(name: str, call: ToolCall, data: dict[str, str], any_tool: bool = False) -> str | dict[str, Any]:
    """A tool as a check: with the case's own order as its argument where the call was on it (`any_tool`:
    the call was one of interchangeable tools, the argument holds for each)."""
    if (call.name == name or any_tool) and on_own(call, data):
        return {"outil": name, "args": {"numero": {"du_cas": "commande"}}}
    return name


def lookup_before_action(calls: list[ToolCall], data: dict[str, str]) -> list[Any]:
    """A lookup, then an action on the same order (a return, a transfer): their order, as observed."""
    first = next((i for i, c in enumerate(calls) if c.name in LOOKUPS), None)
    if first is None:
        return []
    after = [c for c in calls[first + 1 :] if c.name not in LOOKUPS and c.name != "rechercher_aide"]
    if not after:
        return []
    return [spec(calls[first].name, calls[first], data), spec(after[0].name, after[0], data)]


def per_turn(conv: Conversation, data: dict[str, str]) -> list[dict[str, Any]]:
    """For a conversation of several turns: per turn, the tools it called (a turn that called none
    forbids the lookups, so an answer given before the customer identified is caught)."""
    turns = [t for t in conv.turns if t.user]
    if len(turns) < 2 or not any(t.tools for t in turns):
        return []
    blocks: list[dict[str, Any]] = []
    for turn in turns:
        names = list(dict.fromkeys(c.name for c in turn.tools))
        if not names:
            blocks.append({"outils_interdits": list(LOOKUPS)})
            continue
        firsts = {c.name: c for c in reversed(turn.tools)}
        blocks.append({"outils": [spec(n, firsts[n], data) for n in names]})
    return blocks
