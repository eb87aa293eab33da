"""Each shape of the store beside its table: a `Turn` as a turns row and back, a conversation as its row,
flags as rows, by column name. The column tuples come from the table classes, so a mapping and its
table cannot drift apart (`tests/miner/test_rows.py` holds each mapping to its table's columns).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from filon.miner.core.jsontext import dumps, loads
from filon.miner.core.messages import Said
from filon.miner.core.model import Flag, ToolCall, Turn
from filon.miner.core.severity import NO_FLAG
from filon.miner.store.signature import signature
from filon.miner.store.tables import ConversationRow, SpanRow, TurnRow

SPAN_COLUMNS = tuple(SpanRow.model_fields)  # what the ingest path's span rows hold, in this order


TURN_COLUMNS = tuple(TurnRow.model_fields)


def turn_row(conversation_id: str, turn: Turn) -> tuple[Any, ...]:
    """A turn's row, in `TURN_COLUMNS` order."""
    return (
        turn.trace_id,
        conversation_id,
        turn.started_at,
        turn.user,
        turn.agent,
        dumps([t.as_json() for t in turn.tools]) if turn.tools else "[]",
        turn.escalated,
        turn.latency_ms,
        turn.input_tokens,
        turn.output_tokens,
        dumps(turn.error_types) if turn.error_types else "[]",
        dumps(turn.failed_spans) if turn.failed_spans else "[]",
        turn.feedback,
        turn.sender,
        turn.instructions,
    )


def row_turn(row: TurnRow | Mapping[str, Any]) -> Turn:
    """A stored turn back as the flags' `Turn`; takes an ORM row or a plain result mapping."""
    r: Mapping[str, Any] = row.model_dump() if isinstance(row, TurnRow) else row
    started: datetime = r["started_at"]
    return Turn(
        trace_id=r["trace_id"],
        started_at=started if started.tzinfo else started.replace(tzinfo=UTC),
        user=r["user_text"],
        agent=r["agent_text"],
        tools=[ToolCall(**t) for t in loads(r["tools"])],
        escalated=bool(r["escalated"]),
        latency_ms=r["latency_ms"],
        input_tokens=r["input_tokens"],
        output_tokens=r["output_tokens"],
        error_types=loads(r["error_types"]),
        failed_spans=loads(r["failed_spans"]),
        feedback=r["feedback"],
        sender=r["sender"],
        instructions=r["instructions"],
    )


def as_stored(conversation_id: str, turn: Turn) -> Turn:
    """`turn` as the store gives it back (`row_turn` of its `turn_row`): what no column holds (a call's id)
    left out."""
    return row_turn(dict(zip(TURN_COLUMNS, turn_row(conversation_id, turn), strict=True)))


CONVERSATION_COLUMNS = tuple(ConversationRow.model_fields)
WRITE_MADE = "write_made"  # `miner.rules.writes`' cause, by name: the store never imports the rules
SIGNATURE_AT = CONVERSATION_COLUMNS.index("signature")  # where a row tuple holds it, whatever comes after


def conversation_row(
    cid: str, channel: str, turns: list[Turn], flags: list[Flag], human: list[Flag], known: str | None = None
) -> tuple[Any, ...]:
    """A conversation's row, in `CONVERSATION_COLUMNS` order, from its turns (in order) and flags, rule
    and human: its kinds by their most urgent flag, its priority and the reason of its top flag, and
    whether a write succeeded (the queue's order within a severity)."""
    everything = [*human, *flags]
    top: Flag | None = None
    ranked: dict[str, int] = {}
    for f in everything:
        p = f.priority
        if top is None or (p, f.turn) < (top.priority, top.turn):  # the earliest of the most urgent
            top = f
        if p < ranked.get(f.kind, NO_FLAG + 1):
            ranked[f.kind] = p
    kinds = sorted(ranked, key=lambda k: (ranked[k], k))
    escalated = False
    for t in turns:
        if t.escalated:
            escalated = True
            break
    return (
        cid,
        channel,
        turns[0].started_at,
        turns[-1].started_at,
        len(turns),
        escalated,
        dumps(kinds) if kinds else "[]",
        top.priority if top else NO_FLAG,
        top.reason if top else "",
        # the rule flags': a person's incident mark stays in its group (`known`: computed already)
        signature(channel, turns, flags) if known is None else known,
        any(f.cause == WRITE_MADE for f in flags),
    )


def conversation_values(
    cid: str, channel: str, turns: list[Turn], flags: list[Flag], human: list[Flag], known: str | None = None
) -> dict[str, Any]:
    """`conversation_row`, by column name."""
    row = conversation_row(cid, channel, turns, flags, human, known)
    return dict(zip(CONVERSATION_COLUMNS, row, strict=True))


def flag_rows(cid: str, flags: list[Flag], now: datetime) -> list[dict[str, Any]]:
    return [
        {
            "conversation_id": cid,
            "trace_id": f.trace_id,
            "turn": f.turn,
            "kind": f.kind,
            "severity": f.severity,
            "reason": f.reason,
            "cause": f.cause,
            "reason_code": f.said.model_dump_json() if f.said is not None else "",
            "source": "rule",
            "created_at": now,
        }
        for f in flags
    ]


FLAG_FIELDS = (
    "kind",
    "severity",
    "turn",
    "reason",
    "trace_id",
    "cause",
    "reason_code",
)  # what a `Flag` reads


def flag_of_row(row: Any) -> Flag:
    """A stored flag (an ORM row, a result row or a mapping by column name) back as a `Flag`, its reason's
    code read back where it has one."""
    values = (
        [row[f] for f in FLAG_FIELDS] if isinstance(row, Mapping) else [getattr(row, f) for f in FLAG_FIELDS]
    )
    kind, severity, turn, reason, trace_id, cause, code = values
    return Flag(kind, severity, turn, reason, trace_id, cause, _said(code))


def _said(code: str) -> Said | None:
    """A stored reason's code; None where there is none or it does not parse (a row edited by hand).
    Whether this version can say it is `Flag.say`'s to find, where it is said."""
    if not code:
        return None
    try:
        return Said.model_validate_json(code)
    except ValueError:
        return None
