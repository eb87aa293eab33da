"""A rule an answer states without a figure (« l'étiquette de retour est gratuite », "exchanges are free"),
held to what the agent read and to its own help texts (`miner/reading/policy.py`, raised as `fait_non_fonde`):
an invented fee, an extended rule, a condition nobody wrote are caught; a rule read in a search, or the
shop's own rule said from memory, is not."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from filon.miner.core.model import Conversation, ToolCall, Turn
from filon.miner.reading.policy import stated
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import rule_flags

NOW = datetime(2026, 12, 5, tzinfo=UTC)
SHOP = FlagConfig()  # the reference shop: its FAQ and CGV state its rules
STRICT = FlagConfig(policy_sources=[])  # only what the agent read grounds a rule
FAQ_LABEL = {"passages": [{"source": "faq", "texte": "L'étiquette de retour est gratuite."}]}


def ungrounded(agent: str, *calls: ToolCall, cfg: FlagConfig = SHOP) -> list[str]:
    conv = Conversation(
        "c", "web", [Turn("t1", NOW, user="Une question sur les retours.", agent=agent, tools=list(calls))]
    )
    return [f.reason for f in rule_flags(conv, cfg) if f.cause == "ungrounded_fact"]


def test_a_fee_nobody_wrote_is_flagged_as_a_rule() -> None:
    (reason,) = ungrounded("Attention : l'étiquette de retour est payante, à vos frais.")
    assert "(rule)" in reason and "payante" in reason


def test_a_rule_extended_to_what_the_help_texts_do_not_cover_is_flagged() -> None:
    # the shop's texts say nothing of an exchange being free
    assert ungrounded("L'échange de taille est gratuit et sans limite de délai.")


def test_a_rule_a_search_returned_is_grounded_even_for_a_strict_agent() -> None:
    search = ToolCall("rechercher_aide", {"question": "étiquette"}, FAQ_LABEL)
    assert ungrounded("Votre étiquette de retour, elle, ne vous coûte rien.", search, cfg=STRICT) == []


def test_the_shops_own_rule_said_from_memory_passes_where_its_texts_say_it() -> None:
    answer = "Pour le retour, rien à craindre : l'étiquette de retour est gratuite."
    assert ungrounded(answer) == []
    assert ungrounded(answer, cfg=STRICT), "with no help texts declared, the rule must have been read"


def test_a_result_key_names_what_its_value_says() -> None:
    done = ToolCall("demander_retour", {"numero": "LL-10001"}, {"accepte": True, "etiquette": "gratuite"})
    assert (
        ungrounded("C'est enregistré : l'étiquette, gratuite, vous arrive par e-mail.", done, cfg=STRICT)
        == []
    )


def test_questions_conditions_and_fees_with_their_amount_are_left_to_other_checks() -> None:
    assert stated("souhaitez-vous un echange gratuit ?") == []
    assert stated("si l'article est solde, le retour est exclu") == []
    assert stated("la livraison vous a ete facturee 3,90 €") == []
    assert stated("le retour est gratuit") == [(frozenset({"retour"}), "gratuit", "le retour est gratuit")]


def test_english_rules_are_read_too() -> None:
    assert ungrounded("Good news: exchanges are free of charge.", cfg=STRICT)


def test_policy_sources_name_existing_folders(tmp_path: Path) -> None:
    (tmp_path / "filon.toml").write_text('policy_sources = ["regles"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="policy_sources: no such folder"):
        FlagConfig.load(tmp_path)
    (tmp_path / "regles").mkdir()
    (tmp_path / "regles" / "faq.md").write_text("Les échanges sont gratuits.\n", encoding="utf-8")
    cfg = FlagConfig.load(tmp_path)
    assert cfg.policy_folders() == [str((tmp_path / "regles").resolve())]
    assert ungrounded("L'échange est gratuit.", cfg=cfg) == []


def test_a_restriction_of_the_warranty_nobody_wrote_is_flagged() -> None:
    # the CGV's article 11 gives the legal warranty with no condition of care
    (reason,) = ungrounded(
        "Vous avez la garantie légale de 2 ans, mais la garantie ne s'applique qu'aux articles lavés à froid."
    )
    assert "(rule)" in reason and "ne s'applique qu" in reason


def test_a_self_service_change_the_shop_never_offers_is_flagged() -> None:
    # the FAQ: an order « en préparation » is changed or cancelled by a conseiller
    assert ungrounded(
        "Elle est encore en préparation : vous pouvez la modifier vous-même depuis votre espace client."
    )


def test_a_self_service_the_agent_read_is_grounded() -> None:
    read = {
        "passages": [
            {
                "source": "faq",
                "texte": "Vous pouvez annuler vous-même votre commande depuis votre espace client.",
            }
        ]
    }
    search = ToolCall("rechercher_aide", {"question": "annuler"}, read)
    assert ungrounded("Vous pouvez l'annuler vous-même depuis votre espace client.", search, cfg=STRICT) == []


GIFT_CARDS = {
    "passages": [
        {
            "source": "faq",
            "texte": "Oui, des cartes cadeaux de 20 € à 200 €, valables un an, utilisables "
            "en une ou plusieurs fois.",
        }
    ]
}
ASKED_CARDS = "Proposez-vous des cartes cadeaux ?"


def _on_cards(agent: str) -> list[str]:
    searched = ToolCall("rechercher_aide", {"question": "cartes cadeaux"}, GIFT_CARDS)
    conv = Conversation("c", "web", [Turn("t1", NOW, user=ASKED_CARDS, agent=agent, tools=[searched])])
    return [f.reason for f in rule_flags(conv, SHOP) if f.cause == "ungrounded_fact"]


@pytest.mark.parametrize(
    "answer",
    [
        "Oui, de 20 € à 200 €, valables un an, à utiliser en une seule fois.",  # tables E, F, G, N
        "Oui. Attention, le montant doit être utilisé en une seule fois.",
    ],
)
def test_a_single_use_the_passage_does_not_state_is_flagged_of_what_was_asked(answer: str) -> None:
    """The clause names no subject: it is of the gift cards the customer asked about, which the passage
    says can be used « en une ou plusieurs fois »."""
    (reason,) = _on_cards(answer)
    assert "une seule fois" in reason


def test_one_way_among_others_is_no_single_use() -> None:
    assert not _on_cards("Oui, valables un an, à utiliser en une seule fois ou en plusieurs.")


def test_a_rule_of_the_whole_order_stretched_to_a_part_is_flagged() -> None:
    """CGV article 7: the shipping is refunded on a return of the whole order (tables D, J, N)."""
    said = (
        "Oui, les frais de livraison initiaux vous sont remboursés, que vous retourniez toute la commande ou "
        "seulement une partie des articles."
    )
    assert any("partie" in r for r in ungrounded(said))
    assert not ungrounded(
        "Oui, les frais de livraison initiaux sont remboursés si vous retournez toute la commande."
    )


def _on_a_return(agent: str, cfg: FlagConfig = SHOP) -> list[str]:
    order = {
        "numero": "LL-19023",
        "statut": "livrée",
        "articles": [{"article": "Chemise en lin", "quantite": 1}],
    }
    calls = [
        ToolCall("consulter_commande", {"numero": "LL-19023"}, order),
        ToolCall("demander_retour", {"numero": "LL-19023"}, {"retour": "R-00001", "accepte": True}),
    ]
    conv = Conversation(
        "c",
        "web",
        [Turn("t1", NOW, user="La chemise ne me va pas, je la renvoie.", agent=agent, tools=calls)],
    )
    return [f.reason for f in rule_flags(conv, cfg) if f.cause == "ungrounded_fact"]


@pytest.mark.parametrize(
    "answer",
    [
        "Retour enregistré (R-00001). J'ai aussi noté un échange contre la taille au-dessus.",  # table F
        "Retour enregistré (R-00001). Je vous envoie dès aujourd'hui la taille au-dessus, en échange.",  # G
        "Retour enregistré. Pour ne pas vous laisser sans chemise, je vous envoie la taille au-dessus en échange.",
        "Elle ne peut plus être annulée, mais vous pouvez refuser le colis à la livraison.",  # tables B-N
    ],
)
def test_a_service_the_shop_s_texts_never_name_is_a_rule_nobody_wrote(answer: str) -> None:
    (reason,) = _on_a_return(answer)
    assert ("echange" in reason or "refuser le colis" in reason) and "(rule)" in reason


def test_a_service_refused_or_asked_about_is_no_rule() -> None:
    assert not _on_a_return("Retour enregistré (R-00001). Nous ne faisons pas d'échange : repassez commande.")
    assert not _on_a_return("Retour enregistré (R-00001). Souhaitiez-vous un échange ?")
    # the conversation itself (esc-01's good example): « il aura sous les yeux notre échange »
    assert not _on_a_return(
        "Un conseiller aura sous les yeux notre échange, vous n'aurez rien à réexpliquer."
    )
    assert not _on_a_return("Un conseiller reprendra cet échange avec vous.")


def test_another_agent_is_never_held_to_the_shop_s_texts() -> None:
    """An agent with its own tools and no writes declared: its answers' « return » or « exchange » are
    not read against the reference shop's French FAQ (it has none that filon knows)."""
    bot = FlagConfig(tools=["search_faq", "get_order", "handoff_to_human"])
    assert bot.policy_folders() == []
    assert not _on_a_return("Your return is registered, and I noted an exchange for the next size.", bot)
