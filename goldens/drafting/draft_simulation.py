"""A multi-turn production conversation drafted into a `simulation` case, for the reviewer to edit.

The customer's turns say who they are and what they wanted; a simulated customer replaying them can
follow an agent that asks a question back, where the fixed turns of the original could not. The draft
is a starting point: the persona says what the customer gave (order numbers, e-mails, already redacted
by `draft_case`) and how they wrote; the objective quotes their first request. The reviewer rewrites
both in the editor (`e` on the simulation line).
"""

from __future__ import annotations

import re

from filon.goldens.checks.matching import ORDER
from filon.goldens.drafting.check import Check, Origin
from filon.goldens.drafting.draft import Draft
from filon.miner.reading.emails import emails
from filon.miner.reading.language import language

TERSE = re.compile(r"\b(?:bjr|slt|svp|stp|tjrs|pk|pcq|jsp|jsuis|cc|mrc|dsl)\b", re.I)
EXTRA_TURNS = 2  # the simulated customer may need a turn or two more than the original


_ID = re.compile(r"\b(?=[\w-]*\d)[A-Za-z0-9][\w-]{3,}\b")


def persona(turns: list[str]) -> str:
    said = " ".join(turns)
    orders = list(dict.fromkeys(ORDER.findall(said)))
    mails = list(dict.fromkeys(m.group(0) for m in emails(said)))
    ids = [i for i in dict.fromkeys(_ID.findall(said)) if i not in orders and not any(i in m for m in mails)]
    if language(turns) == "en":
        facts = [*orders, *mails, *ids]
        known = f" Over the conversation they gave: {', '.join(facts)}." if facts else ""
        return (
            f"A customer of the service.{known} They write simply, and give what they know only when asked."
        )
    facts = [f"la commande {o}" for o in orders] + [f"l'adresse e-mail {e}" for e in mails] + ids
    style = "Il écrit court, en abrégé" if TERSE.search(said) else "Il écrit simplement"
    known = f" Il a donné au fil de la conversation : {', '.join(facts)}." if facts else ""
    return f"Un client de la boutique.{known} {style}, et ne donne ce qu'il sait que si on le lui demande."


def objective(turns: list[str]) -> str:
    first = next((t for t in turns if len(t.split()) > 3), turns[0] if turns else "")
    if language(turns) == "en":
        return f"Get their request done: « {first.strip()} »"
    return f"Obtenir une réponse complète à sa demande : « {first.strip()} »"


def as_simulation(draft: Draft) -> Draft:
    """The draft with a `simulation` check (persona, objective, first message, turn budget) in place of
    its fixed turns; its action checks stay: they apply to the whole simulated conversation (its per-turn
    checks go: a simulated customer's turns are not the original's)."""
    turns = [t for t in draft.tours if t.strip()]
    if not turns:
        return draft
    value = {
        "persona": persona(turns),
        "objectif": objective(turns),
        "premier_message": turns[0],
        "max_tours": min(20, len(turns) + EXTRA_TURNS),
    }
    why = "drafted from the customer's turns: rewrite the persona and the objective (e)"
    draft.checks = [c for c in draft.checks if c.field != "par_tour"]  # its turns are not fixed
    draft.checks.append(Check("simulation", value, Origin.SUGGESTED, why))
    draft.tours = [turns[0]]
    draft.notes = (draft.notes + "\n" if draft.notes else "") + (
        f"Simulation drafted from a conversation of {len(turns)} customer turns: "
        + " / ".join(f"« {t} »" for t in turns)
    )
    return draft
