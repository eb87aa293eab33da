"""A customer who corrects the agent: « actually, I wanted… », « that's not what I asked », « en fait… ».

The one signal of a misunderstanding that any agent's spans carry without a setting: the customer's own
words after an answer. An agent that booked the wrong flight or looked up the wrong order is most often
told so on the next turn, before anyone files an incident. On tau-bench's airline (tasks 0-24, a
development figure), 15 of the 17 trials where the customer said so were judged wrong by the benchmark.

A customer's first message corrects nothing (it describes their problem: « I made a mistake in my
booking »), and a bare « wrong » or « erreur » names the customer's problem as often as the agent's, so
only phrases addressed to what was said before count.
"""

from __future__ import annotations

import re

from filon.miner.core.causes import cause
from filon.miner.core.messages import said
from filon.miner.core.model import Conversation, Flag
from filon.miner.core.severity import FlagKind, Severity
from filon.miner.reading.text import fold

CUSTOMER_CORRECTED = cause(
    "customer_corrected",
    FlagKind.FEEDBACK,
    Severity.MEDIUM,
    (
        "the customer corrected the agent (« actually », « that's not what I asked », « en fait »): it "
        "misunderstood, or acted on the wrong record (on tau-bench's airline, 15 of the 17 trials so were "
        "wrong)"
    ),
)


_CORRECTS = re.compile(
    r"\b(?:actually|that'?s not (?:what|right|correct|it)|that is not (?:what|right|correct)"
    r"|not what i (?:asked|wanted|said|meant|need)|you(?:'ve| have)? (?:got|made) (?:it|that|a mistake|an error)"
    r"|(?:that'?s|it'?s|is|are|was) (?:wrong|incorrect)|i (?:said|meant|asked for|wanted|didn'?t ask|did not ask)"
    r"|confus\w*|no,? no"
    r"|en fait|ce n'est pas (?:ce que|ca|le bon|la bonne)|c'est pas (?:ca|ce que)|pas ce que j'ai"
    r"|je vous ai (?:dit|demande)|j'ai (?:dit|demande)|j'avais (?:dit|demande)|je voulais"
    r"|vous vous (?:trompez|etes trompe)|vous avez fait (?:une )?erreur)\b"
)


def correction(text: str) -> str | None:
    """The words by which `text` corrects what was said before it, or None."""
    found = _CORRECTS.search(fold(text))
    return found.group(0) if found else None


def corrected(conv: Conversation) -> list[Flag]:
    """`customer_corrected` on each turn after the first whose customer text corrects the agent."""
    out = []
    for i, t in enumerate(conv.turns):
        words = correction(t.user) if i and t.user else None
        if words is not None:
            out.append(
                Flag.of(
                    CUSTOMER_CORRECTED,
                    i,
                    said("flag.corrected", words=said("flag.quoted", words=words)),
                    t.trace_id,
                )
            )
    return out
