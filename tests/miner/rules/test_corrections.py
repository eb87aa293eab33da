"""A customer who corrects the agent (`miner/rules/corrections.py`): flagged on the turn that says so, in English
and French, never on the first message, which states the customer's problem rather than answering anyone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from filon.miner.core.model import Conversation, Turn
from filon.miner.rules.flags import flag_conversation

NOW = datetime(2026, 12, 5, tzinfo=UTC)


def flags(*users: str) -> list[tuple[str, int, str]]:
    turns = [Turn(f"t{i}", NOW, user=u, agent="Here is what I found.") for i, u in enumerate(users)]
    return [(f.cause, f.turn, f.severity) for f in flag_conversation(Conversation("c", "web", turns))]


@pytest.mark.parametrize(
    "said",
    [
        "Actually, I wanted the nonstop flight to LAS, not LAX.",
        "That's not what I asked for.",
        "No, I said the 7447 card.",
        "En fait je voulais échanger, pas rembourser.",
        "Ce n’est pas la bonne commande, je vous ai dit LL-10563.",
        "Vous vous êtes trompé de colis.",
    ],
)
def test_a_correction_after_an_answer_is_flagged_medium_on_its_turn(said: str) -> None:
    assert flags("I need to change my booking.", said) == [("customer_corrected", 1, "medium")]


@pytest.mark.parametrize(
    "said",
    [
        "I made a mistake in my booking, can you help?",
        "Something went wrong with my order.",
        "Merci, c'est parfait.",
        "J'ai reçu une erreur de taille dans mon colis.",
    ],
)
def test_a_customer_s_own_problem_is_no_correction(said: str) -> None:
    assert flags("Hello.", said) == []


def test_the_first_message_corrects_nobody() -> None:
    assert flags("Actually, I wanted to ask about my refund.") == []
