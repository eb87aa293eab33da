"""Inline ingest reads the same store whatever the batches the spans came in: a trace read first in part
(its conversation id in a span still to come, its history taken as earlier turns) and then whole leaves
no conversation of its part behind; and a call takes a result read back by a model call only within its
own conversation, since models reuse call ids across conversations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from filon.miner.store import Store
from filon.tracing.ingest import Ingestor
from filon.tracing.records import SpanRecord, batched
from filon.tracing.redact import Redactor
from tests.tracing.test_settle import contents, tau_config, tau_records


@pytest.mark.parametrize("size", [97, 13])
def test_small_mixed_batches_store_what_one_batch_stores(tmp_path: Path, db_url: str, size: int) -> None:
    """Real conversations (tau-bench, OpenInference: the session id on the agent span only, the history
    on every LLM span), their spans mixed and cut into small batches: a trace whose LLM span came before
    its agent span was read as a conversation of its own, with its history as earlier turns. SQLite and
    PostgreSQL."""
    config, records = tau_config(tmp_path), tau_records(6)
    whole = Store.open(f"sqlite:///{tmp_path / 'whole'}.db")
    Ingestor(whole, config, Redactor(b"k")).ingest(records)
    parts = Store.open(db_url)
    ingestor = Ingestor(parts, config, Redactor(b"k"))
    for batch in batched(records, size):
        ingestor.ingest(batch)
    assert contents(parts) == contents(whole)
    with parts.engine.connect() as conn:
        assert not conn.execute(text("SELECT id FROM conversations WHERE id LIKE 'trace:%'")).all()


def _model(trace_id: str, conversation: str, inputs: list[Any], outputs: list[Any]) -> SpanRecord:
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.conversation.id": conversation,
        "gen_ai.input.messages": json.dumps(inputs),
        "gen_ai.output.messages": json.dumps(outputs),
    }
    return SpanRecord(trace_id, f"s-{trace_id}", None, "chat m", 1, 2, attributes=attributes)


def _said(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


ASKED = {
    "role": "assistant",
    "parts": [{"type": "tool_call", "id": "call_0", "name": "get_order", "arguments": {"order_id": "A-1"}}],
}


def _given(result: str) -> dict[str, Any]:
    return {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_0", "response": result}]}


def _results(store: Store, conversation: str) -> list[Any]:
    with store.engine.connect() as conn:
        sql = text("SELECT tools FROM turns WHERE conversation_id = :c ORDER BY trace_id")
        rows = conn.execute(sql, {"c": conversation}).all()
    return [call["result"] for (tools,) in rows for call in json.loads(tools or "[]")]


def test_a_call_takes_a_result_only_from_its_own_conversation(tmp_path: Path) -> None:
    """Each model call a trace of its own (a client loop): a call's result is in the next call's input.
    Another conversation reusing the call id (`call_0`) does not give this call its result; the next
    call of its own conversation does."""
    hello = _said("user", "Where is my order A-1?")
    asked = _model("a1", "alice", [hello], [ASKED])
    other = _model(
        "b1",
        "bob",
        [_said("user", "Status of B-2?"), ASKED, _given('{"owner": "bob", "status": "late"}')],
        [_said("assistant", "It is late.")],
    )
    store = Store.open(f"sqlite:///{tmp_path / 'a'}.db")
    Ingestor(store).ingest([asked, other])
    assert _results(store, "alice") == [None]
    answered = _model(
        "a2",
        "alice",
        [hello, ASKED, _given('{"owner": "alice", "status": "due"}')],
        [_said("assistant", "Due.")],
    )
    store = Store.open(f"sqlite:///{tmp_path / 'b'}.db")
    Ingestor(store).ingest([asked, other, answered])
    assert {"owner": "alice", "status": "due"} in _results(store, "alice")
    assert {"owner": "bob", "status": "late"} not in _results(store, "alice")


def test_a_result_read_back_for_another_tool_under_the_same_id_is_not_taken(tmp_path: Path) -> None:
    """In one conversation the model reused `call_0` for a `calculate`: the result read back under that id
    is the calculation's, not the order lookup's."""
    hello = _said("user", "Where is my order A-1?")
    asked = _model("a1", "alice", [hello], [ASKED])
    reused = {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "call_0", "name": "calculate", "arguments": {"e": "2*3"}}],
    }
    later = _model("a2", "alice", [hello, reused, _given("6.0")], [_said("assistant", "Six.")])
    store = Store.open(f"sqlite:///{tmp_path / 'a'}.db")
    Ingestor(store).ingest([asked, later])
    assert 6.0 not in _results(store, "alice") and "6.0" not in _results(store, "alice")


def _ask(order: str, tool: str = "get_order") -> dict[str, Any]:
    return {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_0", "name": tool, "arguments": {"order_id": order}}]}  # fmt: skip


def _stored(records: list[SpanRecord], batches: list[list[str]], tmp_path: Path, name: str) -> list[Any]:
    by_id = {r.trace_id: r for r in records}
    store = Store.open(f"sqlite:///{tmp_path / name}.db")
    ingestor = Ingestor(store)
    for batch in batches:
        ingestor.ingest([by_id[t] for t in batch])
    return _results(store, "alice")


def test_an_id_reused_for_the_same_tool_takes_each_request_s_own_result(tmp_path: Path) -> None:
    """`call_0` asked for A-1, then, later in the conversation, for B-2: each call takes the result read
    back for its own request, whatever the batches."""
    first, second = _said("user", "Where is A-1?"), _said("user", "And B-2?")
    due, late = _given('{"order": "A-1", "status": "due"}'), _given('{"order": "B-2", "status": "late"}')
    records = [
        _model("a1", "alice", [first], [_ask("A-1")]),
        _model("a2", "alice", [first, _ask("A-1"), due], [_said("assistant", "Due.")]),
        _model("a3", "alice", [first, _ask("A-1"), due, second], [_ask("B-2")]),
        _model("a4", "alice", [first, _ask("A-1"), due, second, _ask("B-2"), late], [_said("assistant", "Late.")]),
    ]  # fmt: skip
    whole = _stored(records, [["a1", "a2", "a3", "a4"]], tmp_path, "whole")
    assert whole == [{"order": "A-1", "status": "due"}, {"order": "B-2", "status": "late"}]
    assert _stored(records, [["a1", "a2"], ["a3", "a4"]], tmp_path, "split") == whole
    # a request whose answering trace came in an earlier batch waits for it (it is not read again): its
    # result is missing, never another request's
    assert _stored(records, [["a1", "a2", "a4"], ["a3"]], tmp_path, "late") == [whole[0], None]


def test_a_trace_whose_conversation_is_still_to_come_gives_no_one_its_results(tmp_path: Path) -> None:
    """Bob's model call came before the span that names his conversation: Alice's waiting call (the same
    id, tool and arguments) does not take Bob's result, in that batch or once Bob's trace is named."""
    hello = _said("user", "Where is A-1?")
    alice = _model("a1", "alice", [hello], [_ask("A-1")])
    bob = _model("b1", "", [_said("user", "Where is A-1?"), _ask("A-1"), _given('{"owner": "bob"}')], [])
    bob.attributes.pop("gen_ai.conversation.id")
    named = SpanRecord("b1", "root-b1", None, "invoke_agent a", 0, 3, attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "bob"})  # fmt: skip
    bob = SpanRecord("b1", "s-b1", "root-b1", bob.name, 1, 2, attributes=bob.attributes)
    records = [alice, bob, named]
    assert _stored(records, [["a1", "b1"]], tmp_path, "whole") == [None]
    by_id = {(r.trace_id, r.span_id): r for r in records}
    store = Store.open(f"sqlite:///{tmp_path / 'split'}.db")
    ingestor = Ingestor(store)
    ingestor.ingest([by_id["a1", "s-a1"], by_id["b1", "s-b1"]])
    ingestor.ingest([by_id["b1", "root-b1"]])
    assert _results(store, "alice") == [None]
