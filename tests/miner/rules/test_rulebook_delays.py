"""The rulebook on delays and days: what a delay counts from, the lower bound of a range, two clauses
joined by « puis », a result's key naming its value's subject before its tool does, « aujourd'hui », « ce
soir », « dans l'heure » and « 24 h » read as facts, an order shipped grounding a parcel on its way, and
a forwarding claimed with a pronoun."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from filon.miner.reading.claims import claimed
from filon.miner.reading.facts import facts
from filon.miner.reading.grounding import Seen, grounded

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
    # counted from now is counted from the request (table M: « sous 14 jours à compter d'aujourd'hui »)
    assert missing("Vous serez remboursé sous 14 jours à compter d'aujourd'hui.", FAQ) == ["14 jours"]
    assert missing("Le remboursement arrive sous 14 jours à partir de maintenant.", FAQ) == ["14 jours"]
    # a return's result says « après réception », what is received unsaid: a return or a delivery, never now
    registered = {"retour": "R-00001", "remboursement": "sous 14 jours après réception"}
    now = "Vous serez remboursé sous 14 jours à compter d'aujourd'hui."
    assert missing(now, registered, about="demander_retour") == ["14 jours"]
    received = "Vous serez remboursé sous 14 jours après réception de votre retour."
    assert missing(received, registered, about="demander_retour") == []


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
    # the return arrived, in other words (table O's good answer failed on it)
    said = "Dès que votre colis retour nous est parvenu, comptez 14 jours au maximum pour le remboursement."
    assert missing(said, FAQ) == []


PARCEL_TOMORROW = {
    "numero": "LL-10569",
    "etat": "en transit",
    "date_prevue": (TODAY + timedelta(days=1)).isoformat(),
}


def test_a_day_denied_in_a_condition_or_asked_about_is_not_stated() -> None:
    for said in (
        "Non, votre colis ne sera pas livré aujourd'hui : sa livraison est prévue demain.",
        "Si votre colis n'arrive pas aujourd'hui, pas d'inquiétude : il est prévu demain.",
        "Puis-je vous aider pour autre chose concernant votre livraison aujourd'hui ?",
        "Vous pouvez déposer votre colis dès aujourd'hui en point relais.",
        "Nos conseillers ne pourront donc pas vous rappeler ce soir.",
    ):
        assert missing(said, PARCEL_TOMORROW, lookup=True) == [], said
    # a lookup's own « aujourd'hui » grounds the day
    assert (
        missing(
            "Il sera livré aujourd'hui.",
            {"etat": "en transit", "livraison": "prévue aujourd'hui"},
            lookup=True,
        )
        == []
    )


def test_no_range_from_an_order_number_nor_a_delay_from_round_the_clock() -> None:
    late = {"numero": "LL-10563", "etat": "en retard", "retard_jours": 3}
    assert missing("Votre commande LL-10563 a 3 jours de retard.", late, {"texte": "3 jours de retard"}) == []
    assert [
        f for f in facts("Votre commande LL-10563 a 3 jours de retard.", TODAY) if "10563" in f.said
    ] == []
    assert facts("L'assistant répond 24h/24 et 7j/7.", TODAY) == []
    assert facts("Joignable d'ici l'heure de fermeture.", TODAY) == []
    assert missing("Un conseiller vous rappelle dans l'heure.", {"delai": "rappel dans l'heure"}) == []


def test_what_is_received_says_what_a_delay_counts_from() -> None:
    for said in (
        "Vous disposez de 30 jours après réception pour nous retourner l'article.",
        "Vous avez 30 jours à compter de la réception pour renvoyer un article.",
        "Sous 14 jours à compter de la réception du colis retour.",
        "Vous serez remboursé 14 jours après réception du retour et non dès la livraison.",
        "Remboursé sous 14 jours après réception de votre commande retournée.",
    ):
        assert missing(said, FAQ) == [], said
    for said in (
        "Remboursé dans les 14 jours suivant la réception de votre demande.",
        "Remboursé sous 14 jours dès votre demande.",
    ):
        assert missing(said, FAQ) == ["14 jours"], said


def test_a_delay_counted_from_another_event_may_still_be_a_distance_to_a_date_seen() -> None:
    delivered = {"statut": "livrée", "date_livraison": (TODAY - timedelta(days=14)).isoformat()}
    said = "Vous nous contactez 14 jours après la livraison : vous êtes dans le délai de 30 jours."
    assert missing(said, FAQ, delivered, lookup=True) == []


def test_the_return_received_is_no_subject_in_what_the_agent_read_either() -> None:
    assert missing("Vous avez 14 jours pour nous renvoyer l'article.", FAQ) == ["14 jours"]


def test_a_parcel_not_yet_handed_over_is_not_on_its_way() -> None:
    order = {"numero": "LL-10589", "statut": "expédiée"}
    label = {"numero": "LL-10589", "etat": "en préparation"}
    assert missing("Votre colis est en cours d'acheminement.", order, label, lookup=True) == [
        "est en cours d' acheminement"
    ]


def test_a_forwarding_a_return_s_call_did_is_no_claim_a_bare_one_is() -> None:
    escalation = ("transferer_a_un_conseiller",)
    registered = [("demander_retour", {"accepte": True, "retour": "R-00001"}, None)]
    said = "J'ai transmis la demande de retour : l'étiquette vous arrive par e-mail."
    assert claimed(said, registered, escalation) is None
    assert claimed(said, [], escalation) == "j'ai transmis"
    assert claimed("Nous avons transmis votre demande à un conseiller.", [], escalation) is not None


def test_a_figure_said_again_from_another_event_is_held_again() -> None:
    said = "Le remboursement intervient sous 14 jours. Ces 14 jours courent à compter de votre demande."
    assert missing(said, FAQ) == ["14 jours"]
    assert missing("Remboursé sous 14 jours, oui : 14 jours.", FAQ) == []


def test_an_adverb_after_a_pronoun_s_auxiliary_is_still_a_claim() -> None:
    said = "Je les ai bien transmises à l'équipe technique."
    assert claimed(said, [], ("transferer_a_un_conseiller",)) == "je les ai transmis"


def test_a_result_read_again_is_read_by_what_it_holds_not_by_which_object_it_is() -> None:
    """What the agent saw is kept per value (ingest reads a live conversation again with each new turn):
    the same result read again grounds the same facts; the same object changed since (a late span merged
    into its turn) is read as it now is; a status, a figure and the key's subject all follow it."""
    today = date(2026, 12, 5)
    result: dict[str, Any] = {"statut": "expédiée", "remboursement": "sous 14 jours", "total": 59.9}
    first, again = Seen(), Seen()
    first.add(result, today, lookup=True, about="consulter_commande")
    again.add(result, today, lookup=True, about="consulter_commande")
    assert (again.statuses, again.numbers, again.said_with_unit, again.text) == (
        first.statuses,
        first.numbers,
        first.said_with_unit,
        first.text,
    )
    assert first.statuses == {"expediee"} and 59.9 in (first.numbers or set())
    assert first.said_with_unit == {(14, "jour"): {"remboursement"}}
    result.update({"statut": "livrée", "total": 64.9, "retour": "sous 30 jours"})
    changed = Seen()
    changed.add(result, today, lookup=True, about="consulter_commande")
    assert changed.statuses == {"livree"} and 64.9 in (changed.numbers or set())
    assert (30, "jour") in changed.said_with_unit and "livree" in changed.text
    asked = Seen()  # what the agent asked a call: its figures, never a status
    asked.add(result, today, about="consulter_commande", asked=True)
    assert asked.statuses is None and 64.9 in (asked.numbers or set())


def test_values_that_write_the_same_json_are_not_read_as_one() -> None:
    """What orjson writes alike is not kept as one: NaN and the infinities (written `null`, read as
    figures), and a date object (written as a string, which the agent's reading of strings would read)."""
    today = date(2026, 12, 5)
    infinite, none = Seen(), Seen()
    infinite.add({"total": float("inf")}, today)
    none.add({"total": None}, today)
    assert infinite.numbers == {float("inf")} and none.numbers == set()
    as_date, as_text = Seen(), Seen()
    as_date.add({"livraison": date(2026, 12, 8)}, today)
    as_text.add({"livraison": "2026-12-08"}, today)
    assert as_date.dates == set() and as_text.dates == {date(2026, 12, 8)}
