"""The shop database and its relative-date fixtures, on a real SQLite database."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from filon.agent.shop import default_fixtures, new_shop
from filon.agent.shop.fixtures import FixtureError, relative_date, relative_label
from filon.agent.shop.models import STATUTS
from filon.agent.tools import Toolbox


def test_default_world_is_large_enough_and_covers_every_status() -> None:
    data = default_fixtures()
    assert len(data["clients"]) >= 20
    assert len(data["commandes"]) >= 30
    assert {o["statut"] for o in data["commandes"]} == set(STATUTS)
    etats = {o["colis"]["etat"] for o in data["commandes"] if o.get("colis")}
    assert {"en retard", "perdu"} <= etats


def test_fixture_dates_are_all_relative() -> None:
    data = default_fixtures()
    for order in data["commandes"]:
        for key in ("date_commande", "date_livraison"):
            value = order.get(key)
            assert value is None or value.startswith("J"), (order["numero"], key, value)


@pytest.mark.parametrize(("text", "offset"), [("J", 0), ("J-29", -29), ("J+3", 3), (" J-1 ", -1)])
def test_relative_date_parses(text: str, offset: int) -> None:
    today = date(2030, 1, 15)
    assert relative_date(text, today) == today + timedelta(days=offset)


@pytest.mark.parametrize("text", ["2026-11-01", "J-", "hier", "J*3"])
def test_relative_date_rejects_absolute_or_garbage(text: str) -> None:
    with pytest.raises(FixtureError, match="relative date"):
        relative_date(text, date(2030, 1, 1), "commandes[0].date_commande")


@given(st.integers(min_value=-3000, max_value=3000))
def test_relative_label_round_trips(offset: int) -> None:
    today = date(2026, 6, 1)
    day = today + timedelta(days=offset)
    assert relative_date(relative_label(day, today), today) == day


@settings(max_examples=25, deadline=None)
@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2090, 12, 31)))
def test_return_window_holds_whatever_today_is(today: date) -> None:
    tools = Toolbox(new_shop(today=today))
    inside = tools.demander_retour({"numero": "LL-10560"})  # delivered J-29
    outside = tools.demander_retour({"numero": "LL-10561"})  # delivered J-31
    edge = tools.demander_retour({"numero": "LL-10573"})  # delivered J-30, the last day
    assert inside["accepte"] is True and inside["jours_depuis_livraison"] == 29
    assert outside["accepte"] is False and "31 jours" in outside["raison"]
    assert edge["accepte"] is True


def test_each_shop_is_fresh() -> None:
    first, second = new_shop(), new_shop()
    assert Toolbox(first).demander_retour({"numero": "LL-10560"})["accepte"] is True
    assert Toolbox(first).demander_retour({"numero": "LL-10560"})["accepte"] is False  # already recorded
    assert Toolbox(second).demander_retour({"numero": "LL-10560"})["accepte"] is True


def test_case_fixtures_overlay_the_default_world() -> None:
    extra = {
        "clients": [
            {"id": 99, "prenom": "Zoé", "nom": "Test", "email": "zoe@exemple.fr", "tel": "33600000999"}
        ],
        "commandes": [
            {
                "numero": "LL-19999",
                "client": 99,
                "statut": "livrée",
                "date_commande": "J-5",
                "date_livraison": "J-2",
                "lignes": [{"article": "Plaid", "prix": 120.0}],
            },
        ],
    }
    shop = new_shop(extra)
    order = Toolbox(shop).consulter_commande({"numero": "LL-19999"})
    assert order["client"]["email"] == "zoe@exemple.fr"
    assert order["date_livraison"] == (shop.today - timedelta(days=2)).isoformat()
    assert shop.counts()["commandes"] == len(default_fixtures()["commandes"]) + 1
