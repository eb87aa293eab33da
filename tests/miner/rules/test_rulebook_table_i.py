"""What a fresh development table (I, 2026-12-05: answers judged from the shop's rules alone, by a session
that never saw the checks) showed the rulebook missing or misreading, each kept from coming back through
`rule_flags`, the function the gate grades every attempt by, and `flag_conversation`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from filon.miner.core.model import Conversation, ToolCall, Turn
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import flag_conversation, rule_flags

SATURDAY = datetime(2026, 12, 5, 10, tzinfo=UTC)
ORDER = {"numero": "LL-10580", "statut": "expédiée", "client": {"email": "camille.martin@exemple.fr"}}


def causes(*turns: Turn, cfg: FlagConfig | None = None) -> list[tuple[int, str]]:
    conv = Conversation("web:x", "web", list(turns))
    return sorted((f.turn, f.cause) for f in rule_flags(conv, cfg or FlagConfig()))


def turn(user: str, agent: str, *calls: ToolCall) -> Turn:
    return Turn(f"t{abs(hash(user + agent)) % 10_000}", SATURDAY, user=user, agent=agent, tools=list(calls))


def test_a_status_of_the_customer_s_order_told_before_any_lookup_is_made_up(tmp_path: Path) -> None:
    # the agent's own instructions name « expédiée »: they ground no report on this customer's order
    (tmp_path / "system.md").write_text("suivre_colis pour la livraison d'une commande expédiée.\n")
    cfg = FlagConfig(sources=[str(tmp_path)])
    early = turn("Bonjour, des nouvelles de ma commande ?", "Votre commande a bien été expédiée !")
    looked = turn(
        "C'est la LL-10580, camille.martin@exemple.fr",
        "Merci, la LL-10580 est expédiée.",
        ToolCall("consulter_commande", {"numero": "LL-10580"}, ORDER),
    )
    assert causes(early, looked, cfg=cfg) == [(0, "ungrounded_fact")]
    # the customer's own words are what the agent read: « elle a été expédiée » said back is no invention
    told = turn(
        "Ma commande a été expédiée il y a une semaine, toujours rien.",
        "Votre commande a été expédiée : je regarde.",
    )
    assert causes(told, cfg=cfg) == []


def test_a_status_that_dates_a_rule_reports_nothing() -> None:
    rule = turn(
        "Combien de temps pour me rétracter ?",
        "Vous disposez de 30 jours à compter du jour où votre commande vous a été livrée.",
        ToolCall(
            "rechercher_aide",
            {"question": "rétractation"},
            {"passages": [{"texte": "30 jours après la livraison."}]},
        ),
    )
    assert causes(rule) == []


def test_the_recent_past_claims_an_action() -> None:
    claimed = turn("Je veux renvoyer mon pull.", "Je viens d'enregistrer votre demande de retour.")
    assert causes(claimed) == [(0, "claimed_action")]
    offered = turn("Je veux renvoyer mon pull.", "Je viens vous aider : quel est le numéro de commande ?")
    assert causes(offered) == []


def test_today_s_weekday_is_one_the_agent_knows() -> None:
    handed = turn(
        "Je veux parler à un conseiller.",
        "Je vous transfère. Comme nous sommes samedi, un conseiller vous répondra lundi.",
        ToolCall("transferer_a_un_conseiller", {"motif": "demande"}, {"delai": "du lundi au vendredi"}),
    )
    assert causes(handed) == []
    wrong = turn(
        "Quand arrive mon colis ?",
        "Il arrive mardi.",
        ToolCall("rechercher_aide", {"question": "délai"}, {"passages": []}),
    )
    assert causes(wrong) == [(0, "ungrounded_fact")]


def test_a_refund_the_agent_has_made_for_the_customer_is_a_gesture() -> None:
    refund = turn(
        "Combien de frais de port ai-je payés ?",
        "Vous avez payé 3,90 € ; je vous fais rembourser ces frais.",
        ToolCall("consulter_commande", {"numero": "LL-10568"}, {"frais_port": 3.9}),
    )
    assert [f.cause for f in flag_conversation(Conversation("web:y", "web", [refund]))] == [
        "unbacked_promise"
    ]
