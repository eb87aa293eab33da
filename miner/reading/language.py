"""Which language a conversation is in, to read its facts and claims: French (the default) or English.

Counted on the agent's answers (the customer's words break a tie: a customer writing English to a French
agent does not make its answers English), by the small words each language cannot do without; a tie, or
no word known, is French. Per conversation, not per turn: a turn of « ok » or an order number does not
switch the reading of the agent's answer.
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


def language(texts: Iterable[str], tie: Iterable[str] = ()) -> str:
    """ "en" when the texts hold more English small words than French ones, else "fr"; on a tie, the
    `tie` texts decide (the agent's answers first, the customer's words only to break a tie)."""
    en, fr = _counts(texts)
    if en == fr:
        en, fr = _counts(tie)
    return "en" if en > fr else "fr"


def _counts(texts: Iterable[str]) -> tuple[int, int]:
    en = fr = 0
    for text in texts:
        words = _WORD.findall(text.lower())
        en += sum(map(_EN.__contains__, words))  # counted in C, not a Python step per word
        fr += sum(map(_FR.__contains__, words))
    return en, fr
