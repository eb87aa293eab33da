"""The rulebook on answers a reviewer wrote against the first reading of subjects, times, addresses and
statuses: correct answers it must not flag, and lies it must not let through."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from filon.miner.reading.claims import claimed, denied
from filon.miner.reading.facts import facts
from filon.miner.reading.grounding import Seen, grounded
from filon.miner.reading.text import formal

TODAY = date(2026, 12, 2)
ESCALATION = ("transferer_a_un_conseiller",)
TRANSFER = [("transferer_a_un_conseiller", {"transfert": "accepté", "ticket": "T-0001"}, None)]


def missing(answer: str, *results: tuple[str, Any], customer: str = "") -> list[str]:
    """The facts of the answer found nowhere, the results given as (tool, result)."""
    seen = Seen()
    seen.add(customer, TODAY)
    for tool, result in results:
        seen.add(result, TODAY, lookup=tool in ("consulter_commande", "suivre_colis"), about=tool)
    return [f.said for f in facts(answer, TODAY) if not grounded(f, seen, TODAY)]


def test_a_delay_read_in_a_tool_s_result_is_of_the_tool_s_subject() -> None:
    refused = (
        "demander_retour",
        {"accepte": False, "raison": "livrée il y a 40 jours, au-delà du délai de 30 jours"},
    )
    said = "Le délai de retour de 30 jours est dépassé : votre commande a été livrée il y a 40 jours."
    assert missing(said, refused) == []
    accepted = ("demander_retour", {"accepte": True, "remboursement": "sous 14 jours après réception"})
    assert missing("Une fois votre retour reçu, comptez 14 jours.", accepted) == []
    # a subject named after the figure counts where none is before it
    help_ = ("rechercher_aide", {"passages": [{"texte": "Vous disposez de 30 jours pour un retour."}]})
    assert missing("Comptez 30 jours pour le remboursement.", help_) == ["30 jours"]


def test_a_length_of_time_is_no_time_of_day_and_clock_times_are_read() -> None:
    help_ = ("rechercher_aide", {"passages": [{"texte": "Un conseiller rappelle sous 2 heures."}]})
    assert missing("Un conseiller vous rappellera sous 2 h.", help_) == []
    slot = ("suivre_colis", {"etat": "en transit", "creneau": "08:00-13:00"})
    assert missing("Livraison entre 8 h et 13 h.", slot) == []
    stamp = ("suivre_colis", {"etat": "en transit", "passage": "2026-12-02T08:00:00"})
    assert missing("À partir de 8 h.", stamp) == []
    assert missing("À partir de 9 h.", stamp) == ["9 h"]


def test_an_address_is_looked_up_with_its_number_and_its_way_spelt_out() -> None:
    order = ("consulter_commande", {"statut": "expédiée", "adresse": "10 rue Lepic, 75018 Paris"})
    assert missing("Elle sera livrée au 10 rue Lepic à Paris.", order) == []
    assert missing("Livraison au 10 rue Lepic demain.", order) == ["demain"]  # the address is right
    assert missing("Au 41 rue Lepic.", order) == ["41 rue lepic"]  # another number
    gare = ("consulter_commande", {"adresse": "8 rue de la Gare, Lyon"})
    assert missing("Au 3 rue de la Paix.", gare) == ["3 rue de la paix"]
    bd = ("consulter_commande", {"adresse": "12 bd Voltaire"})
    assert missing("Au 12 boulevard Voltaire.", bd) == []


def test_a_status_said_in_general_or_in_the_customer_s_words() -> None:
    help_ = ("rechercher_aide", {"passages": [{"texte": "La livraison prend 3 à 5 jours ouvrés."}]})
    assert missing("Votre commande est livrée en 3 à 5 jours ouvrés.", help_) == []
    assert missing("Votre colis a bien été livré, tant mieux.", customer="J'ai reçu mon colis hier") == []
    # « quand même » is no condition; an « et » does not carry the subject to a status it reports
    assert missing("Je regarde quand même : votre colis a été livré.") == ["a ete livre"]
    parcel = ("suivre_colis", {"etat": "en transit"})
    assert missing("Votre colis a pris du retard et il est en transit.", parcel) == ["a pris du retard"]
    # a status value that says there is none is no status
    none = ("suivre_colis", {"numero": "LL-1", "statut": "en préparation", "etat": "aucun colis expédié"})
    assert missing("Votre commande est expédiée.", none) == ["est expediee"]


def test_more_statuses_are_read() -> None:
    ready = ("consulter_commande", {"statut": "en préparation"})
    for said in ("Elle est encore en préparation.", "Elle est en cours de préparation."):
        assert missing(said, ready) == [], said
    for said in (
        "Elle est maintenant expédiée.",
        "Elle vient d'être expédiée.",
        "Elle a finalement été livrée.",
    ):
        assert missing(said, ready) != [], said


def test_a_partial_refusal_with_the_transfer_made_is_no_denial() -> None:
    for said in (
        "Je ne peux pas vous mettre en relation par téléphone, mais j'ai transmis votre demande à un conseiller.",
        "I can't connect you by phone, but I've escalated your request.",
    ):
        assert denied(said, TRANSFER, ESCALATION) is None, said
    link = "Je vous ai envoyé le lien dans mon message précédent : https://exemple.fr/aide"
    assert claimed(link, [], ESCALATION) is None


def test_a_customer_s_or_a_help_text_s_tomorrow_is_no_order_s_date() -> None:
    due = ("suivre_colis", {"etat": "en transit", "date_prevue": (TODAY + timedelta(days=2)).isoformat()})
    assert missing("Il sera livré demain.", due, customer="Je pars demain en vacances") == ["demain"]
    help_ = (
        "rechercher_aide",
        {"passages": [{"texte": "Commandez avant midi, recevez votre colis dès demain."}]},
    )
    assert missing("Il sera livré demain.", due, help_) == ["demain"]
    eta = ("suivre_colis", {"etat": "en transit", "eta": "demain"})
    assert missing("Il sera livré demain.", eta) == []


def test_months_are_durations_in_days_too() -> None:
    order = (
        "consulter_commande",
        {"statut": "livrée", "date_livraison": (TODAY - timedelta(days=60)).isoformat()},
    )
    assert missing("Livrée il y a 2 mois.", order) == []


def test_the_familiar_form_leaves_words_and_contractions_alone() -> None:
    plain = "c'est un statut en attente. i can't, don't worry, tentez"
    assert formal(plain) == plain
    assert formal("je te rembourse et je t'offre ton code") == "je vous rembourse et je vous offre votre code"


def test_a_parcel_not_arrived_is_not_a_late_one() -> None:
    said = "Votre colis a pris un peu de retard, nous nous en excusons."
    assert missing(said, customer="Mon colis n'est toujours pas là") == ["a pris 1 peu de retard"]
    assert missing(said, customer="Mon colis est en retard") == []


def test_english_answers_get_subjects_and_owners_too() -> None:
    seen = Seen(lang="en")
    seen.add({"passages": [{"text": "You have 30 days to return an item."}]}, TODAY, about="search_help")
    refund = [f.said for f in facts("Your refund will be issued within 30 days.", TODAY, "en")]
    assert refund == ["30 days"]
    assert [
        f.said
        for f in facts("Your refund will be issued within 30 days.", TODAY, "en")
        if not grounded(f, seen, TODAY)
    ] == ["30 days"]
    assert [
        f for f in facts("You have 30 days to send it back.", TODAY, "en") if not grounded(f, seen, TODAY)
    ] == []
    shipped = facts("Your order has shipped.", TODAY, "en")
    assert [(f.kind, f.own) for f in shipped] == [("statut", True)]
    assert not grounded(shipped[0], Seen(lang="en"), TODAY)  # nothing looked up
    assert [f.own for f in facts("If your order has shipped, wait for it.", TODAY, "en")] == [False]


def test_a_return_already_registered_is_no_claim() -> None:
    refused = [("demander_retour", {"accepte": False, "raison": "un retour est déjà enregistré"}, None)]
    said = "Je ne peux pas enregistrer ce retour : un retour est déjà enregistré."
    assert claimed(said, refused, ESCALATION) is None
