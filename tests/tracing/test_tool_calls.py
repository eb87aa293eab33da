"""A turn's tool calls as the tool saw them: framework envelopes opened (the shapes recorded in
`fixtures/record_langgraph.py` and `record_llamaindex.py`), arguments taken from the model's request when
the span has none, results from the model's next input when the span has none, paired by call id."""

from __future__ import annotations

import json
from typing import Any

import pytest

from filon.tracing.conventions import envelopes
from filon.tracing.grouping import turn_of
from filon.tracing.records import SpanRecord

ORDER = {"order_id": "A-300", "status": "in transit"}


@pytest.mark.parametrize(
    ("recorded", "expected"),
    [
        (json.dumps(ORDER), (ORDER, None)),  # a tool's own JSON text
        (  # OpenInference's LangChain ToolMessage
            {
                "type": "tool",
                "data": {"content": json.dumps(ORDER), "tool_call_id": "call_1", "type": "tool"},
            },
            (ORDER, "call_1"),
        ),
        (  # OpenLLMetry's callback record around a serialised ToolMessage
            {
                "output": {
                    "lc": 1,
                    "type": "constructor",
                    "id": ["langchain", "schema", "messages", "ToolMessage"],
                    "kwargs": {"content": json.dumps(ORDER), "tool_call_id": "call_2"},
                },
                "kwargs": {"tags": [], "name": "track_parcel"},
            },
            (ORDER, "call_2"),
        ),
        (  # LlamaIndex's ToolOutput
            {"blocks": [{"text": json.dumps(ORDER)}], "tool_name": "t", "raw_output": json.dumps(ORDER)},
            (ORDER, None),
        ),
        ({"blocks": [{"text": "in transit"}], "tool_name": "t", "raw_output": None}, ("in transit", None)),
        (
            {"output": "a tool's own key", "status": "ok"},
            ({"output": "a tool's own key", "status": "ok"}, None),
        ),
        ("plain text", ("plain text", None)),
    ],
)
def test_a_result_out_of_its_envelope(recorded: Any, expected: tuple[Any, str | None]) -> None:
    assert envelopes.result(recorded) == expected
    assert not envelopes.wrapped(expected[0])


@pytest.mark.parametrize(
    ("recorded", "expected"),
    [
        ({"order_id": "A-300"}, ({"order_id": "A-300"}, None)),
        (  # OpenLLMetry's LangChain callback
            {
                "input_str": "{'order_id': 'A-300'}",
                "inputs": {"order_id": "A-300"},
                "tags": [],
                "metadata": {},
                "kwargs": {"color": "green", "tool_call_id": "call_3"},
            },
            ({"order_id": "A-300"}, "call_3"),
        ),
        ({"kwargs": {"order_id": "A-300"}}, ({"order_id": "A-300"}, None)),  # LlamaIndex's FunctionTool.acall
        ({"args": [], "kwargs": {"order_id": "A-300"}}, ({"order_id": "A-300"}, None)),
        (
            {"kwargs": {"order_id": "A-300"}, "verbose": True},
            ({"kwargs": {"order_id": "A-300"}, "verbose": True}, None),
        ),
        ("A-300", ("A-300", None)),  # LangChain's one-argument string input: the model's request gives them
    ],
)
def test_arguments_out_of_their_envelope(recorded: Any, expected: tuple[Any, str | None]) -> None:
    assert envelopes.arguments(recorded) == expected


def _span(span_id: str, start: int, **attributes: Any) -> SpanRecord:
    return SpanRecord("t1", span_id, None, str(attributes.get("gen_ai.operation.name")), start, start + 1,
                      attributes=attributes)  # fmt: skip


def _model(span_id: str, start: int, inputs: list[Any], outputs: list[Any]) -> SpanRecord:
    return _span(span_id, start, **{"gen_ai.operation.name": "chat", "gen_ai.input.messages": inputs,
                                    "gen_ai.output.messages": outputs})  # fmt: skip


USER = {"role": "user", "parts": [{"type": "text", "content": "Where are A-300 and A-301?"}]}
ASKED = {
    "role": "assistant",
    "parts": [
        {"type": "tool_call", "id": "c1", "name": "track_parcel", "arguments": {"order_id": "A-300"}},
        {"type": "tool_call", "id": "c2", "name": "track_parcel", "arguments": {"order_id": "A-301"}},
    ],
}
GIVEN = [
    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c2", "response": '{"status": "late"}'}]},
    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": '{"status": "due"}'}]},
]
ANSWER = {"role": "assistant", "parts": [{"type": "text", "content": "One is due, one is late."}]}


def test_without_tool_spans_each_request_gets_its_own_result_by_call_id() -> None:
    first = _model("m1", 1, [USER], [ASKED])
    second = _model("m2", 5, [USER, ASKED, *GIVEN], [ANSWER])
    calls = turn_of([first, second], []).turn.tools
    assert [(c.arguments, c.result) for c in calls] == [
        ({"order_id": "A-300"}, {"status": "due"}),
        ({"order_id": "A-301"}, {"status": "late"}),
    ]


def test_a_tool_span_without_usable_arguments_takes_the_request_its_envelope_names() -> None:
    """Two calls of one tool run out of order: each span's ToolMessage names its call."""

    def tool(span_id: str, start: int, call_id: str, status: str) -> SpanRecord:
        result = {
            "type": "tool",
            "data": {"type": "tool", "content": json.dumps({"status": status}), "tool_call_id": call_id},
        }
        return _span(span_id, start, **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "track_parcel",
                                        "gen_ai.tool.call.arguments": "A-30x", "gen_ai.tool.call.result": result})  # fmt: skip

    first = _model("m1", 1, [USER], [ASKED])
    spans = [
        first,
        tool("x2", 2, "c2", "late"),
        tool("x1", 3, "c1", "due"),
        _model("m2", 5, [USER], [ANSWER]),
    ]
    calls = turn_of(spans, []).turn.tools
    assert [(c.arguments, c.result) for c in calls] == [
        ({"order_id": "A-301"}, {"status": "late"}),
        ({"order_id": "A-300"}, {"status": "due"}),
    ]


def test_a_tool_span_without_a_result_takes_the_one_the_model_read_back() -> None:
    span = _span("x1", 2, **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "track_parcel",
                             "gen_ai.tool.call.arguments": {"order_id": "A-300"}, "gen_ai.tool.call.id": "c1"})  # fmt: skip
    spans = [_model("m1", 1, [USER], [ASKED]), span, _model("m2", 5, [USER, ASKED, *GIVEN], [ANSWER])]
    [call] = turn_of(spans, []).turn.tools
    assert call.result == {"status": "due"}


def test_an_earlier_turn_s_result_in_the_history_is_never_this_turn_s() -> None:
    """Stacks that number their calls afresh each turn (`call_0` again): the result in the history, before
    the customer's newest message, belongs to the earlier turn; this turn's call has none of its own when
    the model's next input holds none."""
    earlier = [
        {"role": "user", "parts": [{"type": "text", "content": "Where is A-301?"}]},
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_0", "name": "track_parcel",
                                         "arguments": {"order_id": "A-301"}}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_0", "response": '{"status": "old"}'}]},
        {"role": "assistant", "parts": [{"type": "text", "content": "It is late."}]},
    ]  # fmt: skip
    user = {"role": "user", "parts": [{"type": "text", "content": "And A-300?"}]}
    again = {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_0", "name": "track_parcel",
                                             "arguments": {"order_id": "A-300"}}]}  # fmt: skip
    mine = {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": "call_0", "response": '{"status": "new"}'}],
    }
    first = _model("m1", 1, [*earlier, user], [again])
    answered = turn_of([first, _model("m2", 5, [*earlier, user, again, mine], [ANSWER])], []).turn.tools
    assert [(c.arguments, c.result) for c in answered] == [({"order_id": "A-300"}, {"status": "new"})]
    unanswered = turn_of([first, _model("m2", 5, [*earlier, user, again], [ANSWER])], []).turn.tools
    assert [(c.arguments, c.result) for c in unanswered] == [({"order_id": "A-300"}, None)]


def test_a_span_that_recorded_its_arguments_is_paired_with_the_request_that_has_them() -> None:
    """Its call id is the framework's run id, matching no request: the other span, with no arguments of
    its own, must not take the first span's request."""

    def tool(span_id: str, start: int, call_id: str | None, args: Any, status: str) -> SpanRecord:
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "track_parcel",
                 "gen_ai.tool.call.arguments": args, "gen_ai.tool.call.result": {"status": status}}  # fmt: skip
        if call_id:
            attrs["gen_ai.tool.call.id"] = call_id
        return _span(span_id, start, **attrs)

    spans = [
        _model("m1", 1, [USER], [ASKED]),
        tool("x1", 2, "run-7f3a", {"order_id": "A-301"}, "late"),
        tool("x2", 3, None, "A-30x", "due"),
        _model("m2", 5, [USER], [ANSWER]),
    ]
    calls = turn_of(spans, []).turn.tools
    assert [c.arguments for c in calls] == [{"order_id": "A-301"}, {"order_id": "A-300"}]


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "tool", "parts": 5}],
        [{"role": "user", "parts": "Where is A-300?"}],
        [{"role": "tool", "parts": [{"type": "tool_call_response", "id": {"a": 1}, "response": None}]}],
        "not JSON",
        [5, None, "x"],
    ],
)
def test_a_malformed_message_never_breaks_the_turn(messages: Any) -> None:
    first = _model("m1", 1, [USER], [ASKED])
    read = turn_of([first, _model("m2", 5, messages, [ANSWER])], []).turn
    assert read.agent == "One is due, one is late." and [c.name for c in read.tools] == ["track_parcel"] * 2
    assert envelopes.result({"blocks": 5, "raw_output": None, "tool_name": "x"}) == ("", None)


def _tool(span_id: str, start: int, name: str) -> SpanRecord:
    return _span(span_id, start, **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name})


NAMELESS_ASKED = {  # two requests with no call id, as OpenInference flattens them
    "role": "assistant",
    "parts": [
        {"type": "tool_call", "name": "book_hotel", "arguments": {"city": "Barcelona"}},
        {"type": "tool_call", "name": "search_attractions", "arguments": {"city": "Barcelona"}},
    ],
}


@pytest.mark.parametrize(
    ("read_back", "expected"),
    [
        (["No rooms available", '{"attractions": ["Sagrada Familia"]}'],
         ["No rooms available", {"attractions": ["Sagrada Familia"]}]),
        (["one result for two requests"], [None, None]),  # not one each: nothing paired by place
    ],
)  # fmt: skip
def test_results_with_no_call_id_are_paired_by_their_place_only_one_for_one(
    read_back: list[str], expected: list[Any]
) -> None:
    """The next model call read back id-less `tool` messages: the j-th goes to the j-th id-less request,
    only when there is one result for each request (a guess otherwise)."""
    given = [{"role": "tool", "content": text} for text in read_back]
    spans = [
        _model("m1", 1, [USER], [NAMELESS_ASKED]),
        _tool("s1", 2, "book_hotel"),
        _tool("s2", 3, "search_attractions"),
        _model("m2", 4, [USER, NAMELESS_ASKED, *given], [{"role": "assistant", "parts": []}]),
    ]
    calls = turn_of(spans, []).turn.tools
    assert [c.name for c in calls] == ["book_hotel", "search_attractions"]
    assert [c.result for c in calls] == expected
