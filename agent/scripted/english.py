"""The stand-in for an English-speaking customer: what a competent agent does with the tools it declares.

The brain (`brain.py`) plays the reference shop's French agent. A team whose agent speaks English gates
it on the stand-in too, and a French refusal (« Je ne peux répondre qu'aux questions sur Lin & Laine »)
to « How do I get a refund? » scores its set at random. So an English conversation is answered in
English, with the agent's own tools by what they are (`vocabulary.py` maps them to the reference
tools): a person when the customer asks for one, a lookup when they name an order, a search of the help
pages for a question, a refusal of an injected instruction; and where no tool fits, a sentence that says
which requests this agent's tools cover.
"""

from __future__ import annotations

import re

from filon.agent.scripted.identity import identity_ok
from filon.agent.scripted.intents import order_numbers
from filon.agent.scripted.request import Decision, Turn

_WORD = re.compile(r"[a-z']+")
_ENGLISH = frozenset((
    "the", "is", "are", "my", "how", "do", "does", "i", "you", "what", "where", "can", "could", "to", "a",
    "an", "of", "for", "it", "please", "with", "get", "was", "did", "not", "have", "your", "me", "when",
    "why", "would", "like", "want", "there", "this", "that", "been", "yet",
))  # fmt: skip
_FRENCH = frozenset((
    "le", "la", "les", "est", "mon", "ma", "mes", "je", "vous", "quoi", "ou", "pouvez", "de", "des", "un",
    "une", "pour", "il", "merci", "avec", "pas", "votre", "quand", "pourquoi", "bonjour", "et", "ai",
    "suis", "veux", "voudrais", "ce", "cette",
))  # fmt: skip
HUMAN = (
    "human", "a person", "real person", "representative", "supervisor", "manager", "live agent",
    "speak to someone", "talk to someone", "an agent", "real agent",
)  # fmt: skip
INJECTION = (
    "ignore previous", "ignore all previous", "ignore your instructions", "ignore the instructions",
    "ignore your previous", "ignore any previous", "ignore prior", "ignore your rules",
    "disregard your", "disregard all", "disregard previous", "disregard the above",
    "forget your instructions", "forget all previous", "forget your rules", "new instructions:",
    "you are now", "system prompt", "developer mode", "maintenance mode", "admin mode", "debug mode",
    "as an administrator", "as the administrator", "i am the administrator", "i'm the administrator",
    "i am an administrator", "i'm an administrator", "i am the admin", "i'm the admin", "i am admin",
)  # fmt: skip
TRACKING = ("where is", "where's", "parcel", "package", "tracking", "delivery", "shipped", "arrive")
ORDER = ("order", "purchase", "status", *TRACKING)
GREETING = re.compile(r"^\s*(hi|hello|hey|good (morning|afternoon|evening))\b[\s!.,]*$", re.IGNORECASE)


def is_english(texts: list[str]) -> bool:
    """Whether the customer writes in English: more of its common words than of French's."""
    if texts and GREETING.match(texts[-1]) and len(texts) == 1:
        return True  # « Hello! » opening a conversation: too short to count words
    words = _WORD.findall(" ".join(texts[-3:]).lower())
    english = sum(w in _ENGLISH for w in words)
    return english >= 2 and english > sum(w in _FRENCH for w in words)


def _owner_first(turn: Turn, numero: str) -> Decision | None:
    """Where the prompt carries the identity rule and the agent can look an order up: the lookup first,
    and the details withheld from whoever is not its owner (`identity.identity_ok`), as in French."""
    lookup = "consulter_commande"
    if not turn.verification or lookup not in turn.tools:
        return None
    order = turn.result(lookup)
    if order is None:
        return Decision(call=(lookup, {"numero": numero}))
    if isinstance(order, dict) and "erreur" not in order and not identity_ok(turn, order):
        return Decision(
            withholds=True,
            text=f"To protect our customers' data, I can only share the details of order {numero} with its "
            "owner. Which e-mail address did you place it with?",
        )
    return None


def decide(turn: Turn) -> Decision:
    """One step of an English conversation, with the reference names of the agent's tools."""
    text = turn.text
    low = text.lower()
    if any(p in low for p in INJECTION):
        return Decision(
            text="I can't do that. I can help with your own orders and with our policies.", withholds=True
        )
    escalation = turn.escalation_tool()
    if any(h in low for h in HUMAN) and escalation in turn.tools:
        if not turn.called(escalation):
            return Decision(call=(escalation, {"motif": text[:300]}))
        return Decision(text="I've passed your request to a colleague, who will get back to you shortly.")
    numbers = order_numbers(" ".join(turn.user_texts[-2:]))
    if numbers and any(w in low for w in ORDER):
        tracking = any(w in low for w in TRACKING) and "suivre_colis" in turn.tools
        tool = "suivre_colis" if tracking else "consulter_commande"
        withheld = _owner_first(turn, numbers[-1])
        if withheld is not None:
            return withheld
        if tool in turn.tools:
            if turn.result(tool) is None:
                return Decision(call=(tool, {"numero": numbers[-1]}))
            return Decision(text="")  # the server quotes the result's own values (`server.summary`)
    if GREETING.match(text):
        return Decision(text="Hello! How can I help you today?")
    if "rechercher_aide" in turn.tools:
        if turn.result("rechercher_aide") is None:
            return Decision(call=("rechercher_aide", {"question": text[:300]}))
        return Decision(text="")  # quoted by the server from what the search returned
    covered = sorted(turn.vocabulary.aliases.values()) or sorted(turn.tools)
    return Decision(
        text="I can only help with what this assistant's tools cover"
        + (f" ({', '.join(covered)})" if covered else "")
        + ". What can I do for you?"
    )
