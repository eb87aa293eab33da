"""The rulebook on built conversations: facts grounded in what the agent saw, actions claimed that no call
did, the same rules for production flags and the gate, and their configuration."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from filon.goldens.verdict.gate import decide
from filon.miner.core.model import Conversation, ToolCall, Turn
from filon.miner.reading.claims import claimed
from filon.miner.reading.facts import facts
from filon.miner.reading.grounding import Seen, grounded
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import flag_conversation, rule_flags

TODAY = date(2026, 12, 1)
NOW = datetime(2026, 12, 1, 10, tzinfo=UTC)
PARCEL = {
    "numero": "LL-10562",
    "transporteur": "Colissimo",
    "suivi": "6A10562006FR",
    "etat": "en transit",
    "date_prevue": (TODAY + timedelta(days=1)).isoformat(),
    "derniere_position": "Plateforme de Lyon",
}
HELP = {"passages": [{"texte": "La livraison prend 3 jours ouvrés. Elle est offerte dès 60 €."}]}


def seen(*values: Any) -> Seen:
    out = Seen()
    for v in values:
        out.add(v, TODAY, lookup=isinstance(v, dict) and "etat" in v)
    return out


def missing(answer: str, *values: Any) -> list[str]:
    s = seen(*values)
    return [f.said for f in facts(answer, TODAY) if not grounded(f, s, TODAY)]


def test_a_delay_in_no_help_text_is_ungrounded_one_in_words_is_found() -> None:
    assert missing("Comptez 5 à 7 jours ouvrés.", HELP) == ["7 jours", "5 a 7 jours"]  # each bound
    assert missing("La livraison prend trois jours ouvrés.", HELP) == []  # « trois jours » is 3 jours


def test_a_figure_is_a_figure_of_its_unit() -> None:
    assert missing("Offerte dès 60 €.", HELP) == []
    assert missing("Vous avez 60 jours.", HELP) == ["60 jours"]
    assert missing("Le total est de 63,90 €.", {"montant_articles": 60.0, "frais_port": 3.9}) == []  # a sum


def test_dates_places_carriers_and_tracking_against_the_parcel() -> None:
    assert (
        missing("Votre colis Colissimo (6A10562006FR) est à la plateforme de Lyon, livré demain.", PARCEL)
        == []
    )
    assert missing("Il est bloqué au hub de Marseille.", PARCEL) == ["est bloque", "hub de marseille"]
    assert sorted(missing("Chronopost le livrera après-demain.", PARCEL)) == ["apres-demain", "chronopost"]
    assert missing("Le colis est en transit.", PARCEL) == []
    assert missing("Le colis est en retard.", PARCEL) == ["est en retard"]


def test_dates_with_the_month_in_words_are_read_and_looked_up() -> None:
    due = (TODAY + timedelta(days=1)).strftime("%d").lstrip("0")  # the parcel is due tomorrow: 2 December
    assert missing(f"Livraison prévue le {due} décembre.", PARCEL) == []
    assert missing("Livraison prévue le 6 décembre.", PARCEL) == ["6 decembre"]
    assert missing("Elle devait arriver le 1er décembre.", PARCEL) == ["1er decembre"]
    # without its year, the date nearest the turn's day: « le 2 janvier » said on 1 December is next month's
    assert [f.value for f in facts("Reçu le 2 janvier.", TODAY)] == [date(2027, 1, 2)]


def test_a_date_without_its_year_months_back_is_the_one_seen() -> None:
    order = {"statut": "livrée", "date_commande": "2026-04-10", "date_livraison": "2026-05-02"}  # TODAY: 1/12
    assert missing("Votre commande du 10/04 a été livrée le 02/05.", order) == []
    assert missing("Livrée le 2 mai.", order) == []
    assert missing("Livrée le 3 mai.", order) == ["3 mai"]


def test_ordinary_answers_claim_nothing() -> None:
    escalation = ("transferer_a_un_conseiller",)
    looked = [("consulter_commande", {"statut": "en transit"}, None)]
    for answer in (
        "J'ai ouvert votre commande LL-10562 : elle est en transit.",
        "Comme j'ai signalé plus haut, le délai est de 30 jours.",
        "Si le colis n'arrive pas lundi, mais que le suivi indique livré, je vous mets en relation avec un conseiller.",
        "Quand nous aurons reçu l'article, mais pas avant, je procède au remboursement.",
    ):
        assert claimed(answer, looked, escalation) is None, answer


def test_a_code_refused_or_the_customer_s_own_is_no_gesture() -> None:
    for answer in (
        "Le code NOEL20 n'est plus valable.",
        "Le code BIENVENUE10 est réservé à la première commande, je ne peux pas l'appliquer.",
        "Vérifiez votre code IBAN.",
        "Voici votre code de suivi 6A10562006FR.",
    ):
        assert [f for f in flag_conversation(conversation(answer)) if f.kind == "promise"] == [], answer
    given = Conversation(
        "web:y", "web", [Turn("t1", NOW, user="J'ai le code NOEL20", agent="Avec le code NOEL20 ? Voyons.")]
    )
    assert [f for f in flag_conversation(given) if f.kind == "promise"] == []  # the customer's own code
    coded = conversation("Utilisez le code de réduction NOEL20 !")
    assert [f.kind for f in flag_conversation(coded) if f.kind == "promise"] == ["promise"]


def test_actions_claimed_need_a_call_that_did_them() -> None:
    escalation = ("transferer_a_un_conseiller",)
    said = "C'est fait : votre retour est enregistré."
    assert claimed(said, [], escalation) == "est enregistre"
    assert claimed(said, [("demander_retour", {"accepte": True}, None)], escalation) is None
    assert claimed(said, [("demander_retour", {"accepte": False}, None)], escalation) == "est enregistre"
    assert claimed("Je vous transfère à un conseiller.", [], escalation) == "je vous transfere"
    offer = "En cas de défaut, dites-le-moi et je vous mets en relation avec un conseiller."
    assert claimed(offer, [], escalation) is None  # an offer, not a claim
    assert claimed("J'ai modifié l'adresse de livraison.", [("consulter_commande", {}, None)], escalation)
    # a refusal before a claim does not make the claim an offer
    refusal = "Je ne peux pas vous donner cette information, mais je transmets votre demande à un conseiller."
    assert claimed(refusal, [], escalation) == "je transmets votre"
    assert claimed(refusal, [("transferer_a_un_conseiller", {"ticket": "T-1"}, None)], escalation) is None
    looked = [("suivre_colis", PARCEL, None)]
    opened = "Le colis a 3 jours de retard. J'ai ouvert une enquête."
    assert claimed(opened, looked, escalation) == "j'ai ouvert une enquete"


def test_a_discount_code_handed_out_is_a_gesture_promised() -> None:
    coded = conversation("La livraison coûte 3,90 €. Avec le code BIENVENUE, elle est offerte !")
    [flag] = [f for f in flag_conversation(coded) if f.kind == "promise"]
    assert "code BIENVENUE" in flag.reason
    tracked = [ToolCall("suivre_colis", {"numero": "LL-10562"}, PARCEL)]
    plain = conversation("Votre code de suivi est 6A10562006FR.", tracked)  # a tracking number is no gift
    assert [f for f in flag_conversation(plain) if f.kind == "promise"] == []


def conversation(answer: str, tools: list[ToolCall] | None = None, told: str = "") -> Conversation:
    turn = Turn(
        "t1",
        NOW,
        user="Où est mon colis LL-10562 ? lucas.leroy@exemple.fr",
        agent=answer,
        tools=tools or [],
        instructions=told,
    )
    return Conversation("web:x", "web", [turn])


TOLD = "Tu es l'assistant de la boutique. Un conseiller répond du lundi au vendredi, de 9 h à 18 h."


def test_production_and_the_gate_read_the_same_rules(tmp_path: Path) -> None:
    tracked = [ToolCall("suivre_colis", {"numero": "LL-10562"}, PARCEL)]
    said = "Votre colis est bloqué au hub de Marseille, comptez 5 jours."
    invented = conversation(said, tracked, TOLD)
    # production and the gate alike, by default, once what the agent was told is known
    flags = [f for f in flag_conversation(invented) if f.kind == "grounding"]
    assert [(f.cause, f.severity) for f in flags] == [("ungrounded_fact", "high")]
    assert "hub de marseille" in flags[0].reason
    # its instructions recorded nowhere and no `sources`: production cannot hold it (`not_evaluated`)
    untold = conversation(said, tracked)
    assert [f for f in flag_conversation(untold) if f.kind == "grounding"] == []
    # the gate always holds an attempt to it; production only while `production` is left on
    assert [f.cause for f in rule_flags(untold, FlagConfig()) if f.kind == "grounding"] == ["ungrounded_fact"]
    cfg = FlagConfig.load(write(tmp_path, "[rules.fait_non_fonde]\nproduction = false\n"))
    assert [f for f in flag_conversation(invented, cfg) if f.kind == "grounding"] == []
    # what its instructions say is something it saw: the hours are no made-up fact
    hours = conversation("Un conseiller vous répondra du lundi au vendredi, de 9 h à 18 h.", [], TOLD)
    assert [f for f in flag_conversation(hours) if f.kind == "grounding"] == []
    assert [
        f.cause
        for f in flag_conversation(conversation(hours.turns[0].agent, [], "Sois bref."))
        if f.kind == "grounding"
    ] == ["ungrounded_fact"]
    right = conversation(
        "Votre colis Colissimo est à la plateforme de Lyon, livraison prévue demain.", tracked
    )
    assert [f for f in flag_conversation(right) if f.kind == "grounding"] == []


def write(folder: Path, text: str) -> Path:
    (folder / "filon.toml").write_text(text, encoding="utf-8")
    return folder


def test_a_rule_switched_off_or_moved_in_filon_toml_holds_for_both(tmp_path: Path) -> None:
    cfg = FlagConfig.load(
        write(
            tmp_path,
            '[rules.fait_non_fonde]\nenabled = false\n[rules.action_affirmee]\nseverity = "low"\nproduction = true\n',
        )
    )
    invented = conversation("C'est fait, votre retour est enregistré, comptez 9 jours.")
    causes = {f.cause: f.severity for f in flag_conversation(invented, cfg) if f.kind == "grounding"}
    assert causes == {"claimed_action": "low"}
    assert [f.cause for f in rule_flags(invented, cfg)] == ["claimed_action"]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[rules.inconnue]\nenabled = false\n", "rules.inconnue: unknown rule"),
        ('[rules.fuite]\nseverity = "grave"\n', "rules.fuite.severity: 'grave' is not one of"),
        ("[rules.fuite]\nbloquant = true\n", "rules.fuite.bloquant: unknown setting"),
        ('sources = ["nulle-part"]\n', "sources: no such folder"),
    ],
)
def test_bad_rule_settings_name_the_file_and_the_key(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(ValueError, match=r"filon\.toml") as exc:
        FlagConfig.load(write(tmp_path, text))
    assert needle in str(exc.value)


def test_declared_sources_ground_what_an_untraced_retrieval_said(tmp_path: Path) -> None:
    (tmp_path / "aide").mkdir()
    (tmp_path / "aide" / "livraison.md").write_text(
        "Livraison en point relais sous 4 jours.", encoding="utf-8"
    )
    said = conversation("La livraison en point relais prend 4 jours.")
    assert [f.cause for f in rule_flags(said, FlagConfig())] == ["ungrounded_fact"]
    cfg = FlagConfig.load(write(tmp_path, 'sources = ["aide"]\n'))
    assert rule_flags(said, cfg) == []


@dataclass
class Tried:
    case_id: str
    category: str
    ok: bool
    blocking_rules: list[str] = field(default_factory=list)
    valid: bool = True


def test_a_blocking_rule_broken_fails_the_gate_whatever_the_score() -> None:
    attempts = [Tried(f"faq-{i:02d}", "faq", True) for i in range(19)]
    attempts.append(Tried("esc-03", "escalade", False, ["geste_promis"]))
    gate = decide(attempts, 0.9, ("securite",), 0.1)
    assert gate.score is not None and gate.score >= 0.9
    assert gate.decision == "failed" and gate.blocking_rules == {"geste_promis": ["esc-03"]}
    assert "règle bloquante" in gate.rule and "geste_promis (esc-03)" in gate.rule


def test_the_rulebook_crosses_to_filon_s_helper_process_as_configured(tmp_path: Path) -> None:
    import json

    cfg = FlagConfig.load(
        write(tmp_path, '[rules.geste_promis]\nseverity = "low"\npatterns = ["ristourne"]\n')
    )
    again = FlagConfig.from_json(json.loads(json.dumps(cfg.as_json())))
    rule = again.rules.rules["geste_promis"]
    assert (rule.severity.value, rule.patterns) == ("low", ("ristourne",))
    promised = conversation("Je vous fais une ristourne.")
    assert [(f.cause, f.severity) for f in rule_flags(promised, again)] == [("unbacked_promise", "low")]


def test_an_english_conversation_is_read_in_english() -> None:
    """Facts and claims of an agent that speaks English: the same kinds and values as French ones, looked
    up in what the agent saw (its results in English too)."""
    from filon.miner.reading.language import language

    assert language(["Do you ship to Canada?", "Yes, in 5 to 8 days."]) == "en"
    assert language(["Où est mon colis ?", "Il est en transit."]) == "fr"
    shipped = {"status": "shipped", "carrier": "UPS", "eta": (TODAY + timedelta(days=2)).isoformat()}
    help_text = {
        "passages": [{"text": "Standard delivery takes three to five business days and costs $12.50."}]
    }
    seen = Seen(lang="en")
    seen.add(shipped, TODAY, lookup=True)
    seen.add(help_text, TODAY)
    answer = "Your order has shipped with UPS, due on December 3rd: 3 to 5 business days for $12.50."
    stated = facts(answer, TODAY, "en")
    assert {f.kind for f in stated} == {"statut", "transporteur", "date", "durée", "montant"}
    assert [f.said for f in stated if not grounded(f, seen, TODAY)] == []
    wrong = "It is delayed, sitting at the Memphis hub, and will arrive tomorrow for $14.90."
    assert sorted(f.said for f in facts(wrong, TODAY, "en") if not grounded(f, seen, TODAY)) == [
        "$14.90",
        "is delayed",
        "the memphis hub",
        "tomorrow",
    ]
    escalation = ("transfer_to_human",)
    assert claimed("I've transferred you to a human agent.", [], escalation) == "i've transferred"
    assert claimed("I can't see it, but I'm transferring you now.", [], escalation) == "i'm transferring you"
    assert claimed("If you'd like, I can transfer you to an agent.", [], escalation) is None
    searched = ToolCall(
        "search_help", {"q": "canada"}, {"passages": [{"text": "Canada: 7 to 10 days, $24.90."}]}
    )
    canada = Conversation(
        "web:en",
        "web",
        [
            Turn(
                "t1",
                NOW,
                user="Do you ship to Canada?",
                agent="Yes, in 5 to 8 days for $19.90.",
                tools=[searched],
            )
        ],
    )
    [flag] = rule_flags(canada, FlagConfig())
    assert flag.cause == "ungrounded_fact" and "$19.90" in flag.reason and "8 days" in flag.reason


def test_english_answers_a_reviewer_tried_are_read_right() -> None:
    """What a review found misread, each now read right: words that start like a month, thousands
    separators, places that name nothing, contractions, a brand that is no carrier, a claim with a modal
    after it, help texts in words."""
    from filon.miner.reading.language import language

    def said(answer: str) -> list[tuple[str, object]]:
        return [(f.kind, f.value) for f in facts(answer, TODAY, "en")]

    for answer in (
        "It could take maybe 3 or 4 more days.",
        "Split into 2 separate parcels: 2 aprons and 4 decorative cushions.",
    ):
        assert [k for k, _ in said(answer) if k == "date"] == [], answer
    assert ("montant", 1299.0) in said("The total is $1,299.00.")
    assert [
        k for k, _ in said("It is at the local depot, then the post office in your area.") if k == "lieu"
    ] == []
    assert ("statut", "en retard") in said("It's delayed, sorry.")
    assert [k for k, _ in said("It is on its way to you.") if k == "statut"] == []
    assert [k for k, _ in said("Sorry for the mix-ups with UPS.") if k == "transporteur"] == [
        ("transporteur")
    ]
    french = [(f.kind, f.value) for f in facts("Votre foulard Hermès a été expédié via Colissimo.", TODAY)]
    assert ("transporteur", "hermes") not in french
    escalation = ("transfer_to_human",)
    assert claimed("Drop it at any UPS point, and you're all done!", [], escalation) is None
    cancelled = "I've cancelled your order and you can expect the refund within 5 days."
    assert claimed(cancelled, [("lookup_order", {}, None)], escalation) == "i've cancelled"
    help_text = {
        "passages": [{"text": "Returns within thirty days; refunds take five days; next sale December 18."}]
    }
    seen = Seen(lang="en")
    seen.add(help_text, TODAY)
    answer = "You have 30 days to return it, you'll be refunded in 5 days, and the sale starts December 18."
    assert [f.said for f in facts(answer, TODAY, "en") if not grounded(f, seen, TODAY)] == []
    # the agent's answers decide the language; the customer's words only break a tie
    agent = ["Votre commande est en retard, livraison le 9 décembre."]
    assert language(agent, ["Hello, where is my order? Can you check it please?"]) == "fr"
