"""`join_steps`: a tool-call step that a stack emits as a trace of its own is one turn with the answer
after it; nothing else is joined."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from filon.miner.core.model import ToolCall, Turn, join_steps

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def turn(n: int, user: str, agent: str = "", **kw: object) -> Turn:
    return Turn(
        f"t{n}",
        T0 + timedelta(seconds=n),
        user,
        agent,
        latency_ms=500,
        input_tokens=10,
        output_tokens=2,
        **kw,
    )  # type: ignore[arg-type]


def test_steps_answering_the_same_message_are_one_turn() -> None:
    lookup = turn(1, "Où est LL-10587 ?", tools=[ToolCall("suivre_colis", {"numero": "LL-10587"})])
    again = turn(2, "Où est LL-10587 ?", tools=[ToolCall("consulter_commande", {"numero": "LL-10587"})])
    answer = turn(3, "Où est LL-10587 ?", "En cours de livraison.")
    [joined] = join_steps([lookup, again, answer])
    assert (joined.trace_id, joined.user, joined.agent) == (
        "t1",
        "Où est LL-10587 ?",
        "En cours de livraison.",
    )
    assert [c.name for c in joined.tools] == ["suivre_colis", "consulter_commande"]
    assert (joined.input_tokens, joined.output_tokens) == (30, 6)
    assert joined.latency_ms == 2500  # from the first step's start to the answer's end


def test_answered_turns_repeats_and_failures_are_left_alone() -> None:
    answered = [turn(1, "Bonjour", "Bonjour !"), turn(2, "Bonjour", "Bonjour !")]
    assert join_steps(answered) == answered  # the customer said it twice, and was answered twice
    failed = [
        turn(1, "Statut ?", failed_spans=["chat m"], error_types=["429"]),
        turn(2, "Statut ?", "Expédiée."),
    ]
    assert join_steps(failed) == failed  # the 429 stays on its own turn
    different = [turn(1, "Statut ?"), turn(2, "Autre chose", "Oui.")]
    assert join_steps(different) == different
