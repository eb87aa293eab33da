"""A change offered with no change tool (`miner.reading.claims.offered_change`): the substring test that
spares most answers the search lets every offer through."""

from __future__ import annotations

import pytest

from filon.miner.reading.claims import OFFER_WORDS, OFFERS, offered_change, spoken


@pytest.mark.parametrize("offer", [*OFFERS, "je m'en occupe", "je fais la modification"])
def test_every_offer_holds_a_word_the_substring_test_looks_for(offer: str) -> None:
    assert any(word in offer for word in OFFER_WORDS)


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        ("Je peux modifier l'adresse de livraison si vous le souhaitez.", "je peux modifier"),
        ("Dites-moi ce que vous voulez changer et je m'en occupe.", "changer et je m'en occupe"),
        ("I'll update the address right away.", "i'll update"),
        ("Votre commande est partie hier.", None),
    ],
)
def test_an_offer_is_found_where_no_change_tool_was_called(answer: str, found: str | None) -> None:
    assert offered_change(spoken(answer), ["suivre_commande"]) == found
    assert offered_change(spoken(answer), ["modifier_commande"]) is None
