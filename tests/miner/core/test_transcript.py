"""The transcript's turns as the report keeps them: the `Turn` read from the spans, written with the case
format's keys and read back the same; a turn a hand edited badly is refused naming its field, never read
as something else (« false » as an escalation, a number as a customer's message)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from filon.miner.core.model import ToolCall, Turn
from filon.miner.core.transcript import Transcript


def test_a_turn_written_and_read_back_is_the_same_turn() -> None:
    turn = Turn.exchange(
        "où est ma commande ?",
        "Elle est partie.",
        [ToolCall.named("suivre_colis", {"numero": "LL-1"}, {"etat": "en transit"}), ToolCall.named("x")],
        escalated=True,
    )
    written = Transcript(turns=[turn]).dump()
    assert written["tours"][0]["appels"][1] == {"outil": "x", "args": None, "resultat": None, "erreur": None}
    back = Transcript.model_validate(written).turns[0]
    assert (back.user, back.agent, back.escalated) == (turn.user, turn.agent, True)
    assert [(c.name, c.args, c.result) for c in back.tools] == [
        (c.name, c.args, c.result) for c in turn.tools
    ]


@pytest.mark.parametrize(
    ("turn", "named"),
    [
        ({"client": 5}, "client"),
        ({"appels": [{"args": {}}]}, "appels.0.outil"),
        ({"appels": "suivre_colis"}, "appels"),
        ({"escalade": "peut-être"}, "escalade"),
    ],
)
def test_a_bad_turn_is_refused_naming_its_field(turn: dict[str, object], named: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Transcript.model_validate({"tours": [turn]})
    assert caught.value.errors()[0]["msg"].startswith(f"Value error, {named}: ")


def test_an_escalation_written_as_text_is_read_as_written() -> None:
    assert Transcript.model_validate({"tours": [{"escalade": "false"}]}).turns[0].escalated is False
