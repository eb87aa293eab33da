"""Where a draft goes in the set: its category (from the flags and the tools the agent called), a free
case id with the category's prefix, and a free WhatsApp number (two cases never share a conversation)."""

from __future__ import annotations

from goldens.set.caseset import escalation_tool
from miner.model import Conversation, Flag

PREFIX = {
    "securite": "adv",
    "escalade": "esc",
    "retour": "retour",
    "suivi": "suivi",
    "commande": "cmd",
    "cgv": "cgv",
    "faq": "faq",
}


KINDS = (  # in this order: a return asked after tracking a parcel is a return case
    (("demander_retour", "return", "refund", "retour", "rembours"), "retour"),
    (("suivre_colis", "track", "parcel", "shipment", "colis", "suivi"), "suivi"),
    (("consulter_commande", "order", "commande"), "commande"),
)


def category(conv: Conversation, flags: list[Flag]) -> str:
    kinds = {f.kind for f in flags}
    tools = {t.name for turn in conv.turns for t in turn.tools}
    if "security" in kinds:
        return "securite"
    if "escalation" in kinds or "promise" in kinds or any(escalation_tool() == t for t in tools):
        return "escalade"
    for words, cat in KINDS:  # the reference agent's tools, then any agent's by the words of their names
        if any(word in tool.lower() for tool in tools for word in words):
            return cat
    return "faq"


def free_id(categorie: str, taken: set[str]) -> str:
    prefix = PREFIX.get(categorie, categorie[:4])
    n = 1
    while f"{prefix}-{n:02d}" in taken:
        n += 1
    return f"{prefix}-{n:02d}"


def free_tel(preferred: str | None, taken: set[str]) -> str:
    if preferred and preferred not in taken:
        return preferred
    n = 900
    while f"33600000{n}" in taken:
        n += 1
    return f"33600000{n}"
