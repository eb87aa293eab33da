"""Decoding: SDK spans, OTLP protobuf and OTLP JSON give the same records; bad payloads name the field."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from filon.agent import Conversation, SupportService
from filon.agent.model import SCRIPTED_MODEL, scripted_client
from filon.tracing.otlp_json import from_json
from filon.tracing.records import DecodeError, SpanRecord, from_protobuf, from_sdk
from tests.tracing.helpers import captured, otlp_json, otlp_protobuf


def agent_spans(scripted) -> list[Any]:  # type: ignore[no-untyped-def]
    with captured() as memory:
        SupportService(scripted_client(scripted.url), SCRIPTED_MODEL).repondre(
            Conversation.whatsapp("33600000103"), "Je peux encore changer ma commande LL-10602 ?"
        )
    return list(memory.get_finished_spans())


def key(records: list[Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (
            r.trace_id,
            r.span_id,
            r.parent_span_id,
            r.name,
            r.start_ns,
            r.end_ns,
            r.status,
            json.dumps(r.attributes, sort_keys=True),
        )
        for r in records
    )


def test_sdk_protobuf_and_json_agree(scripted) -> None:  # type: ignore[no-untyped-def]
    spans = agent_spans(scripted)
    assert len(spans) >= 5
    sdk = [from_sdk(s) for s in spans]
    assert key(from_protobuf(otlp_protobuf(spans))) == key(sdk)
    assert key(from_json(otlp_json(spans))) == key(sdk)
    names = {r.name for r in sdk}
    assert "generate_content scripted-lin-et-laine" in names  # from the official instrumentation


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ([], "not a JSON object"),
        ({"resourceSpans": {}}, "resourceSpans: expected a list"),
        (
            {
                "resourceSpans": [
                    {"scopeSpans": [{"spans": [{"traceId": "xyz", "spanId": "0102030405060708"}]}]}
                ]
            },
            "traceId: expected 32 hex",
        ),
        (
            {
                "resourceSpans": [
                    {"scopeSpans": [{"spans": [{"traceId": "0" * 32, "spanId": "0102030405060708"}]}]}
                ]
            },
            "all zero",
        ),
        (
            {
                "resourceSpans": [
                    {
                        "scopeSpans": [
                            {
                                "spans": [
                                    {"traceId": "1" * 32, "spanId": "1" * 16, "startTimeUnixNano": "soon"}
                                ]
                            }
                        ]
                    }
                ]
            },
            "startTimeUnixNano",
        ),
        (
            {
                "resourceSpans": [
                    {
                        "scopeSpans": [
                            {
                                "spans": [
                                    {
                                        "traceId": "1" * 32,
                                        "spanId": "1" * 16,
                                        "attributes": [{"key": "a", "value": {"intValue": "x"}}],
                                    }
                                ]
                            }
                        ]
                    }
                ]
            },
            "attributes.a.intValue",
        ),
    ],
)
def test_bad_json_names_the_field(doc: Any, needle: str) -> None:
    with pytest.raises(DecodeError, match=needle.replace("[", r"\[").replace("(", r"\(")):
        from_json(doc)


def test_json_ids_in_base64_as_protobuf_s_own_json_mapping_writes_them_are_read_too(scripted) -> None:  # type: ignore[no-untyped-def]
    """`MessageToJson` writes ids in base64 where OTLP JSON writes hex: both give the same records."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest.FromString(otlp_protobuf(agent_spans(scripted)))
    as_protobuf_writes_it = MessageToDict(request)
    span = as_protobuf_writes_it["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert len(span["traceId"]) == 24 and len(span["spanId"]) == 12  # base64, not hex
    assert key(from_json(as_protobuf_writes_it)) == key(from_protobuf(request.SerializeToString()))
    span["traceId"] = "!" * 24
    with pytest.raises(DecodeError, match=r"traceId: neither hex nor base64"):
        from_json(as_protobuf_writes_it)
    span["traceId"] = "ab" * 10
    with pytest.raises(DecodeError, match=r"traceId: expected 32 hex characters \(or 24 of base64\)"):
        from_json(as_protobuf_writes_it)


def test_json_accepts_enum_names_and_ignores_unknown_fields() -> None:
    doc = {
        "resourceSpans": [
            {
                "future": 1,
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "1" * 32,
                                "spanId": "2" * 16,
                                "name": "x",
                                "kind": "SPAN_KIND_CLIENT",
                                "status": {"code": "STATUS_CODE_ERROR"},
                                "startTimeUnixNano": "5",
                                "endTimeUnixNano": 9,
                                "newField": True,
                                "attributes": [
                                    {
                                        "key": "k",
                                        "value": {
                                            "arrayValue": {
                                                "values": [{"stringValue": "a"}, {"boolValue": True}]
                                            }
                                        },
                                    }
                                ],
                            }
                        ]
                    }
                ],
            }
        ]
    }
    [r] = from_json(doc)
    assert (r.kind, r.status, r.start_ns, r.attributes) == ("CLIENT", "ERROR", 5, {"k": ["a", True]})


@pytest.mark.parametrize("payload", [b"\xff\xfe garbage", b"\x0a\x05abc"])
def test_bad_protobuf_is_a_decode_error(payload: bytes) -> None:
    with pytest.raises(DecodeError):
        from_protobuf(payload)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
        max_leaves=20,
    )
)
def test_json_decoder_never_crashes_on_arbitrary_json(doc: Any) -> None:
    """Any JSON gives spans that are whole, a span rejected with its reason, or a DecodeError: nothing
    else is raised, and nothing half-read comes out."""
    wrapped = {"resourceSpans": [{"scopeSpans": [{"spans": [doc]}]}]}
    for candidate in (doc, wrapped):
        rejected: list[str] = []
        try:
            records = from_json(candidate, rejected)
        except DecodeError as exc:
            assert str(exc)  # a reason to give back in the 400
            continue
        assert all(isinstance(r, SpanRecord) and r.trace_id and r.span_id for r in records)
        assert all(isinstance(reason, str) and reason for reason in rejected)
        if candidate is wrapped:
            assert len(records) + len(rejected) == 1  # the one span: read whole, or rejected


_SCALAR = st.one_of(
    st.text(max_size=6).map(lambda v: ("string_value", v)),  # "" included: a string set, yet empty
    st.integers(-(2**63), 2**63 - 1).map(lambda v: ("int_value", v)),
    st.booleans().map(lambda v: ("bool_value", v)),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda v: ("double_value", v)),
    st.binary(max_size=4).map(lambda v: ("bytes_value", v)),
    st.just(("", None)),  # a value with nothing set
)
_TRACES = st.sampled_from([b"\x01" * 16, b"\x02" * 16, b"", bytes(16), b"\x03" * 8])  # three are wrong


def _set(target: Any, value: Any) -> None:
    """`value` (a `_SCALAR`, or a list or dict of them) written into the AnyValue `target`."""
    if isinstance(value, list):
        target.array_value.SetInParent()
        for v in value:
            _set(target.array_value.values.add(), v)
    elif isinstance(value, dict):
        target.kvlist_value.SetInParent()
        for k, v in value.items():
            kv = target.kvlist_value.values.add()
            kv.key = k
            _set(kv.value, v)
    elif value[0]:
        setattr(target, value[0], value[1])


_TIMES = st.sampled_from([0, 1, 2**63 - 2, 2**63 - 1, 2**63, 2**64 - 1])  # beyond 2**63 - 2: clamped


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            _TRACES,
            st.dictionaries(
                st.text(min_size=1, max_size=5),  # protobuf's JSON mapping leaves an empty key out
                _SCALAR
                | st.lists(_SCALAR, max_size=3)
                | st.dictionaries(st.text(min_size=1, max_size=3), _SCALAR, max_size=2),
                max_size=5,
            ),
            st.tuples(_TIMES, _TIMES),
            st.sampled_from(["", "scope", "resource"]),  # what begins with this span
        ),
        max_size=8,
    )
)
def test_protobuf_decoder_agrees_with_the_json_one_on_what_protobuf_writes(spans: list[Any]) -> None:
    """Any attribute value, set empty or not, of any span of any trace (wrong ids among them, a trace
    id repeated or not, in one scope or several), at any time (clamped past what SQL holds): the
    protobuf decoder reads what the JSON decoder reads of protobuf's own JSON mapping of the same
    request, rejects the same spans and notes the same clamped times."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    resource = request.resource_spans.add()
    scope = resource.scope_spans.add()
    for n, (trace_id, attributes, (start, end), begins) in enumerate(spans):
        if begins == "resource":
            resource = request.resource_spans.add()
        if begins:
            scope = resource.scope_spans.add()
        span = scope.spans.add()
        span.trace_id, span.span_id, span.name = trace_id, (n + 1).to_bytes(8, "big"), f"s{n}"
        span.start_time_unix_nano, span.end_time_unix_nano = start, end
        for k, v in attributes.items():
            kv = span.attributes.add()
            kv.key = k
            _set(kv.value, v)
    rejected_pb: list[str] = []
    rejected_json: list[str] = []
    notes_pb: list[str] = []
    notes_json: list[str] = []
    decoded = from_protobuf(request.SerializeToString(), rejected_pb, notes_pb)
    assert key(decoded) == key(from_json(MessageToDict(request), rejected_json, notes_json))
    wrong = sum(t not in (b"\x01" * 16, b"\x02" * 16) for t, *_ in spans)
    assert len(rejected_pb) == len(rejected_json) == wrong
    assert notes_pb == notes_json
    assert len(notes_pb) == sum(
        max(times) >= 2**63 - 1 for t, _, times, _ in spans if t in (b"\x01" * 16, b"\x02" * 16)
    )
