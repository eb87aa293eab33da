"""Payloads recorded from real installs of the OpenAI-world stacks (the OpenAI Agents SDK with
OpenInference and with Logfire, on the Responses API and on Chat Completions; LangGraph with OpenInference and with OpenLLMetry, invoked and streamed;
a LlamaIndex FunctionAgent with OpenInference; a hand-written loop on the `openai` client with
OpenInference and with Logfire), each running one English support agent against a scripted
OpenAI-compatible model (`fixtures/openai_world.py`, `scripted_openai.py` and the `record_*.py`
scripts). The expectations below come from those scripts (what each customer said, which tool the
scripted model calls with which arguments, what each tool returns, how the model answers), not from
what filon made of the payloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.core.model import Turn
from filon.miner.store import Store
from tests.tracing.stored import ingest as ingest_path
from tests.tracing.stored import stored

FIXTURES = Path(__file__).parent / "fixtures"
runner = CliRunner()

GREETING, FAQ = "Hello!", "How much is shipping?"
TRACKING, HUMAN = (
    "Where is my parcel for order A-300?",
    "I want to talk to a human, my parcel arrived damaged.",
)
THREE = ("Hi", "What's the status of my order A-301?", "Thanks!")
QUOTA = "What's the status of my order A-300?"
HELLO, WELCOME = "Hello! How can I help you today?", "You're welcome! Have a nice day."
SHIPPING = "Shipping costs $4.90 and is free from $60."
A300 = {"order_id": "A-300", "status": "in transit", "carrier": "UPS", "tracking": "1Z999AA10123456784",
        "expected": "tomorrow", "customer_id": "u-3"}  # fmt: skip
A301 = {
    "order_id": "A-301",
    "status": "shipped",
    "shipped_on": "December 1",
    "total": "$42.00",
    "customer_id": "u-5",
}
# the customer's messages → per turn: the tools called (name, arguments, result) and the answer
SCENARIOS: dict[tuple[str, ...], list[tuple[list[tuple[str, dict[str, Any], Any]], str]]] = {
    (GREETING,): [([], HELLO)],
    (FAQ,): [
        ([("search_help", {"query": FAQ}, {"passages": [{"title": "Shipping", "text": SHIPPING}]})], SHIPPING)
    ],
    (TRACKING,): [
        (
            [("track_parcel", {"order_id": "A-300"}, A300)],
            "Your parcel for order A-300 is in transit with UPS (tracking 1Z999AA10123456784), expected tomorrow.",
        )
    ],
    (HUMAN,): [
        (
            [("transfer_to_human", {"reason": HUMAN}, {"ticket": "T-42", "reason": HUMAN})],
            "I've transferred you to an advisor, who will get back to you (ticket T-42).",
        )
    ],
    THREE: [
        ([], HELLO),
        ([("lookup_order", {"order_id": "A-301"}, A301)], "Your order A-301 shipped on December 1."),
        ([], WELCOME),
    ],
}
# fixture → the prefix of its conversation ids, and whether its failed model call records its input
STACKS = {
    "openai-agents-openinference.pb": ("oa", False),
    "openai-agents-logfire.pb": ("lf", False),
    "openai-agents-logfire-chat.pb": ("lfc", True),  # the SDK's Chat Completions model
    "langgraph-openinference.pb": ("lgoi", True),
    "langgraph-openinference-stream.pb": ("lgoi", True),
    "langgraph-openllmetry.pb": ("lgtl", True),
    "langgraph-openllmetry-stream.pb": ("lgtl", True),
    "llamaindex-openinference.pb": ("li", True),
    "openai-client-openinference.pb": ("oo", True),
    "openai-client-logfire.pb": ("ol", True),
}


def ingest(fixture: str) -> tuple[str, dict[str, tuple[list[Turn], list[str]]]]:
    return ingest_path(FIXTURES / fixture)


def check(conversations: dict[str, tuple[list[Turn], list[str]]], fixture: str) -> None:
    prefix, quota_input = STACKS[fixture]
    names = ("greet", "faq", "track", "human", "three", "429")
    assert set(conversations) == {f"{prefix}-{name}" for name in names}
    read = {tuple(t.user for t in turns): (turns, causes) for turns, causes in conversations.values()}
    for users, expected in SCENARIOS.items():
        turns, causes = read[users]
        assert [[(c.name, c.arguments, c.result) for c in t.tools] for t in turns] == [e[0] for e in expected]
        assert [t.agent for t in turns] == [e[1] for e in expected]
        assert [t.escalated for t in turns] == [users == (HUMAN,)] * len(turns)
        assert causes == (["transfer_asked"] if users == (HUMAN,) else [])
    turns, causes = conversations[f"{prefix}-429"]
    assert [t.user for t in turns] == [QUOTA if quota_input else ""]
    assert "quota" in causes and "empty_answer" not in causes


@pytest.mark.parametrize("fixture", sorted(STACKS))
def test_each_conversation_turn_text_and_tool_call_with_arguments_and_result(fixture: str) -> None:
    _, conversations = ingest(fixture)
    check(conversations, fixture)


@pytest.mark.parametrize("fixture", sorted(STACKS))
def test_the_same_through_filon_serve(fixture: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    from filon.tracing.receiver import ReceiverSettings
    from tests.tracing.server import running

    db = tmp_path / "served.db"
    headers = {"Content-Type": "application/x-protobuf"}
    monkeypatch.setenv("FILON_SAMPLE_RATE", "1")
    with running(ReceiverSettings(db=f"sqlite:///{db}")) as url:
        answer = httpx.post(f"{url}/v1/traces", content=(FIXTURES / fixture).read_bytes(), headers=headers)
        assert answer.status_code == 200, answer.text
    monkeypatch.setenv("FILON_DB", f"sqlite:///{db}")
    check(stored(), fixture)


def test_the_stack_s_user_id_is_the_customer_s() -> None:
    """Where each stack puts it: OpenInference's `using_user`, LangGraph's run metadata through
    OpenLLMetry, the Agents SDK's trace metadata through Logfire, Logfire's span attribute."""
    for fixture, prefix in (
        ("openai-agents-logfire.pb", "lf"),
        ("langgraph-openllmetry.pb", "lgtl"),
        ("llamaindex-openinference.pb", "li"),
        ("openai-client-logfire.pb", "ol"),
    ):
        _, conversations = ingest(fixture)
        turns, _ = conversations[f"{prefix}-three"]
        assert {t.sender for t in turns} == {"u-5"}, fixture


def test_an_english_agent_s_conversation_drafts_a_case_of_its_own_tools_that_lints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LangGraph's three turns: the lookup on the customer's own order with the agent's own argument
    name, per turn (the agent's own lookup forbidden where it was not called, never the reference
    shop's), a fact of the answer, its category; written and linted in a set whose filon.toml names the
    agent's tools."""
    monkeypatch.chdir(tmp_path)
    tools = ["search_help", "lookup_order", "track_parcel", "transfer_to_human"]
    (tmp_path / "filon.toml").write_text(f"tools = {json.dumps(tools)}\n", encoding="utf-8")
    cases = tmp_path / "cases"
    cases.mkdir()
    monkeypatch.setenv("FILON_GOLDENS", str(cases))
    ingest("langgraph-openinference.pb")
    drafted = runner.invoke(app, ["draft", "lgoi-three", "--write"])
    assert drafted.exit_code == 0, drafted.output
    [path] = cases.glob("*.json")
    case = json.loads(path.read_text(encoding="utf-8"))
    own = {"outil": "lookup_order", "args": {"order_id": {"du_cas": "commande"}}}
    assert case["categorie"] == "commande" and case["outils"] == [own]
    assert case["par_tour"] == [
        {"outils_interdits": ["lookup_order"]},
        {"outils": [own]},
        {"outils_interdits": ["lookup_order"]},
    ]
    assert case["contient"] == [["shipped"]]
    linted = runner.invoke(app, ["goldens", "lint", "--strict", str(cases)])
    assert linted.exit_code == 0, linted.output


@pytest.mark.parametrize("fixture", ["foreign-traffic-openinference.pb", "foreign-traffic-logfire.pb"])
def test_an_agent_that_is_not_the_shop_gets_no_critical_flag_for_a_customer_s_own_order(
    fixture: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the defaults (no filon.toml): an order record shown to a customer the spans do not identify
    is low (it may be theirs), and critical where the user id says it is another customer's."""
    monkeypatch.chdir(tmp_path)
    ingest(fixture)
    store = Store.open()
    prefix = "fto" if "openinference" in fixture else "ftl"
    severities = {}
    for suffix in ("own-anonymous", "own-identified", "other", "injection", "track-anonymous"):
        found = store.traces.conversation_detail(f"{prefix}-{suffix}")
        assert found is not None
        severities[suffix] = {(f.cause, f.severity) for f in found[2]}
    assert severities["own-anonymous"] == {("unverified_record", "low")}
    assert severities["own-identified"] == severities["track-anonymous"] == set()
    assert severities["other"] == {("leak", "critical")}
    assert severities["injection"] == {("injection_obeyed", "critical")}
