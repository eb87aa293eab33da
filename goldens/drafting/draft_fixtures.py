"""A draft's fixtures: the orders and customers the agent saw in the conversation (its lookups' results),
written back in dates relative to the conversation's day, so that the case replays the same world."""

from __future__ import annotations

from datetime import date
from typing import Any

from filon.agent.shop.fixtures import relative_label
from filon.miner.core.model import Conversation


def fixtures_seen(conv: Conversation, today: date) -> dict[str, Any] | None:
    """The orders and customers the agent saw, in dates relative to the conversation's day."""
    clients: dict[str, dict[str, Any]] = {}
    orders: dict[str, dict[str, Any]] = {}
    parcels: dict[str, dict[str, Any]] = {}
    for turn in conv.turns:
        for call in turn.tools:
            result = call.result if isinstance(call.result, dict) else {}
            if (
                call.name == "consulter_commande"
                and "numero" in result
                and isinstance(result.get("client"), dict)
            ):
                client = result["client"]
                key = client.get("email", "")
                if key not in clients:
                    clients[key] = {
                        "id": 1000 + len(clients),
                        **{k: client.get(k, "") for k in ("prenom", "nom", "email", "tel")},
                    }
                orders[result["numero"]] = {
                    "numero": result["numero"],
                    "client": clients[key]["id"],
                    "statut": result.get("statut", "livrée"),
                    "date_commande": relative(result.get("date_commande"), today) or "J",
                    "date_livraison": relative(result.get("date_livraison"), today),
                    "lignes": [
                        {
                            "article": a.get("article", ""),
                            "quantite": a.get("quantite", 1),
                            "prix": a.get("prix", 0),
                        }
                        for a in result.get("articles", [])
                        if isinstance(a, dict)
                    ],
                }
            elif call.name == "suivre_colis" and result.get("transporteur"):
                parcels[result.get("numero", "")] = {
                    "transporteur": result["transporteur"],
                    "suivi": result.get("suivi", ""),
                    "etat": result.get("etat", "en transit"),
                    "date_prevue": relative(result.get("date_prevue"), today),
                    "derniere_position": result.get("derniere_position", ""),
                }
    for numero, colis in parcels.items():
        if numero in orders:
            orders[numero]["colis"] = colis
    if not orders:
        return None
    return {"clients": list(clients.values()), "commandes": list(orders.values())}


def relative(iso: Any, today: date) -> str | None:
    if not isinstance(iso, str):
        return None
    try:
        return relative_label(date.fromisoformat(iso[:10]), today)
    except ValueError:
        return None
