"""The tail-sampling decision for one finished trace, with the memory of a conversation's earlier turns.

Keep every trace with a flag on its own turn; keep the others when the conversation's hash falls under
the rate (so a kept conversation keeps all its turns). When a later turn of an unkept conversation is
flagged, its earlier turns still in the bounded buffer are kept too, and so are its turns after that.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime

from filon.miner.core.jsontext import dumps, loads
from filon.miner.core.model import Conversation, ToolCall, Turn
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import flag_conversation
from filon.tracing.grouping import conversation_of, turn_of
from filon.tracing.records import SpanRecord, pack, unpack
from filon.tracing.sampling.rate import sampled


def _pack_turn(turn: Turn) -> str:
    """A turn as JSON text, by field name (held in the buffer as one string, not as objects)."""
    return dumps(
        {
            "trace_id": turn.trace_id,
            "started_at": turn.started_at.isoformat(),
            "user": turn.user,
            "agent": turn.agent,
            "tools": [t.as_json() for t in turn.tools],
            "escalated": turn.escalated,
            "latency_ms": turn.latency_ms,
            "input_tokens": turn.input_tokens,
            "output_tokens": turn.output_tokens,
            "error_types": turn.error_types,
            "failed_spans": turn.failed_spans,
            "feedback": turn.feedback,
            "sender": turn.sender,
            "instructions": turn.instructions,
        }
    )


def _unpack_turn(packed: str) -> Turn:
    fields = loads(packed)
    fields["started_at"] = datetime.fromisoformat(fields["started_at"])
    fields["tools"] = [ToolCall(**t) for t in fields["tools"]]
    return Turn(**fields)


class Decider:
    def __init__(self, rate: float, config: FlagConfig | None = None, max_buffered: int = 10_000) -> None:
        self.rate = rate
        self.config = config or FlagConfig()
        self.max_buffered = max_buffered
        # per conversation not kept (yet), oldest first: its turns' trace ids, spans, span counts and turns.
        # Spans and turns are packed as JSON text: ten thousand traces held as strings, not as a hundred
        # thousand containers, keep the garbage collector's full passes short in the agent's process.
        self._buffer: OrderedDict[str, list[tuple[str, str, int, str]]] = OrderedDict()
        self._buffered = 0
        self._promoted: OrderedDict[str, None] = OrderedDict()
        self.decisions: OrderedDict[str, bool] = OrderedDict()
        self.evicted_spans = 0

    def _remember(self, trace_id: str, kept: bool) -> None:
        self.decisions[trace_id] = kept
        while len(self.decisions) > 4 * self.max_buffered:
            self.decisions.popitem(last=False)

    def decide(self, records: list[SpanRecord]) -> list[list[SpanRecord]]:
        """The traces to keep now: [] (sampled out, buffered), or this trace, possibly after earlier ones."""
        conv_id = conversation_of(records)
        if conv_id in self._promoted or (conv_id not in self._buffer and sampled(conv_id, self.rate)):
            # kept by the hash (like all of its turns), or after a flagged turn: no need to read the turn
            # or run the flag rules
            self._remember(records[0].trace_id, True)
            return [records]
        seen = turn_of(records, self.config.escalation_tools, conv_id)
        earlier = self._buffer.get(conv_id, [])
        conversation = Conversation(
            conv_id, seen.channel, [_unpack_turn(t) for _, _, _, t in earlier] + [seen.turn]
        )
        last = len(conversation.turns) - 1
        flagged = any(f.turn == last for f in flag_conversation(conversation, self.config))
        if flagged:
            self._promoted[conv_id] = None
            while len(self._promoted) > self.max_buffered:
                self._promoted.popitem(last=False)
            out = []
            for trace_id, packed, _, _ in self._buffer.pop(conv_id, []):
                self._buffered -= 1
                self._remember(trace_id, True)
                out.append(unpack(packed))
            self._remember(seen.turn.trace_id, True)
            return [*out, records]
        self._buffer.setdefault(conv_id, []).append(
            (seen.turn.trace_id, pack(records), len(records), _pack_turn(seen.turn))
        )
        self._buffer.move_to_end(conv_id)
        self._buffered += 1
        while self._buffered > self.max_buffered:
            _, dropped = self._buffer.popitem(last=False)
            self._buffered -= len(dropped)
            self.evicted_spans += sum(n for _, _, n, _ in dropped)
        self._remember(seen.turn.trace_id, False)
        return []
