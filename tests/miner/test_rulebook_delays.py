"""The rulebook on delays and days: what a delay counts from, the lower bound of a range, two clauses
joined by « puis », a result's key naming its value's subject before its tool does, « aujourd'hui », « ce
soir », « dans l'heure » and « 24 h » read as facts, an order shipped grounding a parcel on its way, and
a forwarding claimed with a pronoun."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from miner.claims import claimed
from miner.facts import facts
from miner.grounding import Seen, grounded

TODAY = date(2026, 12, 3)
FAQ = {
    "passages": [
        {"texte": "Vous disposez de 30 jours après la livraison pour demander un retour."},
        {"texte": "Le remboursement intervient sous 14 jours après réception du retour."},
        {
            "texte": "Une commande est préparée sous 1 à 2 jours ouvrés, puis livrée en 2 à 4 jours ouvrés "
            "par Colissimo, Chronopost ou Mondial Relay."
        },
    ]
}


def missing(answer: str, *values: Any, about: str = "", lookup: bool = False) -> list[str]:
    seen = Seen()
    for v in values:
        seen.add(v, TODAY, lookup=lookup, about=about)
    return [f.said for f in facts(answer, TODAY) if not grounded(f, seen, TODAY)]


def test_a_delay_counts_from_what_the_agent_read_it_counts_from() -> None:
    assert missing("Vous serez remboursé sous 14 jours après réception de votre retour.", FAQ) == []
    assert missing("Vous serez remboursé dans les 14 jours suivant votre demande de retour.", FAQ) == [
        "14 jours"
    ]
    assert missing("Remboursement sous 14 jours à compter de la livraison.", FAQ) == ["14 jours"]
    assert missing("Vous avez 30 jours à compter de la livraison.", FAQ) == []
    assert missing("Vous avez 30 jours après réception du colis retourné.", FAQ) == ["30 jours"]
    # « réception du colis » may be the parcel delivered or the return received: no anchor either way
    assert missing("Remboursé sous 14 jours suivant la réception du colis.", FAQ) == []
    # a delay that names no start is looked up as before
    assert missing("Remboursé sous 14 jours.", FAQ) == []


def test_a_range_s_lower_bound_and_clauses_joined_by_puis() -> None:
    assert missing("Elle vous sera livrée sous 1 à 2 jours ouvrés.", FAQ) == ["1 a 2 jours"]
    assert missing("Préparée en 1 à 2 jours, puis livrée en 2 à 4 jours.", FAQ) == []
    # the shipment ends the preparation: « expédiée 1 à 2 jours après la commande » is the same delay
    assert missing("L'expédition a lieu 1 à 2 jours ouvrés après la commande.", FAQ) == []
    assert missing("Livrée en 5 à 6 jours ouvrés.", FAQ) == ["6 jours", "5 a 6 jours"]


def test_a_result_s_key_names_its_value_s_subject_before_its_tool() -> None:
    registered = {"retour": "R-00001", "remboursement": "sous 14 jours après réception"}
    said = "Vous avez 14 jours pour nous renvoyer l'article."
    assert missing(said, registered, about="demander_retour") == ["14 jours"]
    assert missing("Remboursé sous 14 jours.", registered, about="demander_retour") == []
    # a key that names no subject leaves it to the tool's name
    assert missing(said, {"delai": "14 jours"}, about="demander_retour") == []


def test_today_tonight_within_the_hour_and_whole_days_in_hours_are_facts() -> None:
    parcel = {"etat": "en transit", "date_prevue": (TODAY + timedelta(days=1)).isoformat()}
    assert missing("Votre colis sera livré aujourd'hui.", parcel, lookup=True) == ["aujourd' hui"]
    assert missing("Votre colis sera livré demain.", parcel, lookup=True) == []
    assert (
        missing("Votre colis arrive aujourd'hui.", {"etat": "en transit", "date_prevue": TODAY.isoformat()})
        == []
    )
    assert facts("Que puis-je faire pour vous aujourd'hui ?", TODAY) == []
    assert missing("Un conseiller vous rappelle d'ici ce soir.", {"transfert": "accepté"}) == [
        "d' ici ce soir"
    ]
    assert missing("Un conseiller vous rappelle dans l'heure.", {"transfert": "accepté"}) == ["dans l' heure"]
    assert missing("Vous n'avez que 24 h pour la modifier.", FAQ) == ["24 h"]
    assert missing("Réponse sous 24 h.", {"delai": "sous 24 h"}) == []


def test_an_order_shipped_grounds_a_parcel_on_its_way_unless_it_arrived() -> None:
    order = {"numero": "LL-10580", "statut": "expédiée"}
    assert missing("Votre commande est en cours d'acheminement.", order, lookup=True) == []
    delivered = {"numero": "LL-10580", "etat": "livré"}
    assert missing("Votre commande est en cours d'acheminement.", order, delivered, lookup=True) == [
        "est en cours d' acheminement"
    ]
    assert missing("Votre commande est livrée.", order, lookup=True) == ["est livree"]


def test_a_forwarding_claimed_with_a_pronoun() -> None:
    escalation = ("transferer_a_un_conseiller",)
    said = "Je ne peux pas les afficher, mais je les ai transmises à l'équipe technique."
    assert claimed(said, [], escalation) == "je les ai transmis"
    assert claimed(said, [("transferer_a_un_conseiller", {"ticket": "T-0001"}, None)], escalation) is None
    assert claimed("Je ne les ai pas transmises.", [], escalation) is None


def test_the_order_received_is_the_order_delivered() -> None:
    assert missing("30 jours après la réception de votre commande.", FAQ) == []
    assert missing("Remboursé sous 14 jours après la réception de votre commande.", FAQ) == ["14 jours"]


def test_the_return_received_is_when_a_refund_runs_from_not_what_it_is_about() -> None:
    registered = {"retour": "R-00001", "remboursement": "sous 14 jours après réception"}
    said = "Une fois votre retour reçu, comptez 14 jours."
    assert missing(said, registered, about="demander_retour") == []
    # after the figure, its subject is read up to the next comma
    said = "Vous aurez 30 jours pour le faire, et serez remboursé sous 14 jours après réception du retour."
    assert missing(said, FAQ) == []
