"""The receiver fuzzed: several clients at once send good requests beside hostile ones, on a real socket.

Hypothesis draws each round's mix (bounded in count; no deadline, the writer's start-up is not the point):
good requests whose text may hold what a store refuses (NUL, a lone surrogate, escape sequences, the
invisible separators), and hostile ones (bytes that are no request, bodies cut short, JSON of the wrong
shape, a bad span among good ones, a gzip bomb, a wrong type). Four clients post the round concurrently,
so hostile and good requests share the writer's group commits. Then: every good span is stored exactly
once, every hostile request is answered 4xx or 200 with its rejected spans counted, and nothing is 5xx.
"""

from __future__ import annotations

import gzip
import itertools
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from sqlalchemy import text

from filon.miner.store import Store
from filon.tracing.receiver import ReceiverSettings
from tests.cli.test_ingest_bad_spans import span
from tests.conftest import _fresh_schema
from tests.tracing.server import running

JS = {"Content-Type": "application/json"}
PB = {"Content-Type": "application/x-protobuf"}
HOSTILE_TEXT = [
    "bon\x00jour",
    "caf\ud800",
    "\udfff seul",
    "\x1b]0;pwned\x07\x1b[2J",
    "ligne\u2028deux\u2029\u061c\u2060\ufeff",
    "\u202etxt.exe",
    "{" * 300,
]
_ids = itertools.count(1)


def _span(customer: str, conversation: str) -> dict[str, Any]:
    return span(next(_ids), customer, conversation)


def _body(spans: list[dict[str, Any]]) -> bytes:
    document = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": spans}]}]}
    return json.dumps(document).encode()  # ASCII: a lone surrogate travels as JSON's own escape


texts = st.one_of(st.text(max_size=60), st.sampled_from(HOSTILE_TEXT))


@st.composite
def good(draw: st.DrawFn) -> tuple[str, bytes, dict[str, str], list[tuple[str, str]]]:
    conversation = draw(st.sampled_from(["web:fuzz-a", "web:fuzz-b", "whatsapp:33600000001"]))
    spans = [_span(draw(texts), conversation) for _ in range(draw(st.integers(1, 3)))]
    body, headers = _body(spans), dict(JS)
    if draw(st.booleans()):
        body, headers = gzip.compress(body), {**JS, "Content-Encoding": "gzip"}
    return "good", body, headers, [(s["traceId"], s["spanId"]) for s in spans]


@st.composite
def hostile(draw: st.DrawFn) -> tuple[str, bytes, dict[str, str], list[tuple[str, str]]]:
    kind = draw(st.sampled_from(["bytes", "cut", "shape", "mixed", "bomb", "type", "deep", "utf8", "gzip"]))
    if kind == "mixed":  # one bad span among good ones: the good ones are stored, the bad one counted
        spans = [_span(draw(texts), "web:fuzz-mixed") for _ in range(draw(st.integers(1, 3)))]
        bad = {**_span("x", "web:fuzz-mixed"), "traceId": draw(st.sampled_from(["zz", "", "12"]))}
        return "mixed", _body([*spans, bad]), JS, [(s["traceId"], s["spanId"]) for s in spans]
    body = {
        "bytes": draw(st.binary(min_size=1, max_size=300)),
        "cut": _body([_span("coupé", "web:fuzz-cut")])[: draw(st.integers(1, 60))],
        "shape": json.dumps(
            draw(st.sampled_from([{"resourceSpans": "x"}, [], {"resourceSpans": [{"resource": 3}]}]))
        ).encode(),
        "bomb": gzip.compress(b"\0" * (3 * 1024 * 1024)),
        "type": b"hello",
        "deep": ("[" * 20_000 + "]" * 20_000).encode(),
        "utf8": b'{"resourceSpans": [{"\xff": 1}]}',
        "gzip": b"\x1f\x8b\x08 not gzip at all",
    }[kind]
    headers = {
        "bytes": PB,
        "bomb": {**PB, "Content-Encoding": "gzip"},
        "type": {"Content-Type": "text/plain"},
        "gzip": {**JS, "Content-Encoding": "gzip"},
    }.get(kind, JS)
    return kind, body, headers, []


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def receiver(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One receiver for every round (a real SQLite file, then a real PostgreSQL database)."""
    if request.param == "sqlite":
        db = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'fuzz.db'}"
    else:
        db = _fresh_schema(request.getfixturevalue("postgres_url"))
    with running(ReceiverSettings(db=db, max_body=2 * 1024 * 1024)) as url:
        yield url, db


def _parses(body: bytes) -> bool:
    try:
        ExportTraceServiceRequest.FromString(body)
    except Exception:
        return False
    return True


def _post(url: str, request: tuple[str, bytes, dict[str, str], list[tuple[str, str]]]) -> httpx.Response:
    return httpx.post(f"{url}/v1/traces", content=request[1], headers=request[2], timeout=60)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rounds=st.lists(st.one_of(good(), hostile()), min_size=4, max_size=16))
def test_good_spans_stored_once_hostile_ones_refused_beside_them(receiver: Any, rounds: list[Any]) -> None:
    url, db = receiver
    with ThreadPoolExecutor(4) as pool:  # four clients at once: their requests share group commits
        answers = list(pool.map(lambda r: _post(url, r), rounds))
    assert all(a.status_code < 500 for a in answers), [
        (r[0], a.status_code, a.text) for r, a in zip(rounds, answers, strict=True)
    ]
    for (kind, body, _, _), answer in zip(rounds, answers, strict=True):
        if kind == "good":
            assert answer.status_code == 200, answer.text
            assert int(answer.json().get("partialSuccess", {}).get("rejectedSpans", 0)) == 0
        elif kind == "bytes" and _parses(body):  # random bytes that happen to be a request: OTLP's
            assert answer.status_code in (200, 400), answer.text  # to answer, stored or refused
        elif kind == "mixed":
            assert answer.status_code == 200 and answer.json()["partialSuccess"]["rejectedSpans"] == "1"
        else:
            assert 400 <= answer.status_code < 500, (kind, answer.status_code, answer.text)
    expected = [ids for r in rounds for ids in r[3]]
    with Store.open(db).engine.connect() as conn:
        stored: dict[tuple[str, str], int] = {}
        for trace_id, span_id, count in conn.execute(
            text("SELECT trace_id, span_id, COUNT(*) FROM spans GROUP BY trace_id, span_id")
        ):
            stored[(trace_id, span_id)] = count
    assert all(stored.get(ids) == 1 for ids in expected), [ids for ids in expected if stored.get(ids) != 1]
