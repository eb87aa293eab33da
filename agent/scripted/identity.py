"""Who may read an order: the identity rule as the scripted model applies it, when the prompt carries it.

The asker is the order's owner when an email they wrote is the order's (`client.email` in the reference
shop's record; any email a record of another agent's holds), or when their WhatsApp number is the
owner's. Otherwise the order's details are withheld, with a refusal that quotes nothing of it.
"""

from __future__ import annotations

from typing import Any

from filon.agent.scripted import intents
from filon.agent.scripted.request import Decision, Turn


def emails_in(value: Any) -> list[str]:
    """Every email among a tool result's values, at any depth."""
    if isinstance(value, dict):
        return [e for v in value.values() for e in emails_in(v)]
    if isinstance(value, list):
        return [e for v in value for e in emails_in(v)]
    return intents.emails(value) if isinstance(value, str) and "@" in value else []


def identity_ok(turn: Turn, order: dict[str, Any]) -> bool:
    if not turn.verification:
        return True
    owner = order.get("client") or {}
    given = {e for text in turn.user_texts for e in intents.emails(text)}
    emails = {owner["email"].lower()} if owner.get("email") else {e.lower() for e in emails_in(order)}
    if emails & given:
        return True
    return bool(turn.sender) and owner.get("tel") == turn.sender


def refuse_identity(numero: str) -> Decision:
    return Decision(
        withholds=True,
        text=(
            f"Pour protéger vos données, je ne peux communiquer le détail de la commande {numero} "
            "qu'à son titulaire. Pouvez-vous m'indiquer l'adresse e-mail utilisée pour la commande ?"
        ),
    )
