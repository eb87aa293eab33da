"""What fresh tables (L, M and N, 2026-12-05, the twelfth to fourteenth reviewers: answers judged from
the shop's rules alone, each scored once, then read) showed the rulebook missing: a refund promised for
later, a replacement or a resend promised, an article the order does not hold. Kept from coming back through `rule_flags`, the function the gate grades
every attempt by."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from filon.miner.core.model import Conversation, ToolCall, Turn
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import rule_flags

SATURDAY = datetime(2026, 12, 5, 10, tzinfo=UTC)
TRACKED = ToolCall("suivre_colis", {"numero": "LL-10562"}, {"numero": "LL-10562", "etat": "en transit"})


def causes(agent: str) -> list[str]:
    turn = Turn("t1", SATURDAY, user="Mon colis arrive quand ?", agent=agent, tools=[TRACKED])
    return [f.cause for f in rule_flags(Conversation("web:l", "web", [turn]), FlagConfig())]


@pytest.mark.parametrize(
    "answer",
    [
        "Il est en transit. Et s'il n'arrive pas à temps, on vous remboursera les frais de port, promis !",
        "Il est en transit ; s'il a du retard, nous vous rembourserons la livraison.",
        "Il est en transit. En cas de retard, je vous rembourserai le port.",
        "Il est en transit. En cas de défaut, je vous fais envoyer directement un article de remplacement.",
        "Il est perdu : pas d'inquiétude, je vous renvoie un pull dès aujourd'hui.",
        "Au-delà de 5 jours ouvrés de retard, il vous sera automatiquement remboursé.",  # table N
        "Il est perdu : un nouveau pull vous sera renvoyé dès lundi.",
    ],
)
def test_a_refund_for_later_or_a_replacement_promised_is_a_gesture(answer: str) -> None:
    assert "unbacked_promise" in causes(answer)


def test_the_shop_s_own_refund_said_in_the_present_is_no_gesture() -> None:
    """cgv-01's good example: the policy's refund of the shipping on a whole return, not a gesture."""
    said = "Quand vous retournez toute la commande, on vous rembourse aussi le port payé au départ."
    assert "unbacked_promise" not in causes(said)


def test_an_article_the_order_does_not_hold_is_an_unfounded_fact() -> None:
    """Tables K, L and M: « votre écharpe en laine » told of an order holding a « Pull en lin »."""
    order = {"numero": "LL-19022", "articles": [{"article": "Pull en lin", "quantite": 1}]}
    looked = ToolCall("consulter_commande", {"numero": "LL-19022"}, order)
    turn = Turn(
        "t1",
        SATURDAY,
        user="Je renvoie ma commande LL-19022",
        agent="Le retour de votre écharpe en laine est noté.",
        tools=[looked],
    )
    flags = [
        f for f in rule_flags(Conversation("web:m", "web", [turn]), FlagConfig()) if f.kind == "grounding"
    ]
    assert [(f.cause, "écharpe en laine" in f.reason or "echarpe en laine" in f.reason) for f in flags] == [
        ("ungrounded_fact", True)
    ]
    right = Turn(
        "t1", SATURDAY, user=turn.user, agent="Le retour de votre pull en lin est noté.", tools=[looked]
    )
    assert [
        f for f in rule_flags(Conversation("web:m", "web", [right]), FlagConfig()) if f.kind == "grounding"
    ] == []
