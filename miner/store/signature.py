"""A conversation's failure signature: what makes two conversations one failure, read from what the store
holds, so that 200 conversations flagged after one bad deploy are one group to review, not 200.

The signature is the cause of its most urgent rule flag (a person's incident mark is not part of it: an
incident stays in its failure's group, which it puts on top), the channel, and the tools called in order
with the shape of their arguments (which arguments, never their values: `consulter_commande(numero)`;
a call made again is counted once). A conversation no rule flagged also carries its first customer message,
folded, its figures, identifiers and addresses masked: near-duplicate questions join, different intents
stay apart. Computed on ingest with the flags and stored with the conversation (`conversations.signature`),
never recomputed on a read.
"""

from __future__ import annotations

import re
from functools import lru_cache

from filon.miner.core.model import Flag, Turn
from filon.miner.reading.text import fold

OK = "ok"  # the cause part of a conversation no rule flagged
MAX = 400  # a signature is a key, indexed: long tool chains are cut
_EMAIL = re.compile(r"\S+@\S+")
_FIGURE = re.compile(r"\S*\d\S*")  # a word holding a digit: an order number, an amount, a date, a phone
_WORDS = 8
_WORD = re.compile(r"[#@\w']+|\?")


@lru_cache(maxsize=4096)
def masked(message: str) -> str:
    """A customer message as its near-duplicates share it: folded, addresses "@", figures "#", its first
    eight words (read from its first 300 characters: a long message costs no more than a short one)."""
    text = _FIGURE.sub("#", _EMAIL.sub("@", fold(message[:300])))
    words = _WORD.findall(text)
    return " ".join(words[:_WORDS])


def tool_shape(turns: list[Turn]) -> str:
    """The calls in the order they first came, each with its argument names; a call made again (in the
    same turn or a later one: a customer who writes again) counted once, so that a long conversation
    joins the short ones of its failure."""
    calls = dict.fromkeys(
        f"{call.name}({','.join(sorted(call.arguments))})" if isinstance(call.arguments, dict) else call.name
        for turn in turns
        for call in turn.tools
    )
    return " > ".join(calls)


def signature(channel: str, turns: list[Turn], flags: list[Flag]) -> str:
    """`cause · channel · tools` (and `· message` for a conversation no rule flagged)."""
    top: Flag | None = None
    for f in flags:
        if top is None or (f.priority, f.turn) < (top.priority, top.turn):
            top = f
    parts = [top.cause if top is not None and top.cause else OK, channel, tool_shape(turns) or "-"]
    if top is None:
        first = next((t.user for t in turns if t.user.strip()), "")
        parts.append(masked(first) or "-")
    whole = " · ".join(parts)
    return whole if len(whole) <= MAX else whole[: whole.rfind(" ", 0, MAX)]  # cut between words
