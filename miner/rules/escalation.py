"""A hand-over to a person: the costliest outcome, told apart by whether the customer asked for it."""

from __future__ import annotations

import re

from filon.miner.core.causes import cause
from filon.miner.core.messages import said
from filon.miner.core.model import Conversation, Flag
from filon.miner.core.severity import FlagKind, Severity
from filon.miner.reading.matching import by_first_letter
from filon.miner.reading.text import fold
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.registry import detector

TRANSFERRED = cause(
    "transferred",
    FlagKind.ESCALATION,
    Severity.MEDIUM,
    (
        "a customer handed to a person they did not ask for: the costliest outcome, to check, though most "
        "agents' policies send there what they may not do"
    ),
)
TRANSFER_ASKED = cause(
    "transfer_asked",
    FlagKind.ESCALATION,
    Severity.LOW,
    "a customer handed to the person they asked for: what every policy allows",
)


# the customer asks for a person: « can I speak to a human », « un conseiller svp », « a supervisor »
_ASKS_A_PERSON = re.compile(
    r"\b(?:"
    + by_first_letter(
        [
            r"human|a person|real person|someone else|somebody|supervisor|manager|representative|live agent",
            r"human agent|an agent|transfer me|humain|conseiller|une personne|quelqu'un|responsable",
        ]
    )
    + r")\b"
)


@detector("escalation", rank=30, causes=(TRANSFERRED, TRANSFER_ASKED))
def escalation(conv: Conversation, cfg: FlagConfig) -> list[Flag]:
    """A hand-over to a person: `transfer_asked` (low) when the customer asked for one in that turn or
    before, as every policy allows; `transferred` (medium) otherwise."""
    out = []
    asked = False
    for i, t in enumerate(conv.turns):
        asked = asked or _ASKS_A_PERSON.search(fold(t.user)) is not None
        if not t.tools:
            continue
        call = next((c for c in t.tools if cfg.escalates(c.name)), None)
        if call is not None:
            cause = TRANSFER_ASKED if asked else TRANSFERRED
            out.append(Flag.of(cause, i, said("flag.escalated", tool=call.name), t.trace_id))
    return out
