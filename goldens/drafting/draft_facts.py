"""The facts a draft proposes as text checks, read from the conversation's answers: amounts with both
decimal separators, delays and statuses, in the conversation's language (French, or English: « $12.50 »,
« 5 to 8 days », « shipped »)."""

from __future__ import annotations

import re

from filon.miner.reading.language import language
from filon.miner.reading.text import fold

STATUSES = (
    "en préparation",
    "expédiée",
    "livrée",
    "annulée",
    "retournée",
    "en transit",
    "en retard",
    "perdu",
)
AMOUNT = re.compile(r"\b(\d+)[,.](\d{2})\s?€")
DELAY = re.compile(r"\b(\d+)\s+jours?\b")


def _variants(whole: str, cents: str) -> list[str]:
    return [f"{whole},{cents}", f"{whole}.{cents}"]


AMOUNT_EN = re.compile(
    r"[$£€]\s?(\d+)[.,](\d{2})\b|\b(\d+)[.,](\d{2})\s?(?:usd|dollars?|eur|euros?|gbp)\b", re.I
)
DELAY_EN = re.compile(r"\b(\d+)\s+(?:business |working )?days?\b", re.I)
STATUSES_EN = (
    "processing",
    "shipped",
    "delivered",
    "cancelled",
    "canceled",
    "returned",
    "in transit",
    "delayed",
)


def facts(answers: list[str]) -> list[list[str]]:
    """Amounts (with both decimal separators), delays and statuses found in the answers, read in the
    conversation's language (French, or English: « $12.50 », « 5 to 8 days », « shipped »)."""
    if language(answers) == "en":
        return _english_facts(" ".join(answers))
    text = " ".join(answers)
    found: list[list[str]] = []
    for whole, cents in dict.fromkeys(AMOUNT.findall(text)):
        found.append(_variants(whole, cents))
    for days in dict.fromkeys(DELAY.findall(text)):
        found.append([f"{days} jours", f"{days} jour"] if days == "1" else [f"{days} jours"])
    folded = fold(text)
    for status in STATUSES:
        if fold(status) in folded:
            found.append([status])
    return found


def _english_facts(text: str) -> list[list[str]]:
    found: list[list[str]] = []
    for m in AMOUNT_EN.finditer(text):
        whole, cents = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        found.append(_variants(whole, cents))
    for days in dict.fromkeys(DELAY_EN.findall(text)):
        found.append(
            [
                f"{days} {kind}days" if days != "1" else f"1 {kind}day"
                for kind in ("", "business ", "working ")
            ]
        )
    folded = fold(text)
    found += [[status] for status in STATUSES_EN if status in folded]
    return [group for i, group in enumerate(found) if group not in found[:i]]
