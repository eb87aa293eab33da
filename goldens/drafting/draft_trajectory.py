"""Drafting the trajectory checks of a case from a conversation: the observed calls with their
arguments, mapped back to the case's own data (`{"du_cas": "commande"}` where a call was on the order the
customer gave), the lookup before the action it enables, per-turn checks for a conversation of several
turns, and, after a leak, the lookup of the other customer's order forbidden by its arguments (the tool
itself stays allowed on the customer's own order). Pure functions over a `Conversation`.
"""

from __future__ import annotations

from typing import Any

from filon.agent.tools import TOOL_NAMES
from filon.goldens.checks.matching import said_data
from filon.miner.core.model import Conversation, ToolCall

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


def own_argument(call: ToolCall, data: dict[str, str]) -> str | None:
    """The argument that carried the order the customer gave (the reference agent's `numero`, or any
    other agent's, `order_id`…), or None when the call was on no order of theirs."""
    if not call.arguments_recorded or "commande" not in data:
        return None
    for name, value in call.arguments.items():
        if isinstance(value, str) and value.strip().upper() == data["commande"].upper():
            return str(name)
    return None


def on_own(call: ToolCall, data: dict[str, str]) -> bool:
    return own_argument(call, data) is not None


def spec(name: str, call: ToolCall, data: dict[str, str], any_tool: bool = False) -> str | dict[str, Any]:
    """A tool as a check: with the case's own order as its argument where the call was on it (`any_tool`:
    the call was one of interchangeable tools, the argument holds for each)."""
    argument = own_argument(call, data) if call.name == name or any_tool else None
    if argument is not None:
        return {"outil": name, "args": {argument: {"du_cas": "commande"}}}
    return name


def lookups_of(conv: Conversation, data: dict[str, str]) -> list[str]:
    """The tools that read an order: the reference agent's lookups (when the conversation is of an agent
    with its tools), and any tool this conversation called on the customer's own order (another agent's
    `lookup_order`, `track_parcel`). Never the reference agent's names for an agent that has none."""
    called = [c for t in conv.turns for c in t.tools]
    reference = list(LOOKUPS) if {c.name for c in called} & set(TOOL_NAMES) else []
    return list(dict.fromkeys([*reference, *(c.name for c in called if on_own(c, data))]))


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
    lookups = lookups_of(conv, data)
    for turn in turns:
        names = list(dict.fromkeys(c.name for c in turn.tools))
        if not names:
            blocks.append({"outils_interdits": lookups} if lookups else {"outils_interdits": []})
            continue
        firsts = {c.name: c for c in reversed(turn.tools)}
        blocks.append({"outils": [spec(n, firsts[n], data) for n in names]})
    return blocks
