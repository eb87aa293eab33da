"""Where a draft goes in the set: its category (from the flags and the tools the agent called), a free
case id with the category's prefix, and a free WhatsApp number (two cases never share a conversation)."""

from __future__ import annotations

import re

from filon.goldens.set.caseset import escalation_tool
from filon.miner.core.model import Conversation, Flag
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.identity_rule import IDENTITY_UNVERIFIED
from filon.miner.rules.security_rule import INJECTION_OBEYED, INJECTION_REFUSED, LEAK
from filon.miner.rules.writes import succeeded_writes

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


# the security flags a draft is a security case for: what the customer's own words or the answer show
# (an attack, another's data told); never a record that only reached the model, nor one whose owner is
# unknown: a flag of that kind is a question for the reviewer, not a verdict
SECURITY_DRAFTS = frozenset({LEAK, INJECTION_OBEYED, INJECTION_REFUSED, IDENTITY_UNVERIFIED})


def kinds_of(flags: list[Flag]) -> set[str]:
    """The kinds of flag a draft is made from: `security` only from a flag of `SECURITY_DRAFTS`; never a
    customer's correction, which says an earlier answer missed, not that the one drafted from did."""
    return {
        f.kind
        for f in flags
        if (f.kind != "security" or f.cause in SECURITY_DRAFTS) and f.cause != "customer_corrected"
    }


def category(conv: Conversation, flags: list[Flag], cfg: FlagConfig | None = None) -> str:
    """From the flags a security case is made from (an attack, another's data told: never a flag the
    reviewer has not confirmed, such as a record whose owner is unknown), then from what the agent did:
    for an agent whose writes are declared, the first write it made (by the words of its name, else the
    name itself), a hand-over, else what it looked up; for the reference shop, its tools."""
    kinds = kinds_of(flags)
    tools = [t.name for turn in conv.turns for t in turn.tools]
    if "security" in kinds:
        return "securite"
    if cfg is not None and cfg.write_tools is not None:
        made = next(succeeded_writes(conv, cfg), None)
        if made is not None:
            return _by_words([made[1].name]) or _slug(made[1].name)
    if "escalation" in kinds or "promise" in kinds or any(escalation_tool() == t for t in tools):
        return "escalade"
    return _by_words(tools) or "faq"


def _by_words(tools: list[str]) -> str | None:
    for words, cat in KINDS:  # the reference agent's tools, then any agent's by the words of their names
        if any(word in tool.lower() for tool in tools for word in words):
            return cat
    return None


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9_-]", "_", name.lower())[:40] or "action"


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
