"""`filon traces doctor` on payloads recorded from real stacks: what it says is there and what is missing,
with the setting for the stack detected; it stores nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from tests.tracing.helpers import one_span

FIXTURES = Path(__file__).parent / "fixtures"
runner = CliRunner()


def doctor_json(*paths: Path) -> list[dict[str, object]]:
    result = runner.invoke(app, ["traces", "doctor", "--json", *map(str, paths)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_payload_without_content_says_what_is_missing_and_the_setting_for_its_stack() -> None:
    [found] = doctor_json(FIXTURES / "adk-1-nocontent.pb")
    assert "ADK" in found["stacks"]  # type: ignore[operator]
    missing = {m["what"]: m for m in found["missing"]}  # type: ignore[union-attr, index]
    assert set(missing) == {
        "customer's text",
        "answer",
        "tool arguments",
        "tool results",
        "agent's instructions",
    }
    assert all("ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true" in m["advice"] for m in missing.values())
    assert (found["turns"], found["conversations"], found["failed"]) == (8, 6, 1)
    assert found["tools"]["transfer_to_human"] is True  # type: ignore[index]


def test_a_whole_payload_misses_nothing_and_nothing_is_stored() -> None:
    [found] = doctor_json(FIXTURES / "adk-1.pb")
    assert found["missing"] == []
    listed = runner.invoke(app, ["traces", "list", "--json"])
    assert json.loads(listed.stdout) == []


def test_a_stack_without_a_conversation_id_is_told_how_to_give_one(tmp_path: Path) -> None:
    spans = [
        {
            "traceId": f"{i:032x}",
            "spanId": f"{i:016x}",
            "name": "chat gemini",
            "startTimeUnixNano": "1",
            "endTimeUnixNano": "2",
            "attributes": [
                {"key": "openinference.span.kind", "value": {"stringValue": "LLM"}},
                {"key": "llm.input_messages.0.message.role", "value": {"stringValue": "user"}},
                {"key": "llm.input_messages.0.message.content", "value": {"stringValue": "Bonjour"}},
                {"key": "llm.output_messages.0.message.role", "value": {"stringValue": "model"}},
                {"key": "llm.output_messages.0.message.content", "value": {"stringValue": "Bonjour !"}},
            ],
        }
        for i in (1, 2)
    ]
    path = tmp_path / "oi.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    result = runner.invoke(app, ["traces", "doctor", str(path)])
    assert result.exit_code == 0, result.output
    assert "MISSING conversation id: 0/2 turns" in result.stdout
    assert "using_session" in result.stdout


def test_an_unreadable_file_exits_1_with_its_name(tmp_path: Path) -> None:
    bad = tmp_path / "notes.json"
    bad.write_text("not otlp")
    result = runner.invoke(app, ["traces", "doctor", str(bad)])
    assert result.exit_code == 1
    assert str(bad) in result.stderr


@pytest.mark.parametrize(
    ("fixture", "stack"),
    [
        ("adk-1.pb", "ADK"),
        ("adk-2.pb", "ADK"),
        ("openinference-scenarios.pb", "OpenInference"),
        ("traceloop-workflow.pb", "OpenLLMetry / Traceloop"),
        ("traceloop-calls.pb", "OpenLLMetry / Traceloop"),
        ("vercel-ai-scenarios.pb", "Vercel AI SDK"),
        ("pydantic-ai.pb", "pydantic-ai"),
        ("openai-agents-openinference.pb", "OpenInference"),
        ("openai-agents-logfire.pb", "Logfire (OpenAI Agents SDK)"),
        ("langgraph-openinference.pb", "OpenInference"),
        ("langgraph-openllmetry.pb", "OpenLLMetry / Traceloop"),
        ("llamaindex-openinference.pb", "OpenInference"),
        ("openai-client-openinference.pb", "OpenInference"),
        ("openai-client-logfire.pb", "OpenTelemetry GenAI"),
    ],
)
def test_doctor_tells_each_recorded_stack(fixture: str, stack: str) -> None:
    """Each stack detected; its turns whole: a conversation id, the customer's text, an answer, and each
    tool's own arguments and results (not a framework's wrapper)."""
    [found] = doctor_json(FIXTURES / fixture)
    assert stack in found["stacks"]  # type: ignore[operator]
    shares = {s["what"]: s for s in found["shares"]}  # type: ignore[union-attr, index]
    assert shares["conversation id"]["have"] == shares["conversation id"]["of"] > 0
    for what in ("customer's text", "answer", "tool arguments", "tool results"):
        assert shares[what]["have"] == shares[what]["of"], what


def _tool_trace(tmp_path: Path, result: str | None, **extra: str) -> Path:
    from tests.cli.test_ingest_bad_spans import request, span

    asked = span(1, "Where is my order A-300?")
    asked["attributes"] += [{"key": k, "value": {"stringValue": v}} for k, v in extra.items()]
    tool = {
        **span(2, ""),
        "traceId": asked["traceId"],
        "parentSpanId": asked["spanId"],
        "name": "execute_tool",
    }
    tool["attributes"] = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
        {"key": "gen_ai.tool.name", "value": {"stringValue": "lookup_order"}},
        {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": '{"order": "A-300"}'}},
    ]
    if result is not None:
        tool["attributes"].append({"key": "gen_ai.tool.call.result", "value": {"stringValue": result}})
    path = tmp_path / "plain.jsonl"
    path.write_text(request(asked, tool) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("result", "whole"),
    [
        ('{"status": "shipped"}', True),
        ('{"type": "tool", "data": {"content": "{\\"status\\": \\"shipped\\"}"}}', True),  # opened
        (  # a LangChain object serialised, of another class than the ToolMessage filon opens
            '{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"], '
            '"kwargs": {"content": "shipped"}}',
            False,
        ),
        (
            '{"callbacks": ["sms"], "lc": "fr", "status": "shipped"}',
            True,
        ),  # a tool's own keys, whatever they are
        (
            '{"type": "tool", "data": {"content": "drill"}, "price": 89.0}',
            True,
        ),  # a product, not a ToolMessage
        ("ToolMessage(content='shipped', tool_call_id='call_1')", False),  # a Python repr
    ],
)
def test_a_result_still_in_a_framework_s_wrapper_counts_as_missing(
    tmp_path: Path, result: str, whole: bool
) -> None:
    said = runner.invoke(app, ["traces", "doctor", str(_tool_trace(tmp_path, result))])
    assert said.exit_code == 0, said.output
    assert ("ok      tool results: 1/1 turns" in said.stdout) is whole
    assert ("MISSING tool results: 0/1 turns" in said.stdout) is not whole


def test_a_conversation_id_logfire_scrubbed_is_no_conversation_and_doctor_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "filon.toml").write_text('conversation_keys = ["session_id"]\n')  # the app's own key
    path = _tool_trace(tmp_path, "{}", session_id="[Scrubbed due to 'session']")
    said = runner.invoke(app, ["traces", "doctor", str(path)])
    assert said.exit_code == 0, said.output
    assert "MISSING conversation id: 0/1 turns" in said.stdout
    assert "Logfire scrubbed session_id" in said.stdout and "gen_ai.conversation.id" in said.stdout
    assert "scrubbed by Logfire (values lost): session_id" in said.stdout


def test_an_agent_without_user_id_is_told_the_leak_rule_cannot_tell_whose_record(tmp_path: Path) -> None:
    result = runner.invoke(app, ["traces", "doctor", str(_tool_trace(tmp_path, None))])
    assert result.exit_code == 0, result.output
    assert "MISSING user id (turns with tools): 0/1 turns" in result.stdout
    assert "set user.id" in result.stdout and "identity_required = true" in result.stdout
    again = runner.invoke(
        app, ["traces", "doctor", str(_tool_trace(tmp_path, None, **{"user.id": "sam@example.net"}))]
    )
    assert "ok      user id (turns with tools): 1/1 turns" in again.stdout


def test_spans_the_sdk_cut_name_the_limit_and_the_writes_are_proposed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long GPT-4o conversation through OpenInference (tau-bench's airline, task 17): 11 model calls
    lost their oldest attributes to the SDK's default limit; its tools that change the world are named
    as a proposal while filon.toml has no write_tools, and not once it has."""
    from tests.corpus import tau

    monkeypatch.chdir(tmp_path)
    payload = tau.FOLDER / "task-17.pb.gz"
    [found] = doctor_json(payload)
    assert found["cut"] == 11
    assert found["proposed_write_tools"] == ["update_reservation_flights"]
    said = runner.invoke(app, ["traces", "doctor", str(payload)]).stdout
    assert (
        "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT" in said and 'write_tools = ["update_reservation_flights"]' in said
    )
    (tmp_path / "filon.toml").write_text('write_tools = ["update_reservation_flights"]\n')
    [found] = doctor_json(payload)
    assert found["proposed_write_tools"] is None


def test_a_proposal_reads_the_verb_of_each_name() -> None:
    from filon.tracing.doctor import proposed_writes

    names = [
        "get_user_details",
        "cancel_reservation",
        "updateOrder",
        "demander_retour",
        "search_help",
        "think",
    ]
    assert proposed_writes(names) == ["cancel_reservation", "demander_retour", "updateOrder"]


def _turn_span(trace: int, session: str, user: str, text: str, start_s: int) -> dict[str, object]:
    attrs = {
        "gen_ai.operation.name": "invoke_agent",
        "session.id": session,
        "user.id": user,
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": text}]}]),
        "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": "ok"}]}]
        ),
    }
    return {
        "traceId": f"{trace:032x}",
        "spanId": f"{trace:016x}",
        "name": "invoke_agent support",
        "startTimeUnixNano": str(start_s * 10**9),
        "endTimeUnixNano": str((start_s + 5) * 10**9),
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
    }


def _payload(path: Path, *spans: dict[str, object]) -> Path:
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}))
    return path


def test_a_placeholder_is_never_a_conversation_and_doctor_names_it(tmp_path: Path) -> None:
    """An exporter that writes a missing id as the string "null": each customer's run stays its own."""
    payload = _payload(
        tmp_path / "null.json",
        _turn_span(1, "null", "u-1", "Where is my order A-300?", 0),
        _turn_span(2, "null", "u-2", "Cancel my order A-301.", 100),
    )
    [found] = doctor_json(payload)
    assert found["conversations"] == 2 and found["placeholders"] == {"session.id=null": 2}
    said = runner.invoke(app, ["traces", "doctor", str(payload)]).stdout
    assert "placeholder 'session.id=null'" in said and "ok      conversation id" not in said
    ingested = runner.invoke(app, ["ingest", str(payload), "--sample-rate", "1"])
    assert ingested.exit_code == 0, ingested.output
    listed = json.loads(runner.invoke(app, ["traces", "list", "--json"]).stdout)
    assert len(listed) == 2 and all(r["conversation_id"].startswith("trace:") for r in listed)


def test_an_id_shared_by_unrelated_turns_is_named(tmp_path: Path) -> None:
    together = _payload(
        tmp_path / "shared.json",
        _turn_span(1, "support", "u-1", "Where is my order A-300?", 0),
        _turn_span(2, "support", "u-2", "Cancel my order A-301.", 2),  # while the first ran
    )
    [found] = doctor_json(together)
    assert found["shared_ids"] == ["support (2 traces, 2 users)"]
    one = _payload(
        tmp_path / "one.json",
        _turn_span(1, "c-9", "u-1", "Hello", 0),
        _turn_span(2, "c-9", "u-1", "Where is A-300?", 60),
    )
    [found] = doctor_json(one)
    assert found["shared_ids"] == [] and found["placeholders"] == {}


def test_a_framework_span_filon_cannot_open_is_named_with_the_attributes_that_hold_the_talk(
    tmp_path: Path,
) -> None:
    attributes = {
        "fw.spanInputs": '{"question": "Where is my parcel?"}',
        "fw.spanOutputs": "It left the warehouse this morning.",
        "fw.requestId": "r-1",  # an id, not talk
        "http.request.body": '{"q": 1}',  # a transport's, not the framework's
    }
    path = tmp_path / "fw.json"
    path.write_text(json.dumps(one_span("my_chain", attributes)))
    [found] = doctor_json(path)
    assert (found["skipped"], found["unread"]) == (1, ["fw.spanInputs", "fw.spanOutputs"])
    said = runner.invoke(app, ["traces", "doctor", str(path)]).stdout
    assert "attributes filon does not read: fw.spanInputs, fw.spanOutputs" in said


def test_a_file_that_is_not_there_is_a_usage_error_as_for_ingest(tmp_path: Path) -> None:
    for command in (["traces", "doctor"], ["ingest"]):
        result = runner.invoke(app, [*command, str(tmp_path / "nope.pb")])
        assert result.exit_code == 2, (command, result.output)
        assert f"error: {tmp_path / 'nope.pb'}: no such file" in result.stderr


def test_a_framework_s_prompt_read_as_the_customer_s_text_is_named_not_counted(tmp_path: Path) -> None:
    """CrewAI's task prompt where the customer's message should be: doctor said "ok customer's text"."""

    prompt = "\nCurrent Task: Write the page.\n\nThis is the expected criteria for your final answer: HTML.\n"
    attributes = {
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": prompt,
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "<html></html>",
    }
    path = tmp_path / "crew.json"
    path.write_text(json.dumps(one_span("completion", attributes)))
    [found] = doctor_json(path)
    missing = {m["what"]: m for m in found["missing"]}  # type: ignore[union-attr, index]
    assert "customer's text" in missing and "a framework's prompt" in missing["customer's text"]["advice"]


def test_the_diagnosis_is_said_from_the_catalogue_in_either_language() -> None:
    from filon.tracing.doctor import diagnose, lines
    from filon.tracing.files import read_otlp_file

    found = diagnose(read_otlp_file(FIXTURES / "adk-1-nocontent.pb"))
    english, french = lines(found), lines(found, "fr")
    assert len(english) == len(french) > 5
    assert any(line.startswith("MISSING customer's text: ") for line in english), english
    assert any(line.startswith("MANQUE  texte du client : ") for line in french), french
    advice = [line for line in french if line.lstrip().startswith("→")]
    assert advice and all("ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true" in line for line in advice)
    assert "enveloppe d'un framework" in "".join(french) and "wrapper" not in "".join(french)
