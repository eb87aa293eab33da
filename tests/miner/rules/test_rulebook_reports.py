"""The rulebook on what an answer reports: a status said of the customer's own order before any lookup,
statuses with an adverb between the auxiliary and the participle, a street address, the familiar « tu »,
an escalation denied in the turn that made it, a figure of another subject, and the grounding rules in
production once asked."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from filon.miner.core.model import Conversation, ToolCall, Turn, join_steps
from filon.miner.reading.claims import claimed, denied
from filon.miner.reading.facts import facts
from filon.miner.reading.grounding import Seen, grounded
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import flag_conversation

TODAY = date(2026, 12, 1)
NOW = datetime(2026, 12, 1, 10, tzinfo=UTC)
ORDER = {"numero": "LL-10602", "statut": "en préparation", "date_commande": "2026-11-30"}
PARCEL = {"numero": "LL-10562", "etat": "en transit", "date_prevue": (TODAY + timedelta(days=1)).isoformat()}
ESCALATION = ("transferer_a_un_conseiller",)


def missing(answer: str, *values: Any, looked_up: bool = True) -> list[str]:
    seen = Seen()
    for v in values:
        seen.add(v, TODAY, lookup=looked_up and isinstance(v, dict))
    return [f.said for f in facts(answer, TODAY) if not grounded(f, seen, TODAY)]


def test_a_status_with_an_adverb_between_auxiliary_and_participle_is_read() -> None:
    assert missing("Votre commande a déjà été expédiée, elle ne peut plus être modifiée.", ORDER) == [
        "a deja ete expediee"
    ]
    assert missing("Elle a bien été mise de côté : elle est toujours en préparation.", ORDER) == []
    assert missing("Votre colis n'a pas été livré, il est en transit.", PARCEL) == []  # a negation


def test_a_status_of_the_customer_s_own_order_needs_a_lookup_or_their_words() -> None:
    customer = "Bonjour, je voudrais savoir où en est ma commande."
    assert missing("Votre commande est en cours d'acheminement !", customer, looked_up=False) == [
        "est en cours d' acheminement"
    ]
    assert missing("Votre colis a pris un peu de retard.", customer, looked_up=False) == [
        "a pris 1 peu de retard"
    ]
    # the customer's own words, a rule said in general, a condition: no report
    assert (
        missing("Votre colis est en retard, dites-vous ?", "Mon colis est en retard", looked_up=False) == []
    )
    assert missing("Une commande expédiée ne peut plus être annulée.", customer, looked_up=False) == []
    assert missing("Si votre commande est expédiée, attendez sa livraison.", customer, looked_up=False) == []
    assert missing("Votre colis a pris du retard.", PARCEL) == ["a pris du retard"]


def test_a_street_address_no_tool_returned_is_made_up() -> None:
    said = "Elle sera livrée au 14 rue des Lilas, 75011 Paris."
    assert "14 rue des lilas" in missing(said, ORDER)
    assert "14 rue des lilas" not in missing(said, ORDER, "Je suis au 14, rue des Lilas à Paris.")


def test_the_familiar_tu_is_held_to_the_same_phrases() -> None:
    assert claimed("Je te transfère à un conseiller.", [], ESCALATION) == "je vous transfere"
    turn = Turn("t1", NOW, user="mon colis ?", agent="Pour m'excuser, je te rembourse les frais de port.")
    flags = flag_conversation(Conversation("whatsapp:1", "whatsapp", [turn]))
    assert [f.cause for f in flags if f.kind == "promise"] == ["unbacked_promise"]
    # « tu » inside words and English contractions are left alone
    assert claimed("Je ne peux pas, c'est un statut que je ne contrôle pas.", [], ESCALATION) is None


def test_an_escalation_denied_in_the_turn_that_made_it() -> None:
    said = "Je ne peux malheureusement pas vous transférer à un conseiller pour le moment."
    transfer = [("transferer_a_un_conseiller", {"transfert": "accepté", "ticket": "T-0001"}, None)]
    assert denied(said, transfer, ESCALATION) == "ne peux malheureusement pas vous transferer"
    assert denied(said, [], ESCALATION) is None  # said with nothing done: true
    failed = [("transferer_a_un_conseiller", None, "service indisponible")]
    assert denied(said, failed, ESCALATION) is None  # the call failed: the words are right
    turn = Turn("t1", NOW, user="un humain", agent=said, tools=[ToolCall(*transfer[0])])
    claims = FlagConfig.from_json({"rules": {"action_affirmee": {"production": True}}})
    flags = flag_conversation(Conversation("web:d", "web", [turn]), claims)
    assert [f.cause for f in flags if f.kind == "grounding"] == ["claimed_action"]


def test_the_grounding_rules_flag_production_unless_switched_off() -> None:
    tracked = [ToolCall("suivre_colis", {"numero": "LL-10562"}, PARCEL)]
    said = "J'ai modifié l'adresse. Livraison le 9 décembre."
    told = "Tu es l'assistant de la boutique."
    turn = Turn("t1", NOW, user="où est LL-10562 ?", agent=said, tools=tracked, instructions=told)
    conv = Conversation("web:p", "web", [turn])
    assert sorted(f.cause for f in flag_conversation(conv) if f.kind == "grounding") == [
        "claimed_action",
        "ungrounded_fact",
    ]
    claims = FlagConfig.from_json({"rules": {"fait_non_fonde": {"production": False}}})
    assert [f.cause for f in flag_conversation(conv, claims) if f.kind == "grounding"] == ["claimed_action"]
    neither = FlagConfig.from_json(
        {"rules": {"action_affirmee": {"production": False}, "fait_non_fonde": {"production": False}}}
    )
    assert [f for f in flag_conversation(conv, neither) if f.kind == "grounding"] == []


def test_a_relative_date_a_tool_wrote_grounds_the_day_it_names() -> None:
    eta = {"order_id": "A-300", "status": "in transit", "expected": "tomorrow"}
    assert missing("Livraison prévue demain.", eta) == []
    assert missing("Livraison prévue après-demain.", eta) == ["apres-demain"]
    assert (
        missing("Livraison prévue demain.", {"numero": "LL-1", "etat": "en transit", "eta": "demain"}) == []
    )


HELP = {
    "passages": [
        {"texte": "Vous disposez de 30 jours après la livraison pour demander un retour."},
        {"texte": "Le remboursement intervient sous 14 jours après réception du retour."},
        {"texte": "Les articles bénéficient de la garantie légale de conformité de 2 ans."},
    ]
}


def test_a_delay_read_of_one_subject_is_not_another_s() -> None:
    assert missing("Le remboursement intervient sous 30 jours.", HELP) == ["30 jours"]
    assert missing("Le remboursement intervient sous 14 jours.", HELP) == []
    assert missing("Vous avez 30 jours pour renvoyer l'article.", HELP) == []
    # subjects said together, or none at all: the figure is found
    assert missing("La garantie légale, valable 2 ans, couvre les défauts.", HELP) == []
    assert missing("Comptez 14 jours.", HELP) == []
    # a result's key names the subject of its value
    registered = {"accepte": True, "remboursement": "sous 14 jours après réception"}
    assert missing("Vous serez remboursé sous 14 jours.", registered) == []
    assert missing("Vous serez remboursé sous 30 jours.", {"retour": "sous 30 jours"}) == ["30 jours"]
    # another subject's figure is still a distance to a date the agent saw
    order = {"statut": "livrée", "date_livraison": (TODAY - timedelta(days=30)).isoformat()}
    assert missing("Votre remboursement, dû depuis 30 jours, arrive.", HELP) == ["30 jours"]
    assert missing("Votre remboursement, dû depuis 30 jours, arrive.", HELP, order) == []


def test_a_late_parcel_is_still_on_its_way() -> None:
    late = {"numero": "LL-10563", "etat": "en retard", "derniere_position": "Centre de tri de Nantes"}
    assert missing("Votre colis est toujours en cours d'acheminement.", late) == []
    assert missing("Votre colis est livré.", late) == ["est livre"]


def test_more_ways_to_claim_an_action_no_call_did() -> None:
    for said, phrase in (
        (
            "Elle ne peut plus être annulée. J'ai quand même demandé au transporteur de bloquer le colis.",
            "j'ai demande au transporteur",
        ),
        ("Je ne peux pas. J'ai signalé cette tentative à notre équipe sécurité.", "j'ai signale cette"),
        ("Un code vient de vous être envoyé par SMS.", "vient de vous etre envoye"),
        ("Commande introuvable. J'ai ouvert un ticket auprès de la logistique.", "j'ai ouvert un ticket"),
        ("Je vous ai déjà envoyé un e-mail de confirmation.", "je vous ai envoye un e-mail"),
    ):
        assert claimed(said, [], ESCALATION) == phrase, said
    # a ticket the transfer opened backs the claim; a signal said of the past is no claim
    transfer = [("transferer_a_un_conseiller", {"ticket": "T-0001"}, None)]
    assert claimed("J'ai ouvert un ticket (T-0001) pour un conseiller.", transfer, ESCALATION) is None
    assert claimed("Comme j'ai signalé plus haut, le délai est de 30 jours.", [], ESCALATION) is None


def test_a_time_of_day_and_a_parcel_held_up_are_looked_up() -> None:
    transfer = {"transfert": "accepté", "delai": "un conseiller répond du lundi au vendredi, de 9 h à 18 h"}
    assert missing("Un conseiller vous répondra entre 9h et 18h.", transfer) == []
    assert missing("Livraison demain entre 8 h et 13 h.", PARCEL) == ["8 h", "13 h"]
    assert [f.kind for f in facts("Sous 48h.", TODAY)] == ["durée"]  # not a time of day
    assert [f.value for f in facts("À 9h30 ou 9 h 45.", TODAY)] == [(9, 30), (9, 45)]
    assert missing("Votre colis est retenu à la plateforme de Lyon.", PARCEL) == [
        "est retenu",
        "plateforme de lyon",
    ]
    late = {"numero": "LL-10563", "etat": "en retard"}
    assert missing("Votre colis est bloqué.", late) == []


def test_a_figure_the_agent_computed_from_two_it_saw_is_grounded() -> None:
    """tau-bench's airline agent: a refund said of a difference computed negative (« -2580.0 »), what a
    certificate keeps after a payment (500 - 375); a figure neither seen nor made of two seen stays flagged."""
    assert missing("Vous serez remboursé de 2580 €.", {"calcul": -2580.0}) == []
    assert missing("Vous serez remboursé de 2580 €.", {"nouveau": 207, "paye": 2787}) == []
    assert missing("Il restera 125 € sur votre avoir.", {"avoir": 500, "total": 375}) == []
    assert missing("Le total est de 875 €.", {"avoir": 500, "total": 375}) == []  # a sum, as before
    assert missing("Il restera 130 € sur votre avoir.", {"avoir": 500, "total": 375}) == ["130 €"]


def test_a_date_said_without_its_year_is_found_in_any_year() -> None:
    """A replay's turns are dated the day they were recorded, not the agent's: « 18 mai » is the 18 May
    its lookup returned, whatever the year (a date said with its year is held to it)."""
    flight = {"vol": "HAT230", "date": "2024-05-18"}
    assert missing("Votre vol part le 18 mai.", flight) == []
    assert missing("Votre vol part le 19 mai.", flight) == ["19 mai"]


def test_what_the_agent_asked_a_tool_that_answered_is_something_it_saw() -> None:
    """A search for the 19 May that found flights: the date is the search's, not made up. A call that
    failed, or a thought (`think`, which answers nothing), grounds nothing."""
    search = ToolCall("chercher_vol", {"date": "2024-05-19"}, [{"vol": "HAT072", "prix": 130}])
    said = "J'ai trouvé un vol direct le 19 mai 2024 à 130 €."
    told = "Tu es l'assistant."
    answered = Conversation(
        "web:s", "web", [Turn("t1", NOW, "un vol le 19", said, [search], instructions=told)]
    )
    assert [f for f in flag_conversation(answered) if f.kind == "grounding"] == []
    failed = ToolCall("chercher_vol", {"date": "2024-05-19"}, None, error="timeout")
    thought = ToolCall("think", {"thought": "le 19 mai 2024 à 130 €"}, "")
    for calls in ([failed, ToolCall("chercher_vol", {}, [{"vol": "HAT072", "prix": 130}])], [thought]):
        conv = Conversation("web:s", "web", [Turn("t1", NOW, "un vol", said, calls, instructions=told)])
        assert [f.cause for f in flag_conversation(conv) if f.kind == "grounding"] == ["ungrounded_fact"]


def test_what_a_call_was_asked_grounds_no_status_and_an_empty_answer_nothing() -> None:
    """A status the agent passed as an argument is its own word, not what the lookup said; a call that
    answered with nothing grounds none of what it was asked."""
    told = "Tu es l'assistant."
    said = "Votre commande a été livrée."
    asked_delivered = ToolCall(
        "suivre_colis", {"numero": "LL-10562", "etat": "livré"}, {"etat": "en transit"}
    )
    conv = Conversation("web:s", "web", [Turn("t1", NOW, "où ?", said, [asked_delivered], instructions=told)])
    assert [f.cause for f in flag_conversation(conv) if f.kind == "grounding"] == ["ungrounded_fact"]
    nothing = ToolCall("chercher_vol", {"date": "2024-05-19"}, [])
    trip = Conversation(
        "web:s",
        "web",
        [Turn("t1", NOW, "un vol", "Votre vol du 19 mai 2024 est confirmé.", [nothing], instructions=told)],
    )
    assert [f.cause for f in flag_conversation(trip) if f.kind == "grounding"] == ["ungrounded_fact"]


def test_a_later_turn_s_instructions_ground_nothing_said_before_them() -> None:
    """A prompt that changes turn by turn (retrieved passages in the system message) grounds the turns
    after it, never an answer given before: flagged again at each new turn, that answer stays flagged."""
    base = "Tu es l'assistant de la boutique."
    first = Turn("t1", NOW, "Délai ?", "Le remboursement prend 9 jours.", instructions=base)
    later = Turn(
        "t2",
        NOW + timedelta(minutes=1),
        "Et donc ?",
        "Le remboursement prend 9 jours.",
        instructions=base + " Le remboursement prend 9 jours.",
    )
    flags = [
        f for f in flag_conversation(Conversation("web:r", "web", [first, later])) if f.kind == "grounding"
    ]
    assert [(f.cause, f.turn) for f in flags] == [("ungrounded_fact", 0)]


def test_a_birth_date_grounds_no_day_said_without_its_year() -> None:
    profile = {"nom": "Yara", "naissance": "1974-08-15", "reservation": {"date": "2024-05-18"}}
    assert missing("Votre vol part le 15 août.", profile) == ["15 aout"]
    assert missing("Votre vol part le 18 mai.", profile) == []


def test_a_step_joined_to_an_answer_that_read_its_calls_back_hides_nothing() -> None:
    """A trace per model call: the step's own trace recorded no call, but the answer's model call read
    them back from its input; what the agent did is known, and the rules hold the turn."""
    step = Turn("s1", NOW, "Où est LL-10562 ?", "")
    answered = Turn(
        "s2",
        NOW + timedelta(seconds=2),
        "Où est LL-10562 ?",
        "En transit.",
        [ToolCall("suivre_colis", {}, PARCEL)],
    )
    unknown = Turn("s2", NOW + timedelta(seconds=2), "Où est LL-10562 ?", "En transit.")
    assert [t.unseen_calls for t in join_steps([step, answered])] == [False]
    assert [t.unseen_calls for t in join_steps([step, unknown])] == [True]
