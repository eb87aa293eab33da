"""OTLP JSON (the `/v1/traces` JSON body, and `.json` / `.jsonl` files) into `tracing.records.SpanRecord`:
strict, every error naming the field at fault (`resourceSpans[0].scopeSpans[1].spans[3].traceId`), nothing
half-decoded returned; with `rejected`, a span that does not decode is skipped and its reason kept."""

from __future__ import annotations

import base64
from typing import Any

from filon.miner.core.messages import said
from filon.tracing.records import (
    DROPPED,
    KIND,
    MAX_DEPTH,
    MAX_NS,
    STATUS,
    DecodeError,
    SpanRecord,
    clamped,
    mark_clamped,
    with_events,
)


def _any_json(value: Any, where: str, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        raise DecodeError(said("err.decode.too_deep", where=where))
    if not isinstance(value, dict):
        raise DecodeError(said("err.decode.any_value", where=where))
    if "stringValue" in value:
        if not isinstance(value["stringValue"], str):
            raise DecodeError(said("err.decode.not_string", where=f"{where}.stringValue"))
        return value["stringValue"]
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError) as exc:
            raise DecodeError(said("err.decode.not_integer", where=f"{where}.intValue")) from exc
    if "doubleValue" in value:
        try:
            return float(value["doubleValue"])
        except (TypeError, ValueError) as exc:
            raise DecodeError(said("err.decode.not_number", where=f"{where}.doubleValue")) from exc
    if "arrayValue" in value:
        items = _obj(value["arrayValue"], f"{where}.arrayValue").get("values") or []
        return [_any_json(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(_list(items, where))]
    if "kvlistValue" in value:
        return _attrs(
            _obj(value["kvlistValue"], f"{where}.kvlistValue").get("values") or [], where, depth + 1
        )
    if "bytesValue" in value:
        return str(value["bytesValue"])
    return None


def _get(doc: dict[str, Any], key: str) -> Any:
    value = doc.get(key)
    return [] if value is None else value


def _obj(value: Any, where: str) -> dict[str, Any]:
    """An object of the request (absent: empty); a string, number or list in its place is the sender's
    error, said with where it is (400, or the span rejected), never a crash."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise DecodeError(said("err.decode.expected_object", where=where, got=type(value).__name__))
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise DecodeError(said("err.decode.expected_list", where=where))
    return value


def _attrs(items: Any, where: str, depth: int = 0) -> dict[str, Any]:
    out = {}
    for i, kv in enumerate(_list(items, where)):
        if not isinstance(kv, dict) or not isinstance(kv.get("key"), str):
            raise DecodeError(said("err.decode.string_key", where=f"{where}[{i}]"))
        out[kv["key"]] = _any_json(kv.get("value") or {}, f"{where}.{kv['key']}", depth)
    return out


def _hex_id(value: Any, size: int, where: str, required: bool = True) -> str | None:
    """An id as OTLP JSON writes it, in hex; or in base64, as protobuf's standard JSON mapping does
    (`MessageToJson`), which OTLP JSON departs from: the two lengths differ, so neither is mistaken."""
    if value in (None, "") and not required:
        return None
    b64 = 4 * -(-size // 3)
    if isinstance(value, str) and len(value) == b64:
        try:
            raw = base64.b64decode(value, validate=True)
        except ValueError as exc:
            raise DecodeError(said("err.decode.not_hex_base64", where=where)) from exc
    elif not isinstance(value, str) or len(value) != size * 2:
        raise DecodeError(said("err.decode.hex_size", where=where, hex=size * 2, b64=b64))
    else:
        try:
            raw = bytes.fromhex(value)
        except ValueError as exc:
            raise DecodeError(said("err.decode.not_hex", where=where)) from exc
    if len(raw) != size:
        raise DecodeError(said("err.decode.bytes", where=where, size=size, got=len(raw)))
    if raw == bytes(size):
        raise DecodeError(said("err.decode.all_zero", where=where))
    return raw.hex()


def _nanos(value: Any, where: str) -> int:
    try:
        ns = int(value or 0)
    except (TypeError, ValueError) as exc:
        raise DecodeError(said("err.decode.not_integer", where=where)) from exc
    if ns < 0:
        raise DecodeError(said("err.decode.negative", where=where))
    return clamped(ns)


def _enum(value: Any, table: dict[int, str], where: str) -> str:
    if isinstance(value, str) and value in table.values():
        return value
    if isinstance(value, str):
        suffix = value.rsplit("_", 1)[-1]
        if suffix in table.values():
            return suffix
    try:
        return table[int(value or 0)]
    except (TypeError, ValueError, KeyError) as exc:
        raise DecodeError(said("err.decode.enum", where=where, value=repr(value))) from exc


def from_json(
    document: Any, rejected: list[str] | None = None, notes: list[str] | None = None
) -> list[SpanRecord]:
    """An OTLP JSON `ExportTraceServiceRequest` (hex ids, integer enums, lowerCamelCase; unknown keys ignored)."""
    if not isinstance(document, dict):
        raise DecodeError(said("err.decode.not_document"))
    out = []
    for r, rs in enumerate(_list(_get(document, "resourceSpans"), "resourceSpans")):
        where_r = f"resourceSpans[{r}]"
        if not isinstance(rs, dict):
            raise DecodeError(said("err.decode.not_an_object", where=where_r))
        resource = _attrs(
            _obj(rs.get("resource"), f"{where_r}.resource").get("attributes") or [],
            f"{where_r}.resource.attributes",
        )
        for s_i, ss in enumerate(_list(_get(rs, "scopeSpans"), f"{where_r}.scopeSpans")):
            where_s = f"{where_r}.scopeSpans[{s_i}]"
            if not isinstance(ss, dict):
                raise DecodeError(said("err.decode.not_an_object", where=where_s))
            scope = str(_obj(ss.get("scope"), f"{where_s}.scope").get("name") or "")
            for i, s in enumerate(_list(_get(ss, "spans"), f"{where_s}.spans")):
                where = f"{where_s}.spans[{i}]"
                try:
                    record = _json_span(s, where, resource, scope)
                    if record.end_ns == MAX_NS or record.start_ns == MAX_NS:
                        start, end = (int(s.get(k) or 0) for k in ("startTimeUnixNano", "endTimeUnixNano"))
                        record = mark_clamped(record, start, end, notes)
                    out.append(record)
                except DecodeError as exc:
                    if rejected is None:
                        raise
                    rejected.append(str(exc))
    return out


def _json_span(s: Any, where: str, resource: dict[str, Any], scope: str) -> SpanRecord:
    if not isinstance(s, dict):
        raise DecodeError(said("err.decode.not_an_object", where=where))
    status = s.get("status") or {}
    if not isinstance(status, dict):
        raise DecodeError(said("err.decode.not_an_object", where=f"{where}.status"))
    record = SpanRecord(
        trace_id=_hex_id(s.get("traceId"), 16, f"{where}.traceId") or "",
        span_id=_hex_id(s.get("spanId"), 8, f"{where}.spanId") or "",
        parent_span_id=_hex_id(s.get("parentSpanId"), 8, f"{where}.parentSpanId", required=False),
        name=str(s.get("name") or ""),
        start_ns=_nanos(s.get("startTimeUnixNano"), f"{where}.startTimeUnixNano"),
        end_ns=_nanos(s.get("endTimeUnixNano"), f"{where}.endTimeUnixNano"),
        status=_enum(status.get("code", 0), STATUS, f"{where}.status.code"),
        status_message=str(status.get("message") or ""),
        kind=_enum(s.get("kind", 0), KIND, f"{where}.kind"),
        attributes=with_events(
            _attrs(s.get("attributes") or [], f"{where}.attributes"),
            (
                (str(e.get("name")), _attrs(e.get("attributes") or [], f"{where}.events"))
                for e in _list(s.get("events") or [], f"{where}.events")
                if isinstance(e, dict)
            ),
        ),
        resource=resource,
        scope=scope,
    )
    dropped = s.get("droppedAttributesCount")
    if dropped and str(dropped).isdigit():
        record.attributes[DROPPED] = int(dropped)
    return record
