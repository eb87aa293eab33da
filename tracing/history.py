"""What a model call's input replays: the calls read back in it, and the customer's earlier turns.

Many stacks send a model call the whole conversation so far. After the customer's newest message, its
input holds the calls made earlier in this very turn, each with its result as the model read it back
(`calls_in`, for `tracing.tool_calls.earlier_calls`). Before that message, it holds the turns the customer
lived earlier (`earlier_turns`): where the spans carry no conversation id, every trace is a conversation
of its own and those turns exist nowhere else, so ingest keeps them as the conversation's first turns,
each under its trace's id and its place (`TRACE~1`, `TRACE~2`…: stable, so a trace ingested again
writes the same rows). A stack that gives a conversation id sends each turn as its own trace: nothing is
taken from the history there.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from filon.miner.core.model import ToolCall, Turn
from filon.tracing.conventions import envelopes, openinference, traceloop
from filon.tracing.records import SpanRecord
from filon.tracing.tool_calls import INPUT, _model_arguments, messages

SEPARATOR = "~"  # between a trace's id and the place of a turn its history held


def calls_in(found: Sequence[Any], earlier: bool = True) -> list[ToolCall]:
    """The calls of these messages, each with the result read back for it (by call id), and a result
    whose call is not there at all as a call of that result's tool."""
    parts = [p for m in found if type(m) is dict for p in m.get("parts") or [] if type(p) is dict]
    given: dict[str, Any] = {}
    for p in parts:
        if p.get("type") == "tool_call_response" and p.get("id"):
            given.setdefault(str(p["id"]), p.get("response", p.get("result")))
    out: list[ToolCall] = []
    asked: set[str] = set()
    for p in parts:
        if p.get("type") == "tool_call" and p.get("name"):
            key = str(p.get("id") or "") or None
            asked.add(key or "")
            result = envelopes.result(given[key])[0] if key in given else None
            args = _model_arguments(p.get("arguments")) or {}
            out.append(
                ToolCall(str(p["name"]), args, result, None, p.get("arguments") is not None, key, earlier)
            )
    for p in parts:
        if p.get("type") == "tool_call_response" and str(p.get("id") or "") not in asked and p.get("name"):
            result = envelopes.result(p.get("response", p.get("result")))[0]
            out.append(
                ToolCall(str(p["name"]), {}, result, None, False, str(p.get("id") or "") or None, earlier)
            )
    return out


def _text(message: Any, role: str) -> str:
    if type(message) is not dict or message.get("role") != role:
        return ""
    parts = [p for p in message.get("parts") or [] if type(p) is dict and p.get("type") == "text"]
    return str(parts[-1].get("content", "")) if parts else ""


def _replayed(span: SpanRecord) -> list[Any]:
    """The whole input a model call (or, with none traced, the agent's run) was given: the readers of
    flattened messages keep only the newest user message and what follows for the turn itself, so the
    history is read again from their own attributes here."""
    for read in (traceloop.history, openinference.history):
        found = read(span.attributes)
        if len(found) > 1:
            return found
    return messages(span.attributes.get(INPUT))


def earlier_turns(
    models: Sequence[SpanRecord], trace_id: str, started_at: datetime, sender: str | None = None
) -> list[Turn]:
    """The turns the first model call's input (`models`: the turn's model calls, else its agent's run)
    replays before the customer's newest message, oldest first: each customer message with the calls and
    the last answer that follow it (`sender`: the customer's identity, the newest turn's)."""
    if not models:
        return []
    found = _replayed(models[0])
    asked = [i for i, m in enumerate(found) if _text(m, "user").strip()]
    turns = []
    for n, (start, end) in enumerate(pairwise(asked), 1):
        segment = found[start + 1 : end]
        answer = next((t for t in (_text(m, "assistant") for m in reversed(segment)) if t.strip()), "")
        turns.append(
            Turn(
                trace_id=f"{trace_id}{SEPARATOR}{n}",
                started_at=started_at - timedelta(microseconds=len(asked) - n),
                user=_text(found[start], "user"),
                agent=answer,
                tools=calls_in(segment, earlier=False),
                sender=sender,
            )
        )
    return turns
