"""Drafting a case from a conversation that broke `identite_non_verifiee`: the correct behaviour, never the
observed one. A customer who said who they are gets the lookup that ties their order to them (whether a
detail was told before it, the rulebook's own `identite_non_verifiee` judges on every replay of the
case); one who never did gets none of those calls (the agent asks who they are first). Pure functions."""

from __future__ import annotations

from filon.goldens.drafting.check import Check, Origin
from filon.miner.core.model import Conversation
from filon.miner.reading.identities import identities
from filon.miner.rules.config import SHOP_IDENTITY, FlagConfig


def identity_checks(conv: Conversation, cfg: FlagConfig) -> tuple[list[Check], list[str]]:
    said = any(identities(t.user) for t in conv.turns) or any(t.sender for t in conv.turns)
    calls = [c for t in conv.turns for c in t.tools]
    tellers = list(dict.fromkeys(c.name for c in calls if cfg.discloses(c.name) and not cfg.ties(c.name)))
    tiers = list(dict.fromkeys(c.name for c in calls if cfg.ties(c.name)))
    # the shop's lookup only for an agent that has it: another agent's draft named `consulter_commande`,
    # which its own lint then refused as a tool it does not have
    shop = [t for t in SHOP_IDENTITY if cfg.tools is None or t in cfg.tools]
    tie = (tiers or list(cfg.identity_tools if cfg.identity_tools is not None else shop) or [""])[0]
    checks: list[Check] = []
    notes: list[str] = []
    if said and tie:  # whether a detail came before the tie, the rulebook's identite_non_verifiee says
        checks.append(
            Check("outils", tie, Origin.CORRECTED, "the lookup that ties the order to the customer")
        )
    elif said:
        notes.append(
            "No tool of the agent is declared as tying a record to its owner (filon.toml's identity_tools): "
            "the case cannot require that lookup; declare it and draft again."
        )
    else:
        for name in dict.fromkeys([*tiers, *tellers]):
            why = "nobody identified: no record looked up, the agent asks who they are first"
            checks.append(Check("outils_interdits", name, Origin.CORRECTED, why))
    checks.append(Check("escalade", False, Origin.SUGGESTED, "a question about an order, not a hand-over"))
    note = (
        "Drafted from identite_non_verifiee: the checks require the identity lookup first (or no lookup "
        "for a customer who never said who they are); they do not copy the answer."
    )
    return checks, [note, *notes]
