"""The five tools against a real SQLite shop."""

from __future__ import annotations

import pytest

from filon.agent.knowledge import search
from filon.agent.shop import new_shop
from filon.agent.tools import DECLARATIONS, TOOL_NAMES, Toolbox, ToolError


@pytest.fixture
def tools() -> Toolbox:
    return Toolbox(new_shop())


def test_declarations_are_json_schema_objects() -> None:
    assert TOOL_NAMES == (
        "rechercher_aide",
        "consulter_commande",
        "suivre_colis",
        "demander_retour",
        "transferer_a_un_conseiller",
    )
    for decl in DECLARATIONS:
        assert decl["parameters"]["type"] == "object"
        assert set(decl["parameters"]["required"]) <= set(decl["parameters"]["properties"])


def test_consulter_commande_returns_owner_and_lines(tools: Toolbox) -> None:
    order = tools.consulter_commande({"numero": "ll-10602"})
    assert order["statut"] == "en préparation"
    assert order["client"]["tel"] == "33600000103"
    assert order["montant_articles"] == 130.0


@pytest.mark.parametrize("numero", ["LL-99999", "12345", ""])
def test_unknown_or_malformed_order_raises_tool_error(tools: Toolbox, numero: str) -> None:
    with pytest.raises(ToolError):
        tools.consulter_commande({"numero": numero})


def test_suivre_colis_reports_late_and_lost_parcels(tools: Toolbox) -> None:
    late = tools.suivre_colis({"numero": "LL-10563"})
    lost = tools.suivre_colis({"numero": "LL-10564"})
    not_shipped = tools.suivre_colis({"numero": "LL-10602"})
    assert late["etat"] == "en retard" and late["retard_jours"] == 3
    assert lost["etat"] == "perdu"
    assert not_shipped["etat"] == "aucun colis expédié"


def test_demander_retour_refuses_an_order_not_delivered(tools: Toolbox) -> None:
    result = tools.demander_retour({"numero": "LL-10562"})
    assert result["accepte"] is False and "expédiée" in result["raison"]


def test_transfer_gives_increasing_tickets(tools: Toolbox) -> None:
    first = tools.run("transferer_a_un_conseiller", {"motif": "geste"})
    second = tools.run("transferer_a_un_conseiller", {"motif": "geste"})
    assert (first["ticket"], second["ticket"]) == ("T-0001", "T-0002")


def test_unknown_tool_is_a_tool_error(tools: Toolbox) -> None:
    with pytest.raises(ToolError, match="outil inconnu"):
        tools.run("supprimer_commande", {})


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Combien coûtent les frais de livraison ?", "3,90 €"),
        ("Combien de temps pour retourner un article ?", "30 jours"),
        ("Comment laver un pull en laine ?", "30 °C"),
        ("Puis-je annuler ma commande ?", "en préparation"),
    ],
)
def test_search_finds_the_right_passage(question: str, expected: str) -> None:
    found = search(question)
    assert found and expected in found[0].texte


def test_search_on_nothing_relevant_is_empty() -> None:
    assert search("zzz qwerty") == []
