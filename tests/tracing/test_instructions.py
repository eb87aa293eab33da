"""The agent's instructions (its system prompt) read from the spans other stacks recorded, stored with each
turn (`turns.instructions`), redacted as the rest, and read by `fait_non_fonde` as what the agent was told.
The texts expected are the recording scripts' own prompts (`fixtures/`), not what filon made of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from filon.miner.core.model import Turn
from tests.corpus import tau
from tests.tracing.stored import ingest

FIXTURES = Path(__file__).parent / "fixtures"
SHOP = "Tu es l'assistant"  # the start of the scripts' prompts (French ones)
ENGLISH = "You are the support assistant of an online shop."


@pytest.mark.parametrize(
    ("fixture", "start"),
    [
        ("adk-1.pb", SHOP),  # ADK 1.x: the request's `config.system_instruction`
        ("adk-2.pb", SHOP),  # ADK 2.x: `gen_ai.system_instructions`
        ("pydantic-ai.pb", SHOP),  # `gen_ai.system_instructions`
        ("openinference-scenarios.pb", SHOP),  # OpenInference: the flattened system message
        ("vercel-ai-scenarios.pb", SHOP),  # the AI SDK's prompt: its system message
        ("foreign-traffic-logfire.pb", ENGLISH),  # Logfire: a system message of the model call's input
        ("langgraph-openllmetry.pb", ENGLISH),  # OpenLLMetry: `gen_ai.system_instructions`
    ],
)
def test_each_stack_s_instructions_are_stored_with_each_turn(fixture: str, start: str, db_url: str) -> None:
    _, conversations = ingest(FIXTURES / fixture)
    turns = [t for found, _ in conversations.values() for t in found if t.agent]
    assert turns and all(t.instructions.startswith(start) for t in turns)
    assert not any(t.unseen_calls for t in turns)


def test_a_stack_that_records_none_leaves_the_turn_without() -> None:
    _, conversations = ingest(FIXTURES / "traceloop-workflow.pb")
    assert all(t.instructions == "" for found, _ in conversations.values() for t in found)


def test_a_long_conversation_keeps_what_its_first_turns_recorded() -> None:
    """tau-bench's airline agent (OpenInference): the SDK's attribute limit drops the oldest messages of a
    long conversation's model calls, the policy first; its earlier turns carry it, and the rule reads it
    for the whole conversation: a figure of the policy is no made-up fact."""
    (payload,) = [p for p in tau.payloads() if p.name == "task-00.pb.gz"]
    _, conversations = ingest(payload)
    policies = {t.instructions[:22] for found, _ in conversations.values() for t in found if t.instructions}
    assert policies == {"# Airline Agent Policy"}
    assert all(any(t.instructions for t in found) for found, _ in conversations.values())


def told_turn(folder: Path, role: str, told: str) -> Turn:
    """One model call whose input starts with a message of `role` saying `told`, written as JSON text
    (as the GenAI convention records it), through `filon ingest`: the one turn stored."""
    text = [{"role": "assistant", "parts": [{"type": "text", "content": "Bonjour !"}]}]
    asked = [
        {"role": role, "parts": [{"type": "text", "content": told}]},
        {"role": "user", "parts": [{"type": "text", "content": "Bonjour"}]},
    ]
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.conversation.id": f"web:{role}",
        "gen_ai.input.messages": json.dumps(asked),
        "gen_ai.output.messages": json.dumps(text),
    }
    span = {
        "traceId": "1" * 32,
        "spanId": "2" * 16,
        "name": "chat",
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000900000000",
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
    }
    doc = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [span]}]}]}
    (folder / "told.json").write_text(json.dumps(doc), encoding="utf-8")
    _, conversations = ingest(folder / "told.json")
    [(turn,)] = [tuple(found) for found, _ in conversations.values()]
    return turn


def test_instructions_are_redacted_before_they_are_stored(tmp_path: Path) -> None:
    told = "Tu es l'assistant. Escalade à jeanne.dupont@exemple.fr ou au 06 12 34 56 78."
    turn = told_turn(tmp_path, "system", told)
    assert turn.instructions.startswith("Tu es l'assistant. Escalade à ")
    assert "jeanne.dupont" not in turn.instructions and "06 12 34 56 78" not in turn.instructions


def test_a_developer_message_written_as_json_text_is_read_as_instructions(tmp_path: Path) -> None:
    """OpenAI's newer role for the instructions, in a GenAI input kept as JSON text."""
    turn = told_turn(tmp_path, "developer", "Tu es l'assistant de la boutique.")
    assert turn.instructions == "Tu es l'assistant de la boutique."
