"""Which language a conversation is in, to read its facts and claims: French (the default) or English.

Counted on the conversation's own words (the customer's and the agent's), by the small words each language
cannot do without; a tie, or no word known, is French. Per conversation, not per turn: a customer who
writes « ok » or an order number in a turn does not switch the reading of the agent's answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"[a-zà-ÿ']+")
_EN = frozenset(
    [
        "the",
        "and",
        "you",
        "your",
        "is",
        "are",
        "to",
        "of",
        "for",
        "it",
        "my",
        "we",
        "our",
        "please",
        "thanks",
        "thank",
        "hello",
        "hi",
        "where",
        "when",
        "what",
        "can",
        "could",
        "would",
        "will",
        "has",
        "have",
        "been",
        "this",
        "that",
        "with",
        "order",
        "days",
        "there",
        "here",
        "do",
        "does",
        "did",
        "not",
    ]
)
_FR = frozenset(
    [
        "le",
        "la",
        "les",
        "et",
        "vous",
        "votre",
        "est",
        "sont",
        "de",
        "du",
        "des",
        "pour",
        "mon",
        "ma",
        "mes",
        "nous",
        "notre",
        "merci",
        "bonjour",
        "où",
        "quand",
        "que",
        "qui",
        "avec",
        "sur",
        "dans",
        "je",
        "il",
        "elle",
        "une",
        "un",
        "pas",
        "commande",
        "jours",
        "ce",
        "cette",
    ]
)


def language(texts: Iterable[str]) -> str:
    """ "en" when the texts hold more English small words than French ones, else "fr"."""
    en = fr = 0
    for text in texts:
        for word in _WORD.findall(text.lower()):
            en += word in _EN
            fr += word in _FR
    return "en" if en > fr else "fr"
