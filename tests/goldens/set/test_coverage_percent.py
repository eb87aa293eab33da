"""The coverage share as the console, the TUI and the report say it: never « 100% » while a group is
left out (a newcomer read « covers 100% » above five uncovered groups: 200,059 of 200,079), nor « 0% »
while a conversation is covered."""

from __future__ import annotations

import pytest

from filon.goldens.set.coverage import percent


@pytest.mark.parametrize(
    ("part", "said"),
    [
        (200_059 / 200_079, "99.99%"),
        (0.995, "99.50%"),
        (0.994, "99%"),
        (1.0, "100%"),
        (0.0, "0%"),
        (3 / 10_000, "0.03%"),
        (0.5, "50%"),
    ],
)
def test_a_share_is_never_rounded_to_all_or_nothing(part: float, said: str) -> None:
    assert percent(part) == said


def test_a_case_drafted_from_a_stack_that_names_no_channel_covers_it() -> None:
    """A stack with no channel of its own stores `unknown`; its conversations are drafted as web cases: a
    newcomer's set covered 0% of the agent it was drafted from."""
    from filon.goldens.case.schema import Case
    from filon.goldens.set.coverage import Shape, covers

    case = Case.model_validate(
        {"id": "faq-01", "categorie": "faq", "canal": "web", "tours": ["How much is shipping?"],
         "outils": ["search_faq"], "escalade": False}
    )  # fmt: skip
    assert covers(case, Shape.of("ok · unknown · search_faq(query)"), frozenset())
    assert covers(case, Shape.of("ok · web · search_faq(query)"), frozenset())
    assert not covers(case, Shape.of("ok · whatsapp · search_faq(query)"), frozenset())
