"""French intent detection for the scripted model: keyword lists over folded text, typos included.

The injection phrases overlap filon's own patterns (`miner/rules/config.py`) on purpose and are kept apart:
the stand-in plays the model under observation, and filon must not read its judgement from it.
"""

from __future__ import annotations

import re

from filon.agent.scripted.keywords import (
    ASKS_ACTION,
    CARE_QUESTION,
    CHANGE,
    DAMAGE,
    FAQ,
    GREETING,
    HUMAN,
    INJECTION,
    LOST,
    MONEY,
    QUESTION,
    RECEIVED,
    RETURN,
    TRACKING,
    WAITING,
)
from filon.agent.text import fold

ORDER = re.compile(
    r"\bLL[-\s]?(\d{5})\b|(?<![\d,.])(1\d{4})\b(?!\s+(?-i:[A-Z]))|\b(?-i:(?!LL-)([A-Z]{2,4}-\d{3,6}))\b",
    re.IGNORECASE,
)  # "la 10571" too; another shop's numbers ("PP-2001") as they are
EMAIL = re.compile(
    r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}"
)  # bounded: linear on hostile input


def has(text: str, keywords: tuple[str, ...]) -> bool:
    folded = f" {fold(text)} "
    return any(k in folded for k in keywords)


def order_numbers(text: str) -> list[str]:
    return [other or f"LL-{a or b}" for a, b, other in ORDER.findall(text)]


def emails(text: str) -> list[str]:
    return [e.lower() for e in EMAIL.findall(text)]


def asks_rule(text: str) -> bool:
    """A question about what is allowed, not a request to act on it."""
    folded = fold(text)
    if has(
        text,
        ("juste savoir", "me renseigne", "ne lancez", "n'enregistrez", "pas tout de suite", "ne faites rien"),
    ):
        return True
    return has(text, QUESTION) and not ASKS_ACTION.search(folded)


def waits_refund(text: str) -> bool:
    """A refund that has not arrived: money words, and waiting or asking when."""
    return (
        has(text, MONEY)
        and has(text, WAITING)
        and has(text, ("renvoye", "retour", "retourne", "rembours", "recupere"))
    )


def intent(text: str) -> str:
    """The first matching intent: injection, human, damage, change, refund, return, tracking, order, faq…"""
    text = re.sub(r"changer d.avis", "renoncer", text, flags=re.IGNORECASE)  # not a change to the order
    if has(text, INJECTION):
        return "injection"
    if has(text, HUMAN):
        return "human"
    numbered = bool(order_numbers(text))
    if numbered and has(text, LOST):
        return "tracking"  # a parcel said lost or never arrived: track it, then a conseiller decides
    if has(text, DAMAGE) and (numbered or (has(text, RECEIVED) and not has(text, CARE_QUESTION))):
        return "damage"
    if numbered and has(text, CHANGE):
        return "change"
    if numbered and waits_refund(text) and not ASKS_ACTION.search(fold(text)):
        return "refund"
    if numbered and has(text, RETURN):
        about = next((c for c in clauses(text) if has(c, RETURN)), text)  # the clause about the return
        return "return_question" if asks_rule(about) else "return"
    if numbered and has(text, TRACKING):
        return "tracking"
    if numbered:
        return "order"
    if (
        has(text, RETURN)
        and ASKS_ACTION.search(fold(text))
        and not asks_rule(text)
        and not has(text, QUESTION)
    ):
        return (
            "needs_order"  # « je voudrais retourner une chemise »: a return to register, its order to ask for
        )
    if has(text, FAQ) or (has(text, RETURN) and asks_rule(text)):
        return "faq"
    if has(text, CHANGE) or has(text, RETURN) or has(text, TRACKING) or has(text, ("commande",)):
        return "needs_order"
    if has(text, GREETING):
        return "greeting"
    return "other"


CLAUSES = re.compile(
    r"\?|[.!]\s|\n|,\s*et\b|\bet (?:est-ce que|est ce que|aussi|si|sinon)\b|\bet (?=\w+-vous\b)|\baussi\b|\bau passage\b|\bautre question\b",
    re.IGNORECASE,
)


def policy_clause(text: str) -> str | None:
    """In a message of several requests, the clause that is a policy question (no order number), if any."""
    parts = [p.strip() for p in CLAUSES.split(text) if p and p.strip()]
    if len(parts) < 2:
        return None
    return next((p for p in parts if not order_numbers(p) and intent(p) == "faq"), None)


def clauses(text: str) -> list[str]:
    return [p.strip() for p in CLAUSES.split(text) if p and p.strip()]


def clause_intents(text: str) -> list[tuple[str, str]]:
    """Each clause of a message with its own intent, for messages that ask two things."""
    parts = [p.strip() for p in CLAUSES.split(text) if p and p.strip()]
    return [(p, intent(p)) for p in parts] if len(parts) > 1 else []
