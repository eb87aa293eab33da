"""Payloads recorded from real installs of other agent stacks (ADK 1.x and 2.x, each with and without
content capture; OpenInference; OpenLLMetry / Traceloop; the Vercel AI SDK; pydantic-ai; the recording scripts in `fixtures/`), each running the same scenarios against the scripted
model: a greeting, a FAQ question, a parcel's tracking, an escalation through a foreign tool name, three
turns in one conversation, a 429. The expectations below come from those scripts (what each customer
said, which tool the scenario needs), not from what filon made of the payloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.core.model import Turn
from tests.tracing.stored import ingest as ingest_path

FIXTURES = Path(__file__).parent / "fixtures"
runner = CliRunner()

GREETING, FAQ = "Bonjour !", "Quels sont les frais de livraison ?"
TRACKING, HUMAN = (
    "Où est mon colis pour la commande LL-10587 ?",
    "Je veux parler à un humain, mon colis est abîmé.",
)
THREE = ("Bonjour", "Quel est le statut de ma commande LL-10563 ?", "Merci !")
QUOTA = "Quel est le statut de ma commande LL-10587 ?"
SCENARIOS: dict[tuple[str, ...], list[list[tuple[str, dict[str, Any]]]]] = {  # users → tools, turn by turn
    (GREETING,): [[]],
    (FAQ,): [[("rechercher_aide", {"question": FAQ})]],
    (TRACKING,): [[("suivre_colis", {"numero": "LL-10587"})]],
    (HUMAN,): [[("transfer_to_human", {"motif": HUMAN})]],
    THREE: [[], [("consulter_commande", {"numero": "LL-10563"})], []],
}


# the scenarios call the reference shop's tools, held to its rulebook: an order tracked or looked up on
# its number alone, before the customer said who they are, breaks `identite_non_verifiee`; the stand-in's
# escalation answer says the shop's hours, which neither the recordings' instructions (« Tu es l'assistant
# de la boutique. ») nor their transfer tool's result gave: a fact the agent saw nowhere (`fait_non_fonde`)
FLAGS = {
    (HUMAN,): ["transfer_asked", "ungrounded_fact"],
    (TRACKING,): ["identity_unverified"],
    THREE: ["identity_unverified"],
}


def ingest(fixture: str) -> tuple[str, dict[str, tuple[list[Turn], list[str]]]]:
    return ingest_path(FIXTURES / fixture)


STACKS = [
    "adk-1.pb",
    "adk-2.pb",
    "pydantic-ai.pb",
    "traceloop-workflow.pb",
    "openinference-scenarios.pb",
    "vercel-ai-scenarios.pb",
]


@pytest.mark.parametrize("fixture", STACKS)
def test_each_scenario_is_one_conversation_with_its_texts_tools_and_flags(fixture: str) -> None:
    _, conversations = ingest(fixture)
    assert len(conversations) == len(SCENARIOS) + 1  # and the 429
    read = {tuple(t.user for t in turns): (turns, causes) for turns, causes in conversations.values()}
    for users, tools in SCENARIOS.items():
        turns, causes = read[users]
        assert [[(c.name, c.arguments) for c in t.tools] for t in turns] == tools
        assert all(t.agent and t.input_tokens > 0 and t.output_tokens > 0 for t in turns)
        assert [t.escalated for t in turns] == [
            any(n == "transfer_to_human" for n, _ in calls) for calls in tools
        ]
        assert causes == FLAGS.get(users, [])  # never "answered nothing"
    quota = [(turns, causes) for turns, causes in conversations.values() if not turns[0].agent]
    [(turns, causes)] = quota
    assert "quota" in causes and "empty_answer" not in causes


@pytest.mark.parametrize(
    ("fixture", "prefix"),
    [
        ("adk-1.pb", "adk"),
        ("traceloop-workflow.pb", "tl"),
        ("openinference-scenarios.pb", "oi"),
        ("vercel-ai-scenarios.pb", "ai"),
    ],
)
def test_conversations_are_the_stack_s_sessions(fixture: str, prefix: str) -> None:
    _, conversations = ingest(fixture)
    assert set(conversations) == {
        f"{prefix}-{name}" for name in ("greet", "faq", "track", "human", "three", "429")
    }


def test_pydantic_ai_s_failed_call_still_gives_the_customer_s_message() -> None:
    _, conversations = ingest("pydantic-ai.pb")
    [turns] = [turns for turns, causes in conversations.values() if "quota" in causes]
    assert [t.user for t in turns] == [QUOTA]  # from `pydantic_ai.all_messages`: the model span has no input


@pytest.mark.parametrize(
    ("fixture", "setting"),
    [
        ("adk-1-nocontent.pb", "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true"),
        ("adk-2-nocontent.pb", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"),
    ],
)
def test_adk_without_content_capture_raises_no_false_error_and_says_which_setting(
    fixture: str, setting: str
) -> None:
    said, conversations = ingest(fixture)
    assert set(conversations) == {"adk-greet", "adk-faq", "adk-track", "adk-human", "adk-three", "adk-429"}
    causes = {cid: causes for cid, (_, causes) in conversations.items()}
    assert causes["adk-human"] == ["transferred"]  # tool names are there without content
    assert "quota" in causes["adk-429"]
    assert all(not c for cid, c in causes.items() if cid not in ("adk-human", "adk-429"))
    assert all(not t.captured for turns, _ in conversations.values() for t in turns)
    assert "8 turn(s) carry no content" in said
    assert setting in said
    assert "escalation: transfer_to_human" in said


def test_a_trace_with_no_genai_span_is_skipped_not_flagged(tmp_path: Path) -> None:
    http_only = {  # the OTLP specification's own example: one HTTP server span
        "resourceSpans": [
            {
                "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "my.service"}}]},
                "scopeSpans": [
                    {
                        "scope": {"name": "my.library", "version": "1.0.0"},
                        "spans": [
                            {
                                "traceId": "5b8efff798038103d269b633813fc60c",
                                "spanId": "eee19b7ec3c1b174",
                                "name": "I'm a server span",
                                "startTimeUnixNano": "1544712660000000000",
                                "endTimeUnixNano": "1544712661000000000",
                                "kind": 2,
                                "attributes": [
                                    {"key": "my.span.attr", "value": {"stringValue": "some value"}}
                                ],
                            }
                        ],
                    }
                ],
            }
        ]
    }
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(http_only))
    result = runner.invoke(app, ["ingest", str(path)])
    assert result.exit_code == 0, result.output
    assert "skipped 1 trace(s) with no span of any GenAI convention" in result.stdout
    assert json.loads(runner.invoke(app, ["traces", "list", "--json"]).stdout) == []


def _failed_call(**extra: Any) -> dict[str, Any]:
    attributes = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
        {"key": "gen_ai.conversation.id", "value": {"stringValue": "c-429"}},
        {
            "key": "gen_ai.input.messages",
            "value": {"stringValue": '[{"role":"user","parts":[{"type":"text","content":"Bonjour"}]}]'},
        },
    ]
    attributes += [{"key": k, "value": {"intValue": v}} for k, v in extra.pop("ints", {}).items()]
    span = {
        "traceId": "1" * 32,
        "spanId": "2" * 16,
        "name": "chat gemini",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "status": {"code": 2},
        "attributes": attributes,
        **extra,
    }
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


@pytest.mark.parametrize(
    "where",
    [
        {
            "events": [
                {
                    "name": "exception",
                    "attributes": [
                        {
                            "key": "exception.type",
                            "value": {"stringValue": "google.genai.errors.ClientError"},
                        },
                        {
                            "key": "exception.message",
                            "value": {"stringValue": "Resource has been exhausted (e.g. check quota)."},
                        },
                    ],
                }
            ]
        },
        {"ints": {"http.response.status_code": 429}},
        {"status": {"code": 2, "message": "429 Too Many Requests"}},
    ],
    ids=["exception-event", "http-status", "status-message"],
)
def test_a_429_is_read_wherever_the_stack_puts_it(where: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "quota.json"
    path.write_text(json.dumps(_failed_call(**where)))
    _, conversations = ingest(str(path))
    assert "quota" in conversations["c-429"][1]


def test_an_exception_event_of_an_sdk_span_reaches_the_record() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from filon.tracing.records import from_sdk

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    with pytest.raises(RuntimeError), provider.get_tracer("t").start_as_current_span("chat m"):
        raise RuntimeError("RESOURCE_EXHAUSTED")
    [span] = memory.get_finished_spans()
    record = from_sdk(span)
    assert record.attributes["exception.type"] == "RuntimeError"
    assert record.attributes["exception.message"] == "RESOURCE_EXHAUSTED"
    assert "exception.type" not in span.attributes  # the SDK's own attributes are never written into


def test_the_receiver_says_once_what_it_reads_and_what_is_missing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import httpx

    from filon.tracing.receiver import ReceiverSettings
    from tests.tracing.server import running

    payload = (FIXTURES / "adk-1-nocontent.pb").read_bytes()
    headers = {"Content-Type": "application/x-protobuf"}
    with (
        caplog.at_level("INFO", logger="filon.tracing.receiver"),
        running(ReceiverSettings(db=f"sqlite:///{tmp_path / 'r.db'}")) as url,
    ):
        for _ in range(2):
            assert (
                httpx.post(f"{url}/v1/traces", content=payload, headers=headers, timeout=30).status_code
                == 200
            )
    said = [r.getMessage() for r in caplog.records if r.name == "filon.tracing.receiver"]
    assert said.count("reading spans of ADK") == 1
    [capture] = [line for line in said if line.startswith("turns without content")]
    assert "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true" in capture
    assert said.count("tool transfer_to_human is treated as an escalation") == 1


def test_traces_show_says_content_was_not_captured_instead_of_empty_lines() -> None:
    ingest("adk-1-nocontent.pb")
    shown = runner.invoke(app, ["traces", "show", "adk-human"])
    assert shown.exit_code == 0, shown.output
    assert "content not captured" in shown.stdout and "client >" not in shown.stdout
    assert "transfer_to_human" in shown.stdout
    doc = json.loads(runner.invoke(app, ["traces", "show", "adk-human", "--json"]).stdout)
    assert [t["captured"] for t in doc["turns"]] == [False]


@pytest.mark.parametrize(
    ("fixture", "conversation"),
    [
        ("traceloop-workflow.pb", "tl-human"),
        ("openinference-scenarios.pb", "oi-human"),
        ("vercel-ai-scenarios.pb", "ai-human"),
    ],
)
def test_the_stack_s_user_id_is_the_customer_s_identity(fixture: str, conversation: str) -> None:
    _, conversations = ingest(fixture)
    assert [t.sender for t in conversations[conversation][0]] == ["u-4"]


def test_one_trace_per_model_call_gives_one_turn_per_customer_message() -> None:
    """OpenLLMetry's instrumentor without decorators: a tool-call step and the answer after it are two
    traces, one turn. Its flattened attributes carry no function calls, so no tool is seen, and the
    failed call of the 429 scenario left no span at all: what the stack records, no more."""
    _, conversations = ingest("traceloop-calls.pb")
    assert set(conversations) == {"tl-greet", "tl-faq", "tl-track", "tl-human", "tl-three"}
    read = {tuple(t.user for t in turns): (turns, causes) for turns, causes in conversations.values()}
    assert set(read) == set(SCENARIOS)
    assert all(t.agent for turns, _ in read.values() for t in turns)
    # no "answered nothing" for the steps; and no grounding flag: a step's calls were recorded nowhere, so
    # what the agent did and saw is not known (said under the turn, `not_evaluated`)
    assert all(causes == [] for _, causes in read.values())
    unseen = {users: [t.unseen_calls for t in turns] for users, (turns, _) in read.items()}
    assert unseen[(GREETING,)] == [False] and unseen[(FAQ,)] == [True] and unseen[(TRACKING,)] == [True]
    shown = json.loads(runner.invoke(app, ["traces", "show", "tl-faq", "--json"]).stdout)
    assert {(u["turn"], u["rule"]) for u in shown["not_evaluated"]} == {
        (0, "action_affirmee"),
        (0, "fait_non_fonde"),
    }
    assert "did not record" in shown["not_evaluated"][0]["reason"]
    [faq] = read[(FAQ,)][0]
    assert faq.input_tokens > 300  # the step's tokens and the answer's, summed


def test_every_count_of_a_trace_per_call_stack_is_of_turns_as_lived() -> None:
    """The ingest summary, `traces doctor` and `db stats` count the turns `traces show` shows: a tool-call
    step (a trace of its own, the customer's message and no answer) is not a turn, nor an answer missing."""
    said, conversations = ingest("traceloop-calls.pb")
    lived = sum(len(turns) for turns, _ in conversations.values())
    assert lived == sum(len(users) for users in SCENARIOS) == 7  # eleven traces
    assert f"turns {lived} · conversations 5 · kept {lived} turns" in said
    doctor = runner.invoke(app, ["traces", "doctor", "--json", str(FIXTURES / "traceloop-calls.pb")])
    [found] = json.loads(doctor.stdout)
    assert (found["traces"], found["turns"]) == (11, lived)
    # the one thing it lacks: the agent's instructions, which OpenLLMetry's instrumentor alone records nowhere
    assert [(m["what"], m["have"], m["of"]) for m in found["missing"]] == [("agent's instructions", 0, lived)]
    assert "sources" in found["missing"][0]["advice"]
    stats = runner.invoke(app, ["db", "stats"]).stdout
    assert f"{lived} (from 11 traces" in stats


def test_doctor_does_not_ask_for_sources_already_declared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `sources` declared the rule is evaluated: the advice says so, and asks only for the prompt."""
    monkeypatch.chdir(tmp_path)
    asked = runner.invoke(app, ["traces", "doctor", "--json", str(FIXTURES / "traceloop-calls.pb")])
    assert "name the texts it is given in sources" in json.loads(asked.stdout)[0]["missing"][0]["advice"]
    (tmp_path / "aide").mkdir()
    (tmp_path / "aide" / "faq.md").write_text("La livraison prend 3 jours.", encoding="utf-8")
    (tmp_path / "filon.toml").write_text('sources = ["aide"]\n', encoding="utf-8")
    doctor = runner.invoke(app, ["traces", "doctor", "--json", str(FIXTURES / "traceloop-calls.pb")])
    [missing] = json.loads(doctor.stdout)[0]["missing"]
    assert missing["what"] == "agent's instructions"
    assert missing["advice"].startswith("sources are declared (filon.toml)")
    assert "name the texts it is given in sources" not in missing["advice"]


def test_the_capture_setting_said_is_of_the_stacks_whose_turns_lack_content() -> None:
    """Two payloads in one call, one without content (ADK) and one whole (OpenInference): the summary
    gives ADK's setting, not OpenInference's, whose content was there."""
    paths = [str(FIXTURES / "adk-2-nocontent.pb"), str(FIXTURES / "openinference-scenarios.pb")]
    said = runner.invoke(app, ["ingest", *paths, "--sample-rate", "1"]).stdout
    [line] = [x for x in said.splitlines() if "carry no content" in x]
    assert "ADK:" in line and "OpenInference" not in line
    assert "OpenInference" in said  # it was read all the same


def test_conversation_keys_in_filon_toml_change_where_the_conversation_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = _failed_call(status={"code": 0})
    call["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"].append(
        {"key": "app.thread_id", "value": {"stringValue": "thread-7"}}
    )
    path = tmp_path / "thread.json"
    path.write_text(json.dumps(call))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "filon.toml").write_text('conversation_keys = ["app.thread_id", "gen_ai.conversation.id"]\n')
    _, conversations = ingest(str(path))
    assert set(conversations) == {"thread-7"}  # not c-429, the GenAI key, now second


def test_traces_doctor_reads_the_conversation_keys_ingest_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With keys the payload lacks, each trace is its own conversation: nothing joins, and doctor says so
    as ingest would read it (eleven turns, none with a conversation id)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "filon.toml").write_text('conversation_keys = ["app.thread_id"]\n')
    doctor = runner.invoke(app, ["traces", "doctor", "--json", str(FIXTURES / "traceloop-calls.pb")])
    [found] = json.loads(doctor.stdout)
    assert (found["turns"], found["conversations"]) == (11, 11)
    assert {k: v for k, v in found["missing"][0].items() if k in ("what", "have", "of")} == {
        "what": "conversation id",
        "have": 0,
        "of": 11,
    }


def _with_events(events: list[dict[str, Any]]) -> dict[str, Any]:
    def kv(key: str, value: str) -> dict[str, Any]:
        return {"key": key, "value": {"stringValue": value}}

    span = {
        "traceId": "3" * 32,
        "spanId": "4" * 16,
        "name": "chat gpt",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [kv("gen_ai.operation.name", "chat"), kv("gen_ai.conversation.id", "c-events")],
        "events": [
            {"name": e["name"], "attributes": [kv(k, v) for k, v in e.items() if k != "name"]} for e in events
        ],
    }
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


@pytest.mark.parametrize(
    "events",
    [
        [  # semantic conventions 1.26: one event for the prompt, one for the completion
            {
                "name": "gen_ai.content.prompt",
                "gen_ai.prompt": json.dumps(
                    [
                        {"role": "system", "content": "Tu es l'assistant."},
                        {"role": "user", "content": "Où est ma commande ?"},
                    ]
                ),
            },
            {
                "name": "gen_ai.content.completion",
                "gen_ai.completion": json.dumps(
                    [
                        {"role": "assistant", "content": "Elle est expédiée."},
                    ]
                ),
            },
        ],
        [  # the next versions: one event per message
            {"name": "gen_ai.system.message", "content": "Tu es l'assistant."},
            {"name": "gen_ai.user.message", "content": "Où est ma commande ?"},
            {
                "name": "gen_ai.choice",
                "message": json.dumps({"role": "assistant", "content": "Elle est expédiée."}),
            },
        ],
    ],
    ids=["content-events", "message-events"],
)
def test_the_earlier_event_based_genai_form_is_read(events: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "events.json"
    path.write_text(json.dumps(_with_events(events)))
    _, conversations = ingest(str(path))
    [turn] = conversations["c-events"][0]
    assert (turn.user, turn.agent) == ("Où est ma commande ?", "Elle est expédiée.")


def test_adk_1_tokens_are_counted_once_though_two_nested_spans_carry_them() -> None:
    from filon.tracing.files import read_otlp_file

    spans = read_otlp_file(FIXTURES / "adk-1.pb")
    calls = [s for s in spans if s.name == "call_llm" and s.status != "ERROR"]
    assert any(
        s.name.startswith("generate_content") and s.attributes.get("gen_ai.usage.input_tokens") for s in spans
    )
    _, conversations = ingest("adk-1.pb")
    stored = sum(t.input_tokens for turns, _ in conversations.values() for t in turns)
    assert stored == sum(int(s.attributes["gen_ai.usage.input_tokens"]) for s in calls)


@pytest.mark.parametrize("fixture", STACKS)
def test_trajectory_checks_grade_a_conversation_of_every_recorded_stack(fixture: str) -> None:
    """The gate's argument, order and per-turn checks read a foreign stack's conversation as they read a
    replay: the order the customer gave is the one tracked; the lookup comes on the turn that asks."""
    from filon.goldens.case.schema import Case
    from filon.goldens.checks import grade
    from filon.miner.core.transcript import Transcript

    _, conversations = ingest(fixture)
    read = {tuple(t.user for t in turns): turns for turns, _ in conversations.values()}
    own = {"du_cas": "commande"}
    tracked = Case(
        id="t",
        categorie="suivi",
        tours=[TRACKING],
        outils=[{"outil": "suivre_colis", "args": {"numero": own}}],
    )  # type: ignore[list-item]
    assert grade(tracked, Transcript.of_turns(read[(TRACKING,)])) == []
    other = tracked.model_copy(update={"tours": ["Où est mon colis pour la commande LL-10555 ?"]})
    assert [g.kind for g in grade(other, Transcript.of_turns(read[(TRACKING,)]))] == ["arguments"]
    turns = Case.model_validate(
        {
            "id": "t3",
            "categorie": "commande",
            "tours": list(THREE),
            "par_tour": [
                {"outils_interdits": ["consulter_commande"]},
                {"outils": [{"outil": "consulter_commande", "args": {"numero": own}}]},
                {"outils_interdits": ["consulter_commande"]},
            ],
        }
    )
    assert grade(turns, Transcript.of_turns(read[THREE])) == []
    shifted = Transcript.of_turns(read[THREE])
    shifted.turns.insert(0, shifted.turns.pop(1))  # the lookup on the greeting's turn
    assert {g.turn for g in grade(turns, shifted)} == {1, 2}
