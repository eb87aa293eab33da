"""Spans gathered into conversations as ingest gathers them: one turn per trace, by conversation id.

The flag rules' benchmarks (`_instr_child.py`, `_detector_instructions.py`, `ingest_throughput.py`) read
the same conversations, and count or time only the rules; one gathering keeps them reading the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from filon.miner.core.model import Conversation
    from filon.tracing.grouping import TurnOf
    from filon.tracing.records import SpanRecord


def gathered(seen: Iterable[TurnOf]) -> list[Conversation]:
    """Turns already read from their traces, as conversations (in order of first appearance)."""
    from filon.miner.core.model import Conversation

    found: dict[str, Conversation] = {}
    for s in seen:
        found.setdefault(s.conversation_id, Conversation(s.conversation_id, s.channel)).turns.append(s.turn)
    return list(found.values())


def conversations(records: list[SpanRecord], escalation_tools: Iterable[str]) -> list[Conversation]:
    """`records` read trace by trace into turns, gathered into conversations."""
    from filon.tracing.grouping import by_trace, turn_of

    tools = list(escalation_tools)
    return gathered(turn_of(spans, tools) for spans in by_trace(records).values())
