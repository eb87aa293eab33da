"""The one ingest path, for the in-process exporter, `filon ingest` and `filon serve`:
normalise → redact → group into turns and conversations → flag → upsert.

Redaction comes before grouping so that nothing raw is ever held past this module; it keeps identifier
shapes and maps one value to one pseudonym, so flags read exactly the same identities either way. The
same span twice is stored once; a span arriving after its trace was stored is merged into it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from miner.config import FlagConfig
from miner.flags import flag_conversation
from miner.jsontext import dumps, loads
from miner.model import Conversation, Turn
from miner.store import Store
from miner.tables import SpanRow
from tracing.grouping import by_trace, turn_of
from tracing.records import SpanRecord
from tracing.redact import Redactor
from tracing.sampling import sampled

log = logging.getLogger(__name__)
MAX_PAIRS = 1_000_000


@dataclass
class IngestStats:
    spans: int = 0
    new_spans: int = 0
    turns: int = 0
    conversations: int = 0
    kept: int = 0  # turns stored
    sampled_out: int = 0  # turns not kept by the sample rate
    # the (kind, conversation) pairs flagged: a conversation written by several batches counts once
    flagged_pairs: set[tuple[str, str]] = field(default_factory=set)

    @property
    def flagged(self) -> int:
        """Conversations with at least one flag."""
        return len({conv for _, conv in self.flagged_pairs})

    @property
    def flag_kinds(self) -> dict[str, int]:
        """Conversations flagged, by kind."""
        out: dict[str, int] = {}
        for kind, _ in self.flagged_pairs:
            out[kind] = out.get(kind, 0) + 1
        return out

    def as_json(self) -> dict[str, Any]:
        """For the pipe between the helper process and the agent's (a set is not JSON)."""
        out = {k: v for k, v in vars(self).items() if k != "flagged_pairs"}
        return {**out, "flagged_pairs": sorted(self.flagged_pairs)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> IngestStats:
        fields = dict(data)
        pairs = fields.pop("flagged_pairs", [])
        stats = cls(**fields)
        stats.flagged_pairs = {(k, c) for k, c in pairs}
        return stats

    def add(self, other: IngestStats) -> None:
        for name in ("spans", "new_spans", "turns", "conversations", "kept", "sampled_out"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if len(self.flagged_pairs) < MAX_PAIRS:  # a process's lifetime of flags: bounded, then approximate
            self.flagged_pairs |= other.flagged_pairs


def redact_record(r: SpanRecord, redactor: Redactor) -> SpanRecord:
    r.attributes = redactor.value(r.attributes)
    r.resource = redactor.shared(r.resource)
    r.status_message = redactor.text(r.status_message)
    r.name = redactor.name(r.name)
    return r


SPAN_COLUMNS = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "conversation_id",
    "name",
    "kind",
    "start_ns",
    "end_ns",
    "status",
    "status_message",
    "attributes",
    "resource",
    "scope",
)


def to_row(r: SpanRecord, conversation_id: str, resources: dict[int, str]) -> tuple[Any, ...]:
    """A span's row, in `SPAN_COLUMNS` order. `resources` memoises the JSON of resources, which the
    spans of one process share."""
    resource = resources.get(id(r.resource)) if r.resource else "{}"
    if resource is None:
        resource = resources[id(r.resource)] = dumps(r.resource)
    return (
        r.trace_id,
        r.span_id,
        r.parent_span_id,
        conversation_id,
        r.name,
        r.kind,
        r.start_ns,
        r.end_ns,
        r.status,
        r.status_message,
        dumps(r.attributes),
        resource,
        r.scope,
    )


def from_row(row: SpanRow) -> SpanRecord:
    return SpanRecord(
        trace_id=row.trace_id,
        span_id=row.span_id,
        parent_span_id=row.parent_span_id,
        name=row.name,
        start_ns=row.start_ns,
        end_ns=row.end_ns,
        status=row.status,
        status_message=row.status_message,
        kind=row.kind,
        attributes=loads(row.attributes),
        resource=loads(row.resource),
        scope=row.scope,
    )


class Ingestor:
    def __init__(
        self,
        store: Store,
        config: FlagConfig | None = None,
        redactor: Redactor | None = None,
        sample_rate: float = 1.0,
    ) -> None:
        self.store = store
        self.config = config or FlagConfig()
        self.redactor = redactor
        self.sample_rate = sample_rate

    def flags(self, conversation: Conversation) -> list[Any]:
        return flag_conversation(conversation, self.config)

    def ingest(self, records: list[SpanRecord]) -> IngestStats:
        stats = IngestStats(spans=len(records))
        if not records:
            return stats
        if self.redactor is not None:
            records = [redact_record(r, self.redactor) for r in records]
        traces = by_trace(records)
        stored = self.store.stored_turns(list(traces))
        known = set(stored)
        if known:  # late spans: merge with what is stored so the turn is read whole
            present = {(r.trace_id, r.span_id) for r in records}
            for row in self.store.spans_of(sorted(known)):
                if (row.trace_id, row.span_id) not in present:
                    traces[row.trace_id].append(from_row(row))
        conversations: dict[str, tuple[str, list[Turn]]] = {}
        span_conv: dict[str, str] = {}
        grouped: dict[str, list[Turn]] = {}
        channels: dict[str, str] = {}  # the channel of the conversation's last trace read
        escalation_tools = self.config.escalation_tools
        for trace_id, spans in traces.items():
            conv_id, channel, turn, _ = turn_of(spans, escalation_tools)
            span_conv[trace_id] = conv_id
            grouped.setdefault(conv_id, []).append(turn)
            channels[conv_id] = channel
        stats.turns = len(traces)
        for conv_id, turns in grouped.items():
            channel = channels[conv_id]
            if len(turns) > 1:
                turns.sort(key=lambda t: t.started_at)
            keep = self.sample_rate >= 1 or sampled(conv_id, self.sample_rate)
            if not keep:  # flagged, or one of its turns is stored already (a late span of a kept trace)
                keep = any(t.trace_id in known for t in turns) or bool(
                    self.flags(Conversation(conv_id, channel, turns))
                )
            if keep:
                conversations[conv_id] = (channel, turns)
            else:
                stats.sampled_out += len(turns)
        resources: dict[int, str] = {}  # within this call only: ids are reused once objects are freed
        rows = [
            to_row(r, conv_id, resources)
            for r in records
            if (conv_id := span_conv[r.trace_id]) in conversations
        ]
        if not conversations:
            return stats
        new, flags = self.store.write_batch(SPAN_COLUMNS, rows, conversations, self.flags, stored)
        stats.new_spans = new
        stats.conversations = len(conversations)
        stats.kept = sum(len(t) for _, t in conversations.values())
        stats.flagged_pairs = {(f.kind, cid) for cid, fs in flags.items() for f in fs}
        return stats


def ingest_replaying(ingestor: Ingestor, records: list[SpanRecord]) -> IngestStats:
    """`ingest`, where a batch that lost a deadlock or a serialization race to another writer (several
    receivers on one PostgreSQL) is simply replayed."""
    from sqlalchemy.exc import DBAPIError

    for attempt in range(3):
        try:
            return ingestor.ingest(records)
        except DBAPIError as exc:
            code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
            if code not in ("40P01", "40001") or attempt == 2:
                raise
            log.info("replaying a batch after %s", code)
    raise AssertionError("unreachable")
