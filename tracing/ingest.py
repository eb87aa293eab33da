"""The one ingest path, for the in-process exporter, `filon ingest` and `filon serve`: `Ingestor.ingest`
reads top to bottom (redact → group → one transaction: read what is stored → turns and conversations →
lock → write → merge with the stored turns → flag → write flags and conversations); the store only
reads and writes rows (`miner.store.batch.TraceBatch`).

Redaction comes before grouping so that nothing raw is ever held past this module; it keeps identifier
shapes and maps one value to one pseudonym, so flags read exactly the same identities either way. The
same span twice is stored once; a span arriving after its trace was stored is merged into it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from filon.miner.core.jsontext import dumps, dumps_bytes, loads
from filon.miner.core.model import Conversation, Flag, Turn, join_steps
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import flag_conversation
from filon.miner.store import Store
from filon.miner.store.batch import TraceBatch
from filon.miner.store.rows import SIGNATURE_AT, as_stored, conversation_row, conversation_values
from filon.tracing.across import results_elsewhere
from filon.tracing.grouping import by_trace, turn_of
from filon.tracing.history import SEPARATOR
from filon.tracing.ingest_stats import IngestStats
from filon.tracing.records import SpanRecord
from filon.tracing.redact import Redactor
from filon.tracing.sampling.rate import sampled

log = logging.getLogger(__name__)


def redact_record(r: SpanRecord, redactor: Redactor) -> SpanRecord:
    """A redacted copy: the record itself is left as it came, so that a batch tried again (a deadlock
    replayed, a failed group stored request by request) is redacted once, from the original."""
    return SpanRecord(
        r.trace_id,
        r.span_id,
        r.parent_span_id,
        redactor.name(r.name),
        r.start_ns,
        r.end_ns,
        r.status,
        redactor.text(r.status_message),
        r.kind,
        redactor.value(r.attributes),
        redactor.shared(r.resource),
        r.scope,
    )


def to_row(
    r: SpanRecord, conversation_id: str, resources: dict[int, str], redactor: Redactor | None = None
) -> tuple[Any, ...]:
    """A span's row, in `SPAN_COLUMNS` order; with `redactor`, its fields redacted as `redact_record`
    does, with no redacted record in between (`tracing.settle.accept`, where nothing else reads one).
    `resources` memoises the JSON of resources, which the spans of one process share; the attributes'
    JSON is the UTF-8 bytes orjson wrote, ASCII or not, which `TraceBatch.write_spans` takes (SQLite casts
    them to text in the statement; PostgreSQL's rows decode them): never a `str` the driver would encode
    again. Testing ASCII and decoding it was 28 M of the large spans' 486 M instructions (callgrind)."""
    resource = resources.get(id(r.resource)) if r.resource else "{}"
    if resource is None:
        resource = resources[id(r.resource)] = dumps(redactor.shared(r.resource) if redactor else r.resource)
    if redactor is None:
        name, status_message, attributes = r.name, r.status_message, r.attributes
    else:
        name, status_message = redactor.name(r.name), redactor.text(r.status_message)
        attributes = redactor.value(r.attributes)
    return (
        r.trace_id,
        r.span_id,
        r.parent_span_id,
        conversation_id,
        name,
        r.kind,
        r.start_ns,
        r.end_ns,
        r.status,
        status_message,
        dumps_bytes(attributes),
        resource,
        r.scope,
    )


def from_row(row: Mapping[str, Any]) -> SpanRecord:
    """A stored span (by column name) back as a record."""
    return SpanRecord(
        trace_id=row["trace_id"],
        span_id=row["span_id"],
        parent_span_id=row["parent_span_id"],
        name=row["name"],
        start_ns=row["start_ns"],
        end_ns=row["end_ns"],
        status=row["status"],
        status_message=row["status_message"],
        kind=row["kind"],
        attributes=loads(row["attributes"]),
        resource=loads(row["resource"]),
        scope=row["scope"],
    )


class _Read(NamedTuple):
    """A batch's traces read as turns, by conversation."""

    span_conv: dict[str, str]  # trace id → its conversation
    grouped: dict[str, list[Turn]]  # conversation → its traces' turns
    channels: dict[str, str]
    stacks: dict[str, frozenset[str]]  # trace id → its conventions


FLAG_COLUMNS = ("flag_kinds", "priority", "reason", "signature", "wrote")  # what its flags change in its row
Kept = dict[str, tuple[str, list[Turn]]]  # conversation id → (channel, its turns in this batch, in order)


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

    def flags(self, conversation: Conversation) -> list[Flag]:
        return flag_conversation(conversation, self.config)

    def ingest(self, records: list[SpanRecord]) -> IngestStats:
        """The whole path of a batch, in order: redact, group by trace, then in one transaction: read
        what is stored, read the turns and conversations (sampling the unflagged), write the new
        conversations, lock, write spans and turns, merge with the stored turns, flag, write flags and
        conversations."""
        stats = IngestStats(spans=len(records))
        if not records:
            return stats
        if self.redactor is not None:
            records = [redact_record(r, self.redactor) for r in records]
        traces = by_trace(records)
        with self.store.trace_batch() as batch:
            stored = batch.stored_turns(list(traces))
            if stored:  # late spans: merged with what is stored, so the turn is read whole
                self._merge_late_spans(batch, traces, records, stored)
            self.write(batch, records, traces, stored, stats)
        return stats

    def write(
        self,
        batch: TraceBatch,
        records: list[SpanRecord],
        traces: dict[str, list[SpanRecord]],
        stored: dict[str, str],
        stats: IngestStats,
        placed: bool = False,
    ) -> None:
        """Within the batch's transaction: the traces read as turns and conversations (sampling the
        unflagged), the new conversations written, locked, spans and turns written, merged with the
        stored turns, flagged, flags and conversations written. With `placed`, the spans are in the store
        already (`tracing.settle`): they are placed in their conversation, or deleted if not kept."""
        kept, span_conv, joined = self._turns(traces, set(stored), stats)
        foreseen = self._foreseen(batch, kept, joined) if placed and not batch.ordered else {}
        if placed:
            batch.place_spans(
                [(cid, t) for t, cid in span_conv.items() if cid in kept],
                [t for t in traces if span_conv.get(t, "") not in kept],
            )
        if not kept:
            return
        inserted = {cid: conversation_row(cid, kept[cid][0], joined[cid], [], []) for cid in sorted(kept)}
        new_ids = batch.insert_conversations(list(inserted.values()))
        batch.lock(list(kept))
        if not placed:
            resources: dict[int, str] = {}  # within this call only: ids are reused once objects are freed
            span_rows = [
                to_row(r, cid, resources) for r in records if (cid := span_conv.get(r.trace_id, "")) in kept
            ]
            stats.new_spans = batch.write_spans(span_rows)
        batch.write_turns(kept)
        touched = self._moved(batch, kept, stored)
        touched.update({cid: channel for cid, (channel, _) in kept.items() if cid not in new_ids})
        whole, human = batch.stored_conversations(list(touched))
        conversations = {cid: Conversation(cid, kept[cid][0], joined[cid]) for cid in kept if cid in new_ids}
        conversations.update(
            {cid: Conversation(cid, ch, join_steps(whole[cid])) for cid, ch in touched.items() if whole[cid]}
        )
        before = batch.group_keys([cid for cid in conversations if cid not in new_ids])
        flags = {cid: _flags_of(conv, foreseen.get(cid), self.flags) for cid, conv in conversations.items()}
        batch.replace_flags(flags, new_ids)
        rows = _rows(conversations, flags, human, inserted, new_ids)
        # a new conversation was written whole: only a flagged one changes (its kinds, priority, reason)
        batch.update_conversations([rows[cid] for cid in new_ids if flags.get(cid)], FLAG_COLUMNS)
        batch.update_conversations([row for cid, row in rows.items() if cid not in new_ids])
        batch.regroup(rows, before)  # the failure groups kept up to date, never recounted on a read
        self._tally(stats, kept, joined)
        stats.flagged_pairs = {(f.kind, cid) for cid, fs in flags.items() for f in fs}

    def _foreseen(
        self, batch: TraceBatch, kept: Kept, joined: dict[str, list[Turn]]
    ) -> dict[str, tuple[Conversation, list[Flag]]]:
        """Each conversation as this batch will leave it, and its flags, computed before the first write.
        SQLite has one writer, and a deferred receiver's acknowledgements wait while the settling worker
        holds the write lock: flagging there held it three times longer than writing (`tracing.settle`).
        What is read back under the lock is the truth: a conversation that differs from its foreseen one
        (another writer meanwhile, a turn moved by a late span) is flagged again there (`_flags_of`)."""
        whole, _ = batch.stored_conversations(list(kept))
        out: dict[str, tuple[Conversation, list[Flag]]] = {}
        for cid, (channel, turns) in kept.items():
            lived = joined[cid]
            if whole[cid]:  # the stored turns, those of this batch's traces replaced, as the store gives them
                new = {t.trace_id for t in turns}
                merged = [t for t in whole[cid] if t.trace_id not in new] + [as_stored(cid, t) for t in turns]
                lived = join_steps(sorted(merged, key=lambda t: t.started_at))
            conversation = Conversation(cid, channel, lived)
            out[cid] = (conversation, self.flags(conversation))
        return out

    def _tally(self, stats: IngestStats, kept: Kept, joined: dict[str, list[Turn]]) -> None:
        """The conversations and turns kept (as lived: a tool-call step joined to its answer), and the
        tools seen with which ones escalate."""
        stats.conversations = len(kept)
        stats.kept = sum(len(joined[cid]) for cid in kept)
        for cid in kept:
            for turn in joined[cid]:
                for call in turn.tools:
                    if call.name not in stats.tools:
                        stats.tools[call.name] = self.config.escalates(call.name)

    @staticmethod
    def _merge_late_spans(
        batch: TraceBatch,
        traces: dict[str, list[SpanRecord]],
        records: list[SpanRecord],
        stored: dict[str, str],
    ) -> None:
        present = {(r.trace_id, r.span_id) for r in records}
        for row in batch.spans_of(sorted(stored)):
            if (row["trace_id"], row["span_id"]) not in present:
                traces[row["trace_id"]].append(from_row(row))

    def _turns(
        self, traces: dict[str, list[SpanRecord]], known: set[str], stats: IngestStats
    ) -> tuple[Kept, dict[str, str], dict[str, list[Turn]]]:
        """Each trace read as a turn, grouped by conversation (in order), and the conversations kept: all
        at rate 1; else those the hash keeps, those flagged, and those with a turn stored already (a late
        span of a kept trace). Also which conversation each trace's spans go to, and each kept
        conversation's turns as lived (`join_steps`: where a stack makes a trace per model call, a
        tool-call step is joined to the trace that answers; the counts are of those turns)."""
        read = self._read(traces, stats)
        kept: Kept = {}
        joined: dict[str, list[Turn]] = {}
        for conv_id, turns in read.grouped.items():
            channel = read.channels[conv_id]
            if len(turns) > 1:
                turns.sort(key=lambda t: t.started_at)
            lived = join_steps(turns)
            stats.turns += len(lived)
            keep = self.sample_rate >= 1 or sampled(conv_id, self.sample_rate)
            if not keep:
                keep = any(t.trace_id in known for t in turns) or bool(
                    self.flags(Conversation(conv_id, channel, lived))
                )
            if not keep:
                stats.sampled_out += len(lived)
                continue
            kept[conv_id], joined[conv_id] = (channel, turns), lived
            for turn in lived:  # said with the setting of the stacks these turns came from, not of every one
                if not turn.captured:
                    stats.uncaptured += 1
                    for name in read.stacks[turn.trace_id]:
                        stats.uncaptured_stacks[name] = stats.uncaptured_stacks.get(name, 0) + 1
        return kept, read.span_conv, joined

    def _read(self, traces: dict[str, list[SpanRecord]], stats: IngestStats) -> _Read:
        """Each trace as a turn (`turn_of`), by conversation; a trace of no convention is skipped."""
        read = _Read({}, {}, {}, {})
        seen = stats.stacks
        for trace_id, spans in traces.items():
            conv_id, channel, turn, _, found, earlier = turn_of(
                spans, self.config.escalation_tools, conversation_keys=self.config.conversation_keys
            )
            if not found:  # HTTP, database spans alone: context of no turn, no conversation
                stats.skipped += 1
                continue
            for name in found:
                seen[name] = seen.get(name, 0) + 1
            read.span_conv[trace_id] = conv_id
            read.grouped.setdefault(conv_id, []).extend((*earlier, turn))
            read.channels[conv_id] = channel  # the channel of the conversation's last trace read
            for t in (*earlier, turn):
                read.stacks[t.trace_id] = found
        results_elsewhere(traces, read.grouped, read.span_conv)
        return read

    @staticmethod
    def _moved(batch: TraceBatch, kept: Kept, stored: dict[str, str]) -> dict[str, str]:
        """Turns stored under one conversation that a late span placed in another: their spans follow
        them, and the turns an earlier reading took from their history and this one does not are dropped
        (`TraceBatch.drop_derived_turns`); the conversations they left are recomputed (returned, with their
        channel) or, left empty, dropped."""
        if not stored:
            return {}
        moves = [
            (t.trace_id, cid)
            for cid, (_, turns) in kept.items()
            for t in turns
            if stored.get(t.trace_id, cid) != cid
        ]
        now = {t.trace_id for _, turns in kept.values() for t in turns}
        derived = batch.drop_derived_turns(sorted(stored), SEPARATOR, now)
        if not moves and not derived:
            return {}
        batch.move_spans(moves)
        left = ({stored[trace_id] for trace_id, _ in moves} | derived) - set(kept)
        remaining, emptied = batch.channels_of_remaining(left)
        batch.drop_conversations(emptied)
        return remaining


def _flags_of(
    conversation: Conversation,
    foreseen: tuple[Conversation, list[Flag]] | None,
    flag: Callable[[Conversation], list[Flag]],
) -> list[Flag]:
    """The flags computed before the write (`Ingestor._foreseen`) when the conversation is the one foreseen,
    else flagged now."""
    if foreseen is not None and foreseen[0] == conversation:
        return foreseen[1]
    return flag(conversation)


def _rows(
    conversations: dict[str, Conversation],
    flags: dict[str, list[Flag]],
    human: dict[str, list[Flag]],
    inserted: dict[str, tuple[Any, ...]],
    new_ids: set[str],
) -> dict[str, dict[str, Any]]:
    """Each conversation's row by column name; a new one no rule flagged keeps the signature it was
    written with (computed once)."""
    return {
        cid: conversation_values(
            cid,
            conv.channel,
            conv.turns,
            flags[cid],
            human.get(cid, []),
            inserted[cid][SIGNATURE_AT] if cid in new_ids and not flags[cid] else None,
        )
        for cid, conv in conversations.items()
    }


def replaying(step: Callable[[list[SpanRecord]], IngestStats], records: list[SpanRecord]) -> IngestStats:
    """`step` (an ingest, or `tracing.settle.accept`), where a batch that lost a deadlock or a
    serialization race to another writer (several receivers on one PostgreSQL) is simply replayed."""
    from filon.tracing.isolate import sqlstate

    for attempt in range(3):
        try:
            return step(records)
        except Exception as exc:  # wrapped by SQLAlchemy, or the driver's own (the COPY path's cursor)
            code = sqlstate(exc)
            if code not in ("40P01", "40001") or attempt == 2:
                raise
            log.info("replaying a batch after %s", code)
    raise AssertionError("unreachable")
