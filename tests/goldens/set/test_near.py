"""Near duplicates: same actions and flags, and close words; anything else is a different case."""

from __future__ import annotations

from typing import Any

from filon.goldens.case.schema import Case
from filon.goldens.set.near import near_duplicates, similarity


def case(id: str, text: str, **kw: Any) -> Case:
    base: dict[str, Any] = {
        "categorie": "escalade",
        "outils": ["transferer_a_un_conseiller"],
        "escalade": True,
    }
    return Case.model_validate({"id": id, "tours": [text], **{**base, **kw}})


def test_same_actions_and_close_words_are_near() -> None:
    a = case("esc-01", "Ma livraison avait du retard, je veux un geste commercial, commande LL-10587")
    b = case("esc-02", "Ma livraison avait du retard, je veux un geste commercial. Commande LL-10590")
    assert similarity(a, b) >= 0.6
    assert near_duplicates(b, [a]) == [("esc-01", similarity(a, b))]


def test_other_actions_or_other_words_are_not() -> None:
    a = case("esc-01", "Ma livraison avait du retard, je veux un geste commercial, commande LL-10587")
    other_tools = case("esc-02", a.tours[0], outils=["consulter_commande"], escalade=False)
    other_words = case("esc-03", "Je veux parler à un humain tout de suite, votre robot ne comprend rien")
    other_flags = case("esc-04", a.tours[0], source={"flags": ["promise"]})
    assert near_duplicates(a, [other_tools, other_words, other_flags]) == []
    assert near_duplicates(a, [a]) == []  # itself, being edited, is not a duplicate
