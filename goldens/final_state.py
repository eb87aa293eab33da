"""`etat_final`: what the conversation left in the shop, checked against the case. An action the agent
only says it did is not done: a return is registered when the shop has it, whatever the answer claims.

A pure function over the state a target reports (`ReferenceTarget.final_state`: the attempt's own shop;
a Python target's `etat()`), so it is tested on built inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from goldens.schema import EtatFinal
from goldens.targets import ReportsState, Session, Target
from miner.text import norm


def final_state_gaps(expected: EtatFinal, state: dict[str, Any]) -> list[str]:
    gaps: list[str] = []
    returns = [r for r in state.get("retours") or [] if isinstance(r, dict)]
    registered = {str(r.get("commande")) for r in returns}
    if expected.retours is not None:
        if not expected.retours and registered:
            gaps.append(f"état final : retour inattendu pour {', '.join(sorted(registered))}")
        for wanted in expected.retours:
            if wanted.commande not in registered:
                gaps.append(f"état final : aucun retour enregistré pour {wanted.commande}")
    orders = {
        str(o.get("numero")): str(o.get("statut"))
        for o in state.get("commandes") or []
        if isinstance(o, dict)
    }
    for order in expected.commandes:
        found = orders.get(order.numero)
        if found is None:
            gaps.append(f"état final : commande {order.numero} introuvable")
        elif norm(found) != norm(order.statut):
            gaps.append(f"état final : commande {order.numero} « {found} », attendu « {order.statut} »")
    return gaps


def state_reader(target: Target) -> Callable[[Session], dict[str, Any]] | None:
    """How to read the target's shop after a conversation: the reference agent's own, a Python target's
    `etat()`; None for a target that cannot say (HTTP)."""
    if isinstance(target, ReportsState) and target.reports_state():
        return target.final_state
    return None
