"""What a fresh development table (J, 2026-12-05: answers judged from the shop's rules alone, by a session
that never saw the checks) showed the rulebook missing: an agent with no tool that changes an order
offering to change one itself. Kept from coming back through `rule_flags`, the function the gate grades
every attempt by."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from filon.miner.core.model import Conversation, ToolCall, Turn
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import rule_flags

SATURDAY = datetime(2026, 12, 5, 10, tzinfo=UTC)
LOOKUP = ToolCall(
    "consulter_commande", {"numero": "LL-10602"}, {"numero": "LL-10602", "statut": "en préparation"}
)


def causes(
    agent: str, cfg: FlagConfig | None = None, user: str = "Je peux encore changer ma commande ?"
) -> list[str]:
    conv = Conversation("web:x", "web", [Turn("t1", SATURDAY, user=user, agent=agent, tools=[LOOKUP])])
    return [f.cause for f in rule_flags(conv, cfg or FlagConfig())]


@pytest.mark.parametrize(
    "offer",
    [
        "Oui, elle est en préparation. Dites-moi ce que vous souhaitez changer et je mets à jour la commande.",
        "Elle est en préparation : je peux la modifier si vous me dites quoi.",
        "It is still being prepared, so I can cancel it for you right away.",
        # the change taken on in other words, an ellipsis inside (table O, read after it was scored)
        "Oui, elle est en préparation. Dites-moi ce que vous voulez modifier (taille, adresse…) et je m'en charge.",
    ],
)
def test_a_change_offered_by_an_agent_with_no_tool_to_make_it_is_a_claimed_action(offer: str) -> None:
    assert "claimed_action" in causes(offer)


def test_an_agent_whose_tools_change_orders_may_offer_to() -> None:
    cfg = FlagConfig(write_tools=["update_order", "transferer_a_un_conseiller"])
    assert "claimed_action" not in causes(
        "Elle est en préparation : je peux la modifier si vous voulez.", cfg
    )
    listed = FlagConfig(tools=["consulter_commande", "cancel_order"])
    assert "claimed_action" not in causes("It is still being prepared, so I can cancel it for you.", listed)


@pytest.mark.parametrize(
    "answer",
    [
        "Elle est en préparation. Je ne peux pas la modifier moi-même, mais un conseiller le peut : "
        "souhaitez-vous que je vous mette en relation ?",
        "Un conseiller peut modifier une commande en préparation ; voulez-vous que je vous transfère ?",
        "D'accord, je m'en occupe. Quel est le numéro de la commande à retourner ?",  # a return, no change
    ],
)
def test_a_refusal_or_a_person_s_power_offers_nothing(answer: str) -> None:
    assert "claimed_action" not in causes(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "Vous avez payé 3,90 € de frais de port. Comme vous étiez à 4 € du seuil, je vous les fais rembourser.",
        "Je vais vous le rembourser dès aujourd'hui.",
    ],
)
def test_a_refund_promised_with_a_pronoun_between_is_a_gesture(answer: str) -> None:
    """Table J's unread half, once measured: « je vous les fais rembourser » passed every check."""
    paid = ToolCall("consulter_commande", {"numero": "LL-10568"}, {"numero": "LL-10568", "frais_port": 3.9})
    conv = Conversation(
        "web:y", "web", [Turn("t1", SATURDAY, user="J'ai payé la livraison ?", agent=answer, tools=[paid])]
    )
    assert "unbacked_promise" in [f.cause for f in rule_flags(conv, FlagConfig())]
