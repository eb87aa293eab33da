"""Ingest flags a live conversation again, whole, with each of its new turns, and the grounding rules read
each turn's answer once (`grounding_rule._answer_read`, kept by the turn's trace id): a conversation
flagged turn after turn ends with the flags it gets when read whole in a fresh process, on real
conversations (tau-bench airline, tasks 0-4) with every rule on."""

from __future__ import annotations

from filon.miner.core.model import Conversation
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import flag_conversation
from filon.miner.rules.grounding_rule import _answer_read
from filon.tracing.files import read_otlp_file
from filon.tracing.grouping import by_trace, turn_of
from tests.corpus import tau

EVERY_RULE = FlagConfig.from_json(
    {
        "write_tools": ["book_reservation", "cancel_reservation", "update_reservation_flights"],
        "rules": {"action_affirmee": {"production": True}, "fait_non_fonde": {"production": True}},
    }
)


def conversations() -> list[Conversation]:
    found: dict[str, Conversation] = {}
    records = [r for path in tau.payloads()[:5] for r in read_otlp_file(path)]
    for spans in by_trace(records).values():
        read = turn_of(spans, EVERY_RULE.escalation_tools)
        found.setdefault(read.conversation_id, Conversation(read.conversation_id, read.channel))
        found[read.conversation_id].turns.append(read.turn)
    for c in found.values():
        c.turns.sort(key=lambda t: t.started_at)
    return list(found.values())


def causes(conversation: Conversation) -> list[tuple[str, int, str]]:
    return sorted((f.cause, f.turn, f.reason) for f in flag_conversation(conversation, EVERY_RULE))


def test_a_conversation_flagged_turn_after_turn_ends_as_one_read_whole() -> None:
    convs = conversations()
    _answer_read.cache_clear()
    whole = {c.id: causes(c) for c in convs}
    assert any(cause == "ungrounded_fact" for found in whole.values() for cause, _, _ in found)
    _answer_read.cache_clear()
    for c in convs:
        for n in range(1, len(c.turns)):
            causes(Conversation(c.id, c.channel, c.turns[:n]))
    assert {c.id: causes(c) for c in convs} == whole
