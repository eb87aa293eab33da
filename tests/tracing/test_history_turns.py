"""A model call that replays the conversation so far in its input: with no conversation id on the spans,
the turns it replays are the conversation's first turns (they exist nowhere else); with one, each turn
came as its own trace and nothing is taken from the history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from filon.cli import app

runner = CliRunner()
HISTORY = [
    {"role": "system", "parts": [{"type": "text", "content": "You are the shop's assistant."}]},
    {"role": "user", "parts": [{"type": "text", "content": "Hi!"}]},
    {"role": "assistant", "parts": [{"type": "text", "content": "Hello, how can I help?"}]},
    {"role": "user", "parts": [{"type": "text", "content": "Where is order A-1?"}]},
    {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "c1", "name": "track", "arguments": {"order": "A-1"}}],
    },
    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "in transit"}]},
    {"role": "assistant", "parts": [{"type": "text", "content": "It is in transit."}]},
    {"role": "user", "parts": [{"type": "text", "content": "Thanks!"}]},
]


def payload(conversation: str | None) -> dict[str, Any]:
    def kv(key: str, value: str) -> dict[str, Any]:
        return {"key": key, "value": {"stringValue": value}}

    attributes = [
        kv("gen_ai.operation.name", "chat"),
        kv("gen_ai.input.messages", json.dumps(HISTORY)),
        kv(
            "gen_ai.output.messages",
            json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "You're welcome."}]}]),
        ),
    ]
    if conversation:
        attributes.append(kv("gen_ai.conversation.id", conversation))
    span = {
        "traceId": "7" * 32,
        "spanId": "8" * 16,
        "name": "chat model",
        "startTimeUnixNano": "1764900000000000000",
        "endTimeUnixNano": "1764900001000000000",
        "attributes": attributes,
    }
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


def turns(tmp_path: Path, conversation: str | None, times: int = 1) -> list[dict[str, Any]]:
    path = tmp_path / "call.json"
    path.write_text(json.dumps(payload(conversation)))
    for _ in range(times):
        result = runner.invoke(app, ["ingest", str(path)])
        assert result.exit_code == 0, result.output
    [listed] = json.loads(runner.invoke(app, ["traces", "list", "--json"]).stdout)
    shown = json.loads(runner.invoke(app, ["traces", "show", listed["conversation_id"], "--json"]).stdout)
    return shown["turns"]


def test_with_no_conversation_id_the_replayed_turns_come_first_and_once(tmp_path: Path) -> None:
    found = turns(tmp_path, None, times=2)  # the same trace twice: the same rows
    assert [(t["user"], t["agent"]) for t in found] == [
        ("Hi!", "Hello, how can I help?"),
        ("Where is order A-1?", "It is in transit."),
        ("Thanks!", "You're welcome."),
    ]
    [call] = found[1]["tools"]
    assert (call["name"], call["arguments"], call["result"]) == ("track", {"order": "A-1"}, "in transit")
    assert found[0]["tools"] == [] and found[2]["tools"] == []


def test_with_a_conversation_id_nothing_is_taken_from_the_history(tmp_path: Path) -> None:
    found = turns(tmp_path, "c-42")
    assert [(t["user"], t["agent"]) for t in found] == [("Thanks!", "You're welcome.")]
