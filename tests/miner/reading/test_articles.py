"""Articles an answer names, held to the articles the agent read (`miner.reading.articles`)."""

from __future__ import annotations

import pytest

from filon.miner.reading.articles import read_articles, unread_articles
from filon.miner.reading.text import fold

ORDER = fold(
    '{"articles": [{"article": "Pull en laine mérinos", "quantite": 1}, {"article": "Chemise en lin"}]}'
)


@pytest.mark.parametrize(
    ("answer", "unread"),
    [
        ("Le retour de votre écharpe en laine est enregistré.", ["echarpe en laine"]),
        ("Votre pull en lin est parti hier.", ["pull en lin"]),  # the pull is wool, the shirt is linen
        ("Votre pull en laine mérinos et vos deux chemises en lin sont expédiés.", []),
        ("Votre pull en mérinos est parti.", []),  # one of its materials
        ("Pour une pièce en lin, prenez la taille au-dessus.", []),  # a kind of article, not one
        ("Votre commande est partie.", []),
    ],
)
def test_an_article_the_agent_read_nowhere_is_named(answer: str, unread: list[str]) -> None:
    assert unread_articles(fold(answer), read_articles(ORDER)) == unread


def test_nothing_is_held_when_the_agent_read_no_article() -> None:
    assert unread_articles(fold("Nos pulls en laine se lavent à 30 °C."), read_articles("")) == []
