"""The agent's five tools: JSON-schema declarations for the model, and their implementations on the shop.

A tool that cannot do its job raises `ToolError`; the service turns it into an error result for the
model (and an error status on the `execute_tool` span), never into an exception through the turn.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

from filon.agent.knowledge import search
from filon.agent.shop import Shop
from filon.agent.shop.models import Client, Colis, Commande, Ligne

ESCALATION_TOOL = "transferer_a_un_conseiller"
RETURN_WINDOW_DAYS = 30
ORDER_NUMBER = re.compile(r"^LL-\d{5}$")


class ToolError(Exception):
    """A tool failed; the message is returned to the model as `{"erreur": ...}`."""


_NUMERO = {"type": "string", "description": "Numéro de commande, au format LL-1xxxx."}

DECLARATIONS: list[dict[str, Any]] = [
    {
        "name": "rechercher_aide",
        "description": "Cherche dans la FAQ et les conditions générales de vente de Lin & Laine.",
        "parameters": {
            "type": "object",
            "properties": {"question": {"type": "string", "description": "La question du client."}},
            "required": ["question"],
        },
    },
    {
        "name": "consulter_commande",
        "description": "Donne le statut, les articles, les dates et le titulaire d'une commande.",
        "parameters": {"type": "object", "properties": {"numero": _NUMERO}, "required": ["numero"]},
    },
    {
        "name": "suivre_colis",
        "description": "Donne l'état du colis d'une commande expédiée : transporteur, suivi, date prévue, retard.",
        "parameters": {"type": "object", "properties": {"numero": _NUMERO}, "required": ["numero"]},
    },
    {
        "name": "demander_retour",
        "description": "Enregistre une demande de retour si la commande est livrée depuis 30 jours au plus.",
        "parameters": {
            "type": "object",
            "properties": {"numero": _NUMERO, "motif": {"type": "string", "description": "Motif du retour."}},
            "required": ["numero"],
        },
    },
    {
        "name": ESCALATION_TOOL,
        "description": "Transfère la conversation à un conseiller humain (gestes commerciaux, "
        "modification ou annulation, litiges, demande explicite du client).",
        "parameters": {
            "type": "object",
            "properties": {
                "motif": {"type": "string", "description": "Pourquoi un conseiller est nécessaire."}
            },
            "required": ["motif"],
        },
    },
]

TOOL_NAMES = tuple(d["name"] for d in DECLARATIONS)


class Toolbox:
    """Runs tools against one shop. Stateless apart from the shop and a ticket counter."""

    def __init__(self, shop: Shop) -> None:
        self.shop = shop
        self._tickets = itertools.count(1)
        self._impl: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "rechercher_aide": self.rechercher_aide,
            "consulter_commande": self.consulter_commande,
            "suivre_colis": self.suivre_colis,
            "demander_retour": self.demander_retour,
            ESCALATION_TOOL: self.transferer_a_un_conseiller,
        }

    def run(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        impl = self._impl.get(name)
        if impl is None:
            raise ToolError(f"outil inconnu : {name}")
        return impl(args)

    @staticmethod
    def _numero(args: dict[str, Any]) -> str:
        numero = str(args.get("numero", "")).strip().upper()
        if not ORDER_NUMBER.match(numero):
            raise ToolError(f"numéro de commande invalide : {numero or '(vide)'}")
        return numero

    def _lookup(self, args: dict[str, Any]) -> tuple[str, tuple[Commande, Client, list[Ligne], Colis | None]]:
        """The order named by `args["numero"]`, or a ToolError the model can read."""
        numero = self._numero(args)
        found = self.shop.commande(numero)
        if found is None:
            raise ToolError(f"commande introuvable : {numero}")
        return numero, found

    def rechercher_aide(self, args: dict[str, Any]) -> dict[str, Any]:
        question = str(args.get("question", ""))
        found = search(question)
        return {"passages": [{"source": p.source, "titre": p.titre, "texte": p.texte} for p in found]}

    def consulter_commande(self, args: dict[str, Any]) -> dict[str, Any]:
        _, (order, client, lignes, _colis) = self._lookup(args)
        total = sum(x.prix_unitaire * x.quantite for x in lignes)
        return {
            "numero": order.numero,
            "statut": order.statut,
            "date_commande": order.date_commande.isoformat(),
            "date_livraison": order.date_livraison.isoformat() if order.date_livraison else None,
            "articles": [
                {"article": x.article, "quantite": x.quantite, "prix": x.prix_unitaire} for x in lignes
            ],
            "montant_articles": round(total, 2),
            "frais_port": order.frais_port,
            "client": {"prenom": client.prenom, "nom": client.nom, "email": client.email, "tel": client.tel},
        }

    def suivre_colis(self, args: dict[str, Any]) -> dict[str, Any]:
        numero, found = self._lookup(args)
        order, _, _, colis = found
        if colis is None:
            return {"numero": numero, "statut": order.statut, "etat": "aucun colis expédié"}
        retard = 0
        if colis.date_prevue and colis.etat in ("en transit", "en retard", "perdu"):
            retard = max(0, (self.shop.today - colis.date_prevue).days)
        return {
            "numero": numero,
            "transporteur": colis.transporteur,
            "suivi": colis.suivi,
            "etat": colis.etat,
            "date_prevue": colis.date_prevue.isoformat() if colis.date_prevue else None,
            "retard_jours": retard,
            "derniere_position": colis.derniere_position,
        }

    def demander_retour(self, args: dict[str, Any]) -> dict[str, Any]:
        numero, found = self._lookup(args)
        order, _, _, _ = found
        if order.statut != "livrée" or order.date_livraison is None:
            return {"numero": numero, "accepte": False, "raison": f"commande au statut « {order.statut} »"}
        days = (self.shop.today - order.date_livraison).days
        if days > RETURN_WINDOW_DAYS:
            return {
                "numero": numero,
                "accepte": False,
                "raison": f"livrée il y a {days} jours, au-delà du délai de {RETURN_WINDOW_DAYS} jours",
            }
        if self.shop.retours(numero):
            return {"numero": numero, "accepte": False, "raison": "un retour est déjà enregistré"}
        retour = self.shop.ajouter_retour(numero, str(args.get("motif", "")))
        return {
            "numero": numero,
            "accepte": True,
            "retour": f"R-{retour.id:05d}",
            "jours_depuis_livraison": days,
            "etiquette": "gratuite, envoyée par e-mail",
            "remboursement": "sous 14 jours après réception",
        }

    def transferer_a_un_conseiller(self, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "transfert": "accepté",
            "ticket": f"T-{next(self._tickets):04d}",
            "motif": str(args.get("motif", "")),
            "delai": "un conseiller répond du lundi au vendredi, de 9 h à 18 h",
        }
