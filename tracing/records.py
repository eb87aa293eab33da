"""The one span shape every source is normalised to: the SDK's `ReadableSpan`, OTLP protobuf, OTLP JSON
(`tracing.otlp_json`).

Ids are lower-case hex (32 and 16 characters), times are Unix nanoseconds, attribute values are plain
JSON values. Decoders raise `DecodeError` with the field at fault; nothing half-decoded is returned.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from filon.miner.core.jsontext import dumps, loads
from filon.miner.core.messages import Refusal, said

STATUS = {0: "UNSET", 1: "OK", 2: "ERROR"}
# how many attributes the SDK dropped from a span (its limit, OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, 128 by
# default, drops the oldest first): kept as an attribute of the span, for `traces doctor` to name the limit
DROPPED = "otel.dropped_attributes_count"
KIND = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}
MAX_DEPTH = 32
MAX_NS = 2**63 - 1  # a time as SQL stores it: a fixed64 beyond is clamped here, never a store's refusal


def clamped(ns: int) -> int:
    """A time in nanoseconds the store can hold (a valid fixed64 of 2^63 or more is not: clamped)."""
    return ns if ns <= MAX_NS else MAX_NS


class DecodeError(Refusal):
    """A payload that is not valid OTLP; the message names the field (`err.decode.*`)."""


@dataclass
class SpanRecord:
    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    start_ns: int
    end_ns: int
    status: str = "UNSET"
    status_message: str = ""
    kind: str = "INTERNAL"
    attributes: dict[str, Any] = field(default_factory=dict)
    resource: dict[str, Any] = field(default_factory=dict)
    scope: str = ""

    @property
    def duration_ms(self) -> float:
        return max(0, self.end_ns - self.start_ns) / 1e6


# --- the SDK ------------------------------------------------------------------------------------------


# by the enums' values: hashing an Enum member is a Python call, on every span
_STATUS_NAMES = {code.value: code.name for code in StatusCode}
_KIND_NAMES = {kind.value: kind.name for kind in SpanKind}
_resources: dict[int, tuple[object, dict[str, Any]]] = {}


def _plain(attributes: Any) -> dict[str, Any]:
    """A span's attributes as a plain dict of JSON values (tuples become lists).

    A finished SDK span holds a `BoundedAttributes` behind a `MappingProxyType`; copying through the
    Mapping protocol costs a Python call per key, which the exporter's thread pays on every span while
    the agent's thread waits for the GIL. The SDK's own dict is used as it is (the SDK refuses new
    attributes once a span has ended, and filon never writes into a record's attributes), unless it
    holds tuples; any other mapping (or a future SDK that changes its container) is copied.
    """
    if not attributes:
        return {}
    inner = getattr(attributes, "_dict", None)
    if type(inner) is dict and tuple not in map(type, inner.values()):
        return inner
    out = dict(inner if type(inner) is dict else attributes)
    for key, value in out.items():
        if type(value) is tuple:
            out[key] = list(value)
    return out


def _resource(span: ReadableSpan) -> dict[str, Any]:
    """Resources are shared by every span of a provider: converted once, cached by identity."""
    resource = span.resource
    if resource is None:
        return {}
    cached = _resources.get(id(resource))
    if cached is None or cached[0] is not resource:
        if len(_resources) > 64:
            _resources.clear()
        cached = (resource, _plain(resource.attributes))
        _resources[id(resource)] = cached
    return cached[1]


def with_attributes(r: SpanRecord, attributes: dict[str, Any]) -> SpanRecord:
    """The same span with other attributes (`dataclasses.replace`, without its cost per call)."""
    fields = fields_of(r)
    fields[ATTRIBUTES] = attributes
    return SpanRecord(*fields)


EXCEPTION_KEYS = ("exception.type", "exception.message")


def with_events(attributes: dict[str, Any], events: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """The span's attributes with what its events say that filon reads: the first `exception` event's
    type and message (a 429 that an instrumentation only records as an exception is read like one in
    `error.type`), and the messages of the GenAI conventions' earlier event-based form
    (`tracing.conventions.genai_events`). The given dict is never changed, and returned as it is when
    there is nothing to add."""
    added: dict[str, Any] = {}
    genai: list[tuple[str, Any]] = []
    for name, event_attributes in events:
        if name == "exception" and event_attributes and "exception.type" not in added:
            added.update(
                {
                    k: event_attributes[k]
                    for k in EXCEPTION_KEYS
                    if k in event_attributes and k not in attributes
                }
            )
        elif name.startswith("gen_ai."):
            genai.append((name, event_attributes or {}))
    if genai:
        from filon.tracing.conventions.genai_events import messages, tool_run

        tool = attributes.get("gen_ai.operation.name") == "execute_tool"  # its events are the tool's run
        found = tool_run(genai) if tool else messages(genai)
        added.update({k: v for k, v in found.items() if k not in attributes})
    return {**attributes, **added} if added else attributes


# `SpanRecord`'s fields by name: the order of `sdk_fields` and `fields_of`, the lists that cross the pipe
FIELD_NAMES = tuple(f.name for f in dataclass_fields(SpanRecord))
RESOURCE = FIELD_NAMES.index("resource")
ATTRIBUTES = FIELD_NAMES.index("attributes")


def sdk_fields(span: ReadableSpan, trace_id: str | None = None) -> list[Any]:
    """A finished SDK span as `SpanRecord`'s fields, in order: what crosses the pipe to filon's helper
    process. `trace_id`, when given, is the span's trace id already formatted (a trace's spans share it).

    This runs in the agent's process for every span, so it reads the SDK's own fields (every
    `ReadableSpan` property is a Python call); a span without them goes through the public properties.
    """
    try:
        ctx, parent, status, scope = span._context, span._parent, span._status, span._instrumentation_scope
        name, start, end, kind = span._name, span._start_time, span._end_time, span._kind
        attributes: Any = span._attributes
        events: Any = span._events
    except AttributeError:
        ctx, parent, status, scope = span.context, span.parent, span.status, span.instrumentation_scope
        name, start, end, kind = span.name, span.start_time, span.end_time, span.kind
        attributes, events = span.attributes, span.events
    assert ctx is not None
    plain = _plain(attributes)
    dropped = getattr(attributes, "dropped", 0)
    if dropped:  # the SDK's limit cut the span (128 attributes by default): said by `traces doctor`
        plain = {**plain, DROPPED: dropped}
    if events:  # rare: exceptions, and the event-based GenAI convention
        plain = with_events(plain, ((e.name, e.attributes) for e in events))
    return [
        trace_id or ctx.trace_id.to_bytes(16, "big").hex(),
        ctx.span_id.to_bytes(8, "big").hex(),
        parent.span_id.to_bytes(8, "big").hex() if parent is not None else None,
        name,
        start or 0,
        end or start or 0,
        _STATUS_NAMES[status.status_code._value_],
        status.description or "",
        _KIND_NAMES.get(kind._value_) or kind.name,
        plain,
        _resource(span),
        scope.name if scope else "",
    ]


def from_sdk(span: ReadableSpan, trace_id: str | None = None) -> SpanRecord:
    return SpanRecord(*sdk_fields(span, trace_id))


def fields_of(r: SpanRecord) -> list[Any]:
    """The inverse of `SpanRecord(*fields)`."""
    return [
        r.trace_id,
        r.span_id,
        r.parent_span_id,
        r.name,
        r.start_ns,
        r.end_ns,
        r.status,
        r.status_message,
        r.kind,
        r.attributes,
        r.resource,
        r.scope,
    ]


# --- OTLP protobuf ------------------------------------------------------------------------------------


def _any_pb(value: AnyValue, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        raise DecodeError(said("err.decode.attr_too_deep"))
    which = value.WhichOneof("value")
    if which == "array_value":
        return [_any_pb(v, depth + 1) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _any_pb(kv.value, depth + 1) for kv in value.kvlist_value.values}
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    return getattr(value, which) if which else None


_SCALARS = frozenset(("string_value", "int_value", "bool_value", "double_value"))


def _attrs_pb(kvs: Any) -> dict[str, Any]:
    """Attributes of a span or resource; scalars (nearly all of them) without a call each, and a string
    that is not empty (most of them) without asking which of the value's fields is set: a oneof's other
    fields read as empty, so a string that is not is the one set. Each access to a protobuf field is a
    call into upb; decoding is most of what `filon serve`'s receiver does (py-spy, 2026-12-07: 82 % of
    its CPU while holding the GIL, this loop half of it)."""
    out: dict[str, Any] = {}
    scalars = _SCALARS
    for kv in kvs:
        value = kv.value
        text = value.string_value
        if text:
            out[kv.key] = text
            continue
        which = value.WhichOneof("value")
        out[kv.key] = getattr(value, which) if which in scalars else _any_pb(value)
    return out


def _id(raw: bytes, size: int, what: str) -> str:
    if len(raw) != size:
        raise DecodeError(said("err.decode.bytes", where=what, size=size, got=len(raw)))
    if raw == bytes(size):
        raise DecodeError(said("err.decode.all_zero", where=what))
    return raw.hex()


CLAMPED = "filon.time_clamped"  # set on a span whose time was beyond `MAX_NS`: its times as sent


def mark_clamped(r: SpanRecord, start: int, end: int, notes: list[str] | None) -> SpanRecord:
    """A span whose time the store could not hold, clamped: said in its attributes and in `notes`."""
    r.attributes = {**r.attributes, CLAMPED: f"start {start} end {end}"}
    if notes is not None:
        notes.append(
            f"span {r.span_id}: a time beyond 2^63-1 ns, clamped (as sent: start {start}, end {end})"
        )
    return r


def from_protobuf(
    payload: bytes, rejected: list[str] | None = None, notes: list[str] | None = None
) -> list[SpanRecord]:
    """Strict by default; with `rejected`, a span that does not decode is skipped and its reason kept.
    A time beyond what SQL holds is clamped and marked (`mark_clamped`)."""
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(payload)
    except Exception as exc:  # protobuf raises its own DecodeError, and more on garbage
        raise DecodeError(said("err.decode.not_export", why=str(exc))) from exc
    out = []
    zero16, zero8 = bytes(16), bytes(8)
    for rs in request.resource_spans:
        resource = _attrs_pb(rs.resource.attributes)
        for ss in rs.scope_spans:
            scope = ss.scope.name
            for s in ss.spans:
                trace_id, span_id = s.trace_id, s.span_id
                try:
                    if len(trace_id) != 16 or trace_id == zero16:
                        _id(trace_id, 16, "traceId")  # raises with the reason
                    if len(span_id) != 8 or span_id == zero8:
                        _id(span_id, 8, "spanId")
                    status = s.status
                    parent = s.parent_span_id
                    attributes = _attrs_pb(s.attributes)
                    if s.dropped_attributes_count:
                        attributes[DROPPED] = s.dropped_attributes_count
                    if s.events:
                        attributes = with_events(
                            attributes, ((e.name, _attrs_pb(e.attributes)) for e in s.events)
                        )
                    record = SpanRecord(
                        trace_id.hex(),
                        span_id.hex(),
                        parent.hex() if parent else None,
                        s.name,
                        clamped(s.start_time_unix_nano),
                        clamped(s.end_time_unix_nano),
                        STATUS.get(status.code, "UNSET"),
                        status.message,
                        KIND.get(s.kind, "UNSPECIFIED"),
                        attributes,
                        resource,
                        scope,
                    )
                except DecodeError as exc:
                    if rejected is None:
                        raise
                    rejected.append(str(exc))
                    continue
                if record.end_ns == MAX_NS or record.start_ns == MAX_NS:
                    record = mark_clamped(record, s.start_time_unix_nano, s.end_time_unix_nano, notes)
                out.append(record)
    return out


def batched(records: Iterable[SpanRecord], size: int) -> Iterator[list[SpanRecord]]:
    batch: list[SpanRecord] = []
    for r in records:
        batch.append(r)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def pack(records: list[SpanRecord]) -> str:
    """Records as one JSON string: what the sampler's buffer holds for a trace it may still keep. One
    string instead of a dozen containers per span is less for the garbage collector to walk."""
    return dumps([fields_of(r) for r in records])


def unpack(packed: str | bytes) -> list[SpanRecord]:
    return [SpanRecord(*fields) for fields in loads(packed)]
