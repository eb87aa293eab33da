"""A model call that replays the conversation so far in its input: with no conversation id on the spans,
the turns it replays are the conversation's first turns (they exist nowhere else); with one, each turn
came as its own trace and nothing is taken from the history. The same in every form a stack writes the
input in: GenAI messages, OpenLLMetry's and OpenInference's flattened ones (whose readers keep only the
newest message for the turn itself), and an agent's run with no model call traced (pydantic-ai's
`all_messages`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app
from tests.tracing.helpers import one_span

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


ANSWER = "You're welcome."


def genai() -> dict[str, str]:
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}]
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": json.dumps(HISTORY),
        "gen_ai.output.messages": json.dumps(answer),
    }


def pydantic_ai_run() -> dict[str, str]:
    """An agent's run whose model calls are not traced: the whole conversation in `all_messages`."""
    return {
        "gen_ai.operation.name": "invoke_agent",
        "pydantic_ai.all_messages": json.dumps(HISTORY),
        "final_result": ANSWER,
    }


def flattened(prefix: str, field: str, call: str, out: str) -> dict[str, str]:
    """HISTORY written message by message (`prefix`N`.`…), with the tool call's keys under `call`."""
    found: dict[str, str] = {}
    function = "function." if call else ""
    for n, message in enumerate(HISTORY):
        base = f"{prefix}{n}.{field}"
        found[base + "role"] = message["role"]
        for part in message["parts"]:
            if part["type"] == "text":
                found[base + "content"] = part["content"]
            elif part["type"] == "tool_call":
                found[f"{base}tool_calls.0.{call}id"] = part["id"]
                found[f"{base}tool_calls.0.{call}{function}name"] = part["name"]
                found[f"{base}tool_calls.0.{call}{function}arguments"] = '{"order": "A-1"}'
            else:
                found[base + "tool_call_id"], found[base + "content"] = part["id"], part["response"]
    return {**found, out + "role": "assistant", out + "content": ANSWER}


def openllmetry() -> dict[str, str]:
    return {"llm.request.type": "chat", **flattened("gen_ai.prompt.", "", "", "gen_ai.completion.0.")}


def openinference() -> dict[str, str]:
    return {
        "openinference.span.kind": "LLM",
        **flattened("llm.input_messages.", "message.", "tool_call.", "llm.output_messages.0.message."),
    }


FORMS = {
    "genai": genai,
    "pydantic_ai_run": pydantic_ai_run,
    "openllmetry": openllmetry,
    "openinference": openinference,
}


def payload(conversation: str | None, form: str = "genai") -> dict[str, Any]:
    attributes = FORMS[form]()
    if conversation:
        attributes["gen_ai.conversation.id"] = conversation
    return one_span("chat model", attributes, trace_id="7" * 32, span_id="8" * 16)


def turns(
    tmp_path: Path, conversation: str | None, times: int = 1, form: str = "genai"
) -> list[dict[str, Any]]:
    path = tmp_path / "call.json"
    path.write_text(json.dumps(payload(conversation, form)))
    for _ in range(times):
        result = runner.invoke(app, ["ingest", str(path)])
        assert result.exit_code == 0, result.output
    [listed] = json.loads(runner.invoke(app, ["traces", "list", "--json"]).stdout)
    shown = json.loads(runner.invoke(app, ["traces", "show", listed["conversation_id"], "--json"]).stdout)
    return shown["turns"]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_with_no_conversation_id_the_replayed_turns_come_first_and_once(tmp_path: Path, form: str) -> None:
    found = turns(tmp_path, None, times=2, form=form)  # the same trace twice: the same rows
    assert [(t["user"], t["agent"]) for t in found] == [
        ("Hi!", "Hello, how can I help?"),
        ("Where is order A-1?", "It is in transit."),
        ("Thanks!", "You're welcome."),
    ]
    [call] = found[1]["tools"]
    assert (call["name"], call["arguments"], call["result"]) == ("track", {"order": "A-1"}, "in transit")
    assert found[0]["tools"] == [] and found[2]["tools"] == []


@pytest.mark.parametrize("form", sorted(FORMS))
def test_with_a_conversation_id_nothing_is_taken_from_the_history(tmp_path: Path, form: str) -> None:
    found = turns(tmp_path, "c-42", form=form)
    assert [(t["user"], t["agent"]) for t in found] == [("Thanks!", "You're welcome.")]
