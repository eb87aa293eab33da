"""After a hand-over, the outcome the advisor will decide said as decided (tables A, F, G and N: eleven
escalated answers said one, every one judged wrong): the hand-over does not back it. Said as a condition,
as the advisor's choice, or as the refund a return gets on its reception, it is no promise."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from filon.miner.core.model import Conversation, ToolCall, Turn
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import rule_flags

SATURDAY = datetime(2026, 12, 5, 10, tzinfo=UTC)
HANDED = ToolCall("transferer_a_un_conseiller", {"motif": "Colis perdu"}, {"ticket": "T-0001"})


def causes(agent: str, tools: list[ToolCall] | None = None, cfg: FlagConfig | None = None) -> list[str]:
    turn = Turn(
        "t1", SATURDAY, user="Mon colis est perdu", agent=agent, tools=[HANDED] if tools is None else tools
    )
    return [f.cause for f in rule_flags(Conversation("web:d", "web", [turn]), cfg or FlagConfig())]


@pytest.mark.parametrize(
    "answer",
    [
        "J'ai transmis votre dossier à un conseiller (ticket T-0001) : vous serez remboursée des 120 € "
        "de votre plaid d'ici quelques jours.",
        "Je transfère votre dossier ; pas d'inquiétude, un nouveau pull vous sera renvoyé dès lundi.",
        "Le colis est perdu, je transfère votre dossier ; un nouveau pull vous sera expédié dès demain.",
        "Je transfère votre demande à un conseiller, qui vous remboursera les frais de port.",
        "I've passed your case to an advisor: you will be refunded within the week.",
    ],
)
def test_an_outcome_said_as_decided_after_a_hand_over_is_a_promise(answer: str) -> None:
    assert "unbacked_promise" in causes(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "Je transfère votre dossier : un conseiller décidera s'il vous sera renvoyé ou remboursé.",
        "J'ai transmis votre demande ; si le conseiller la valide, vous serez remboursée.",
        "Je vous mets en relation avec un conseiller. Une fois votre retour reçu, vous serez remboursé "
        "sous 14 jours.",
        "Je ne peux pas vous promettre que vous serez remboursé : un conseiller va étudier votre dossier.",
        "I've passed your case to an advisor, who decides whether you will be refunded.",
    ],
)
def test_the_advisor_s_decision_said_as_theirs_is_no_promise(answer: str) -> None:
    assert "unbacked_promise" not in causes(answer)


def test_a_write_of_the_agent_s_own_backs_the_outcome() -> None:
    """A cancellation the agent made itself refunds: said after it, the refund is what the write did."""
    cfg = FlagConfig(write_tools=["annuler_commande", "transferer_a_un_conseiller"])
    cancelled = ToolCall("annuler_commande", {"numero": "LL-10562"}, {"statut": "annulée"})
    said = "C'est annulé, et je transmets le reste à un conseiller : vous serez remboursé des 79 €."
    assert "unbacked_promise" not in causes(said, [cancelled, HANDED], cfg)
    assert "unbacked_promise" in causes(said, [HANDED], cfg)
