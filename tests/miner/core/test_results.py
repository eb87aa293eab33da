"""Whether a tool's result says the call failed, in the three ways stacks report it."""

from __future__ import annotations

import pytest

from filon.miner.core.results import failed_result


@pytest.mark.parametrize(
    ("result", "said"),
    [
        ("Error: reservation not found", "Error: reservation not found"),
        ({"erreur": "commande introuvable : LL-1"}, "commande introuvable : LL-1"),
        ({"accepte": False, "raison": "livrée il y a 31 jours"}, "livrée il y a 31 jours"),
        ({"success": False, "message": "card declined"}, "card declined"),
        ({"ok": False}, "ok: false"),
    ],
)
def test_a_failure_or_a_refusal_is_told_with_its_reason(result: object, said: str) -> None:
    assert failed_result(result) == said


@pytest.mark.parametrize(
    "result",
    [
        {"accepte": True, "etiquette": "gratuite"},
        {"ok": 0, "items": []},  # a count, not a refusal
        {"success": None},
        "Votre colis est en route",
        {"passages": []},
    ],
)
def test_a_result_that_says_nothing_of_failing_is_a_success(result: object) -> None:
    assert failed_result(result) is None
