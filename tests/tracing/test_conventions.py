"""Someone else's agent: spans recorded from real installs of other stacks (OpenInference's google-genai
instrumentation, the Vercel AI SDK; each instrumented the way its docs say, against the scripted model,
the recording scripts in `fixtures/`), read into the same turns as filon's own convention, never "the
agent answered nothing"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.store import Store
from filon.tracing.conventions import indexed
from filon.tracing.conventions.openinference import to_genai
from filon.tracing.grouping import turn_of
from filon.tracing.records import SpanRecord

FIXTURES = Path(__file__).parent / "fixtures"
runner = CliRunner()
ESCALATION = "Je veux parler à un humain, ma commande LL-10587 est abîmée"


@pytest.mark.parametrize(
    ("fixture", "conversations", "escalated"),
    [
        # the escalation's answer says the shop's hours, which neither these recordings' instructions
        # nor their transfer tool's result gave: a fact the agent saw nowhere (`fait_non_fonde`)
        (
            "openinference-google-genai.pb",
            {"oi-web-1": [], "oi-web-2": ["grounding", "escalation"]},
            "oi-web-2",
        ),
        ("vercel-ai-sdk.pb", {"ai-web-1": ["grounding", "escalation"]}, "ai-web-1"),
    ],
)
def test_another_stack_s_traces_become_its_conversations(
    fixture: str, conversations: dict[str, list[str]], escalated: str, db_url: str
) -> None:
    result = runner.invoke(app, ["ingest", str(FIXTURES / fixture), "--sample-rate", "1"])
    assert result.exit_code == 0, result.output
    rows = json.loads(runner.invoke(app, ["traces", "list", "--json"]).stdout)
    # the stack's session id, not one conversation per trace; no "answered nothing"
    assert {r["conversation_id"]: r["flags"] for r in rows} == conversations
    found = Store.open().traces.conversation_detail(escalated)
    assert found is not None
    _, turns, _ = found
    assert [t.user for t in turns] == [ESCALATION, "Merci"]
    assert turns[0].agent.startswith("Je transmets votre demande à un conseiller")
    assert turns[1].agent.startswith("Bonjour")
    [call] = turns[0].tools  # the real arguments and result, never the tool's schema
    assert (call.name, call.arguments, call.result) == (
        "transferer_a_un_conseiller",
        {"motif": ESCALATION},
        {"ticket": "T-0001"},
    )
    assert turns[0].escalated and turns[0].input_tokens > 0 and turns[0].output_tokens > 0


def test_openinference_tokens_are_the_model_calls_sum(db_url: str) -> None:
    runner.invoke(app, ["ingest", str(FIXTURES / "openinference-google-genai.pb"), "--sample-rate", "1"])
    found = Store.open().traces.conversation_detail("oi-web-2")
    assert found is not None
    first = found[1][0]
    assert (first.input_tokens, first.output_tokens) == (169 + 243, 39 + 49)  # llm.token_count.*, two calls


def test_a_tool_span_gives_its_real_arguments_never_its_schema() -> None:
    schema = json.dumps({"type": "object", "properties": {"numero": {"type": "string"}}})
    tool = SpanRecord(
        "t1",
        "s2",
        "s1",
        "consulter_commande",
        2,
        3,
        attributes={
            "openinference.span.kind": "TOOL",
            "tool.name": "consulter_commande",
            "tool.parameters": schema,
            "input.value": '{"numero": "LL-10587"}',
            "output.value": '{"statut": "livrée"}',
            "session.id": "s",
        },
    )
    agent = SpanRecord(
        "t1",
        "s1",
        None,
        "answer",
        1,
        4,
        attributes={
            "openinference.span.kind": "AGENT",
            "session.id": "s",
            "output.value": "Livrée.",
            "output.mime_type": "text/plain",
        },
    )
    assert to_genai(tool).attributes["gen_ai.tool.call.arguments"] == '{"numero": "LL-10587"}'
    read = turn_of([agent, tool], ["transferer_a_un_conseiller"])
    assert read.conversation_id == "s" and read.turn.agent == "Livrée."
    assert [(c.name, c.arguments, c.result) for c in read.turn.tools] == [
        ("consulter_commande", {"numero": "LL-10587"}, {"statut": "livrée"})
    ]


def test_other_stacks_conversation_keys_in_order() -> None:
    def span(span_id: str, **attributes: object) -> SpanRecord:
        return SpanRecord("t9", span_id, None, "chat m", 1, 2, attributes=dict(attributes))

    traceloop = span("a", **{"traceloop.association.properties.session_id": "tl-1"})
    vercel = span("b", **{"ai.telemetry.metadata.sessionId": "ai-1"})
    both = span("c", **{"gen_ai.conversation.id": "otel-1", "session.id": "s-1"})
    assert turn_of([traceloop], []).conversation_id == "tl-1"
    assert turn_of([vercel], []).conversation_id == "ai-1"
    assert turn_of([traceloop, vercel, both], []).conversation_id == "otel-1"  # the GenAI key first
    assert turn_of([span("d")], []).conversation_id == "trace:t9"


@given(st.integers(min_value=0, max_value=5000))
def test_an_indexed_list_is_counted_in_a_few_lookups(n: int) -> None:
    """`llm.input_messages.N…`, `gen_ai.prompt.N…`: how many, by doubling then halving."""
    asked: list[int] = []
    assert indexed.count(lambda i: asked.append(i) is None and i < n) == n
    assert len(asked) <= 2 * (n.bit_length() + 1) + 1


def test_a_plain_user_id_is_the_customer_s_only_on_the_turn_s_own_span() -> None:
    """`logfire.span("turn", user_id=…)` names who asks; `@logfire.instrument` on `load_customer(user_id)`
    names whose record a helper loads: read as the customer, it would make their own order a leak."""
    root = SpanRecord("t7", "r", None, "support turn", 1, 9, attributes={"gen_ai.conversation.id": "c"})
    helper = SpanRecord("t7", "h", "r", "load_customer", 2, 3, attributes={"user_id": "u-8"})
    assert turn_of([root, helper], []).turn.sender is None
    own = SpanRecord(
        "t7", "r", None, "support turn", 1, 9, attributes={"gen_ai.conversation.id": "c", "user_id": "u-5"}
    )
    assert turn_of([own, helper], []).turn.sender == "u-5"
