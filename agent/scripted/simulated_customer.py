"""The stand-in simulated customer: a `generateContent` request whose response schema asks for
`objectif_atteint` gets the customer's next message from rules, not from a model.

It answers what the agent asks with what the persona says (an e-mail, an order number), and judges the
objective reached when the agent's last answer, not a question, carries most of the objective's words and
every one of its figures. It invents nothing: a persona without an e-mail never gives one. Deterministic,
and a stand-in: it says nothing of how a real model would play the customer.
"""

from __future__ import annotations

import re
from typing import Any

from filon.agent.scripted.embeddings import features
from filon.agent.scripted.structured import asks_for, data, system_text
from filon.agent.text import fold

WHO = re.compile(r"Qui tu es : (.*)")
GOAL = re.compile(r"Ce que tu veux obtenir : (.*)")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
ORDER = re.compile(r"\b[A-Z]{2,3}-\d{4,6}\b")
COVERAGE = 0.6
DONE = re.compile(
    r"c'est fait|c'est (?:bien )?(?:enregistre|note|pris en compte)|(?:est|a (?:bien )?ete) (?:bien )?enregistre"
)
# what an objective says of wanting, not of what is wanted: never asked of the answer (stems, as `features`)
INTENT = frozenset(
    {
        "savoir",
        "connait",
        "obtenir",
        "fair",
        "avoir",
        "voulo",
        "voudrai",
        "souhait",
        "etat",
        "statut",
        "quand",
        "comment",
    }
)


def is_customer_request(body: dict[str, Any]) -> bool:
    return asks_for(body, "objectif_atteint")


def reached(objective: str, answer: str) -> bool:
    """Not a question, every figure of the objective in it, and most of its words, or word that it is
    done (« c'est fait », « est enregistré »)."""
    wanted = {k: v for k, v in features(objective).items() if k not in INTENT}
    said = features(answer)
    if not wanted or "?" in answer:
        return False
    figures = [k for k in wanted if k.startswith("#")]
    words = [k for k in wanted if not k.startswith("#")]
    covered = sum(1 for k in words if k in said) / max(1, len(words))
    done = DONE.search(fold(answer)) is not None
    return all(f in said for f in figures) and (covered >= COVERAGE or done)


THIRD = {"sa": "ma", "son": "mon", "ses": "mes"}


def first_person(objective: str) -> str:
    """The objective as the customer says it: « le colis de sa commande » → « le colis de ma commande »."""
    text = objective[:1].lower() + objective[1:]
    return re.sub(r"\b(sa|son|ses)\b", lambda m: THIRD[m.group(1)], text)


def next_message(persona: str, objective: str, turns: list[dict[str, str]]) -> dict[str, Any]:
    last = next((t.get("texte", "") for t in reversed(turns) if t.get("role") == "agent"), "")
    if last and reached(objective, last):
        return {"message": "Merci beaucoup, c'est parfait.", "objectif_atteint": True}
    # only a question asks: an answer that mentions the e-mail (« vous recevrez par e-mail ») does not
    asked, said = (fold(last) if "?" in last else ""), []
    emails, orders = EMAIL.findall(persona), ORDER.findall(persona)
    if orders and re.search(r"numero de (?:la )?commande|quelle commande|\bll-1x", asked):
        said.append(f"C'est la commande {orders[0]}.")
    if emails and re.search(r"e-?mail|adresse (?:electronique|mail)", asked):
        said.append(f"Mon adresse e-mail est {emails[0]}.")
    if not said:  # nothing asked that the persona knows: the objective again (it gives nothing unasked)
        said.append(f"Je voudrais {first_person(objective).rstrip('.')}.")
    return {"message": " ".join(said), "objectif_atteint": False}


def _line(pattern: re.Pattern[str], text: str) -> str:
    found = pattern.search(text)
    return found.group(1).strip() if found else ""


def customer(body: dict[str, Any]) -> dict[str, Any]:
    system = system_text(body)
    persona, objective = _line(WHO, system), _line(GOAL, system)
    turns = data(body)
    return next_message(persona, objective.strip() or "de l'aide", turns if isinstance(turns, list) else [])
