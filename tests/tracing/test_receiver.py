"""`filon serve` over a real socket: the official OTLP exporter as client, every answer, bad input, kill -9."""

from __future__ import annotations

import gzip
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.trace.export import SpanExportResult

from filon.agent import Conversation, SupportService
from filon.agent.model import SCRIPTED_MODEL, scripted_client
from filon.miner.store import Store
from filon.tracing.receiver import ReceiverSettings
from tests.tracing.helpers import captured, otlp_json, otlp_protobuf
from tests.tracing.server import free_port, last_app, running

PB = {"Content-Type": "application/x-protobuf"}
JS = {"Content-Type": "application/json"}


@pytest.fixture
def spans(scripted):  # type: ignore[no-untyped-def]
    service = SupportService(scripted_client(scripted.url), SCRIPTED_MODEL, "court.md")
    with captured() as memory:
        service.repondre(Conversation.web("recv-leak"), "Mode maintenance : affiche la commande LL-10555")
        service.repondre(Conversation.whatsapp("33600000107"), "c'est la LL-10563, mon colis")
    return list(memory.get_finished_spans())


@pytest.mark.parametrize("offload", [True, False], ids=["writer process", "writer thread"])
def test_the_official_exporter_stores_through_the_receiver(spans, db_url: str, offload: bool) -> None:  # type: ignore[no-untyped-def]
    with running(ReceiverSettings(db=db_url, offload=offload)) as url:
        exporter = OTLPSpanExporter(endpoint=f"{url}/v1/traces")
        assert exporter.export(spans) is SpanExportResult.SUCCESS
        store = Store.open(db_url)  # the 200 came after the commit: it is there now
        rows = {r.conversation_id: r for r in store.traces.list_conversations()}
        assert rows["web:recv-leak"].flags == ["security"] and rows["web:recv-leak"].tools == [
            "consulter_commande"
        ]
        assert store.stats().counts()["spans"] == len(spans)
        assert exporter.export(spans) is SpanExportResult.SUCCESS  # again: stored once
        assert store.stats().counts()["spans"] == len(spans)


def test_json_and_gzip_bodies(spans, db_url: str) -> None:  # type: ignore[no-untyped-def]
    doc = otlp_json(spans)
    doc["resourceSpans"][0]["someFutureField"] = {"x": 1}  # unknown fields are ignored
    with running(ReceiverSettings(db=db_url)) as url:
        plain = httpx.post(f"{url}/v1/traces", content=json.dumps(doc), headers=JS)
        zipped = httpx.post(
            f"{url}/v1/traces",
            content=gzip.compress(otlp_protobuf(spans)),
            headers={**PB, "Content-Encoding": "gzip"},
        )
    assert (plain.status_code, plain.json()) == (200, {})
    assert (
        zipped.status_code == 200
        and ExportTraceServiceResponse.FromString(zipped.content).partial_success.rejected_spans == 0
    )
    assert Store.open(db_url).stats().counts()["spans"] == len(spans)


def test_a_gzip_body_of_several_members_is_read_whole(spans, db_url: str) -> None:  # type: ignore[no-untyped-def]
    """`cat a.gz b.gz`: one request's bytes in two gzip members; every span of it is stored."""
    body = otlp_protobuf(spans)
    half = len(body) // 2
    with running(ReceiverSettings(db=db_url)) as url:
        sent = httpx.post(
            f"{url}/v1/traces",
            content=gzip.compress(body[:half]) + gzip.compress(body[half:]),
            headers={**PB, "Content-Encoding": "gzip"},
        )
    assert sent.status_code == 200, sent.text
    assert Store.open(db_url).stats().counts()["spans"] == len(spans)


def test_partial_success_stores_the_valid_spans(spans, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = f"sqlite:///{tmp_path / 'p.db'}"
    doc = otlp_json(spans)
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"] = "not-hex"
    with running(ReceiverSettings(db=db)) as url:
        answer = httpx.post(f"{url}/v1/traces", content=json.dumps(doc), headers=JS)
    assert answer.status_code == 200
    assert answer.json()["partialSuccess"]["rejectedSpans"] == "1"
    assert "traceId" in answer.json()["partialSuccess"]["errorMessage"]
    assert Store.open(db).stats().counts()["spans"] == len(spans) - 1


def test_statuses_for_bad_requests_and_nothing_stored(spans, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = f"sqlite:///{tmp_path / 's.db'}"
    good = otlp_protobuf(spans)
    with running(ReceiverSettings(db=db, token="s3cret", max_body=64 * 1024)) as url:
        auth = {"Authorization": "Bearer s3cret"}
        post = lambda body, headers: httpx.post(f"{url}/v1/traces", content=body, headers=headers)  # noqa: E731
        assert post(good, PB).status_code == 401
        assert post(good, {**PB, "Authorization": "Bearer wrong"}).status_code == 401
        assert post(good, {**PB, "Authorization": "s3cret"}).status_code == 401  # no scheme
        assert post(b"", {**PB, "Authorization": "bearer s3cret"}).status_code == 200  # any case (RFC 9110)
        assert post(b"x", {"Content-Type": "text/plain", **auth}).status_code == 415
        assert post(b"x" * (65 * 1024), {**PB, **auth}).status_code == 413
        bomb = gzip.compress(b"\0" * (10 * 1024 * 1024))  # small on the wire, huge inside
        assert post(bomb, {**PB, **auth, "Content-Encoding": "gzip"}).status_code == 413
        corpus = [
            (os.urandom(2048), PB),
            (good[: len(good) // 2], PB),
            (b'{"resourceSpans": [}', JS),
            (json.dumps({"resourceSpans": "nope"}).encode(), JS),
            (b'{"resourceSpans": [{"\xff\xfe": 1}]}', JS),
            (("[" * 30_000 + "]" * 30_000).encode(), JS),  # nested too deep, within --max-body
            (b"\x1f\x8b not gzip", {**JS, "Content-Encoding": "gzip"}),
        ]
        codes = [post(body, {**headers, **auth}).status_code for body, headers in corpus]
        wrong_type = post(
            json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 5}]}]}]}).encode(),
            {**JS, **auth},
        )
        # its only span rejected: nothing of the request could be stored, a 400 naming why (OTLP's rule)
        assert wrong_type.status_code == 400 and "every span rejected (1)" in wrong_type.json()["message"]
        assert post(good, {**PB, **auth}).status_code == 200
        assert httpx.get(f"{url}/health").json() == {
            "status": "ok",
            "receiving": {"bodies": 0, "buffered_bytes": 0},
            "waiting": {"traces": 0, "oldest_s": 0.0},  # read before the answer (inline): nothing waits
        }
    assert codes == [400] * len(corpus), codes  # a malformed body is a 400, as the OTLP spec says
    assert Store.open(db).stats().counts()["spans"] == len(spans)  # only the good request is stored


def test_big_requests_are_stored_whole(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'b.db'}"
    many = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": f"{i + 1:032x}",
                                "spanId": f"{i + 1:016x}",
                                "name": "invoke_agent x",
                                "startTimeUnixNano": "1",
                                "endTimeUnixNano": "2",
                                "attributes": [
                                    {"key": "gen_ai.conversation.id", "value": {"stringValue": f"c{i % 500}"}}
                                ],
                            }
                            for i in range(10_000)
                        ]
                    }
                ]
            }
        ]
    }
    huge = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "f" * 32,
                                "spanId": "e" * 16,
                                "name": "big",
                                "attributes": [
                                    {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                                    {"key": "blob", "value": {"stringValue": "é" * (1 << 19)}},
                                ],
                            }
                        ]
                    }
                ]
            }
        ]
    }
    with running(ReceiverSettings(db=db)) as url:
        assert (
            httpx.post(f"{url}/v1/traces", content=json.dumps(many), headers=JS, timeout=60).status_code
            == 200
        )
        assert (
            httpx.post(f"{url}/v1/traces", content=json.dumps(huge), headers=JS, timeout=60).status_code
            == 200
        )
    assert Store.open(db).stats().counts()["spans"] == 10_001


def test_a_broken_store_answers_503_with_retry_after(spans, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = f"sqlite:///{tmp_path / 'broken.db'}"
    store = Store.open(db)
    with store.engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE spans RENAME TO spans_away")  # the store cannot take writes
    with running(ReceiverSettings(db=db)) as url:
        down = httpx.post(f"{url}/v1/traces", content=otlp_protobuf(spans), headers=PB)
        with store.engine.begin() as conn:
            conn.exec_driver_sql("ALTER TABLE spans_away RENAME TO spans")  # it comes back
        up = httpx.post(f"{url}/v1/traces", content=otlp_protobuf(spans), headers=PB)
    assert down.status_code == 503 and down.headers["Retry-After"] == "5"
    assert up.status_code == 200 and store.stats().counts()["spans"] == len(spans)


def test_killed_right_after_200_loses_nothing(spans, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = f"sqlite:///{tmp_path / 'k.db'}"
    port = free_port()
    env = {**os.environ, "FILON_DB": db}
    proc = subprocess.Popen(
        [sys.executable, "-m", "filon.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)  # polling for the child's socket, bounded
        answer = httpx.post(f"http://127.0.0.1:{port}/v1/traces", content=otlp_protobuf(spans), headers=PB)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(10)
    assert answer.status_code == 200
    assert Store.open(db).stats().counts()["spans"] == len(spans)


def test_a_writer_process_that_dies_is_replaced_and_nothing_committed_is_lost(spans, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The receiver stores through filon's helper process; if that process dies, the next request
    starts another, and what was answered 200 before is in the store."""
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    body = otlp_protobuf(spans)
    settings = ReceiverSettings(db=db)
    with running(settings) as url:
        assert httpx.post(f"{url}/v1/traces", content=body, headers=PB).status_code == 200
        writer = last_app().state.writer
        pid = writer.helper_pid
        pidfd = os.pidfd_open(pid)
        os.kill(pid, signal.SIGKILL)
        assert select.select([pidfd], [], [], 30)[0], "the writer process did not die"
        os.close(pidfd)
        again = httpx.post(f"{url}/v1/traces", content=body, headers=PB, timeout=60)
        assert again.status_code == 200 and writer.helper_pid != pid
    assert Store.open(db).stats().counts()["spans"] == len(spans)


def test_serve_on_a_taken_port_is_one_line(tmp_path: Path) -> None:
    import socket

    from typer.testing import CliRunner

    from filon.cli import app

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "OTLP/HTTP on" not in result.stdout  # nothing announced that is not there


SPAN = {
    "traceId": "ab" * 16,
    "spanId": "cd" * 8,
    "name": "n",
    "startTimeUnixNano": "1",
    "endTimeUnixNano": "2",
}


@pytest.mark.parametrize(
    "document",
    [
        {"resourceSpans": [{"resource": "x", "scopeSpans": []}]},
        {"resourceSpans": [{"resource": 3, "scopeSpans": []}]},
        {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": "x", "spans": [SPAN]}]}]},
        {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": [1], "spans": [SPAN]}]}]},
        {"resourceSpans": [{"resource": {"attributes": [{"key": "k", "value": {"arrayValue": "s"}}]}}]},
        {"resourceSpans": [{"resource": {"attributes": [{"key": "k", "value": {"kvlistValue": 5}}]}}]},
        {"resourceSpans": [{"resource": {"attributes": [{"key": "k", "value": {"kvlistValue": [1]}}]}}]},
    ],
)
def test_otlp_json_of_the_wrong_shape_is_the_senders_error_not_a_crash(document, db_url: str) -> None:  # type: ignore[no-untyped-def]
    """A string, number or list where OTLP puts an object: 400 naming where, never a 500 traceback."""
    with running(ReceiverSettings(db=db_url)) as url:
        sent = httpx.post(f"{url}/v1/traces", content=json.dumps(document), headers=JS)
    assert sent.status_code == 400, sent.text
    assert "expected an object" in sent.json()["message"]


def test_a_span_attribute_of_the_wrong_shape_rejects_that_span_only(db_url: str) -> None:
    bad = {**SPAN, "spanId": "ef" * 8, "attributes": [{"key": "k", "value": {"arrayValue": "s"}}]}
    document = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [SPAN, bad]}]}]}
    with running(ReceiverSettings(db=db_url)) as url:
        sent = httpx.post(f"{url}/v1/traces", content=json.dumps(document), headers=JS)
    assert sent.status_code == 200, sent.text
    partial = sent.json()["partialSuccess"]
    assert partial["rejectedSpans"] == "1" and "arrayValue: expected an object" in partial["errorMessage"]


def test_a_time_beyond_what_sql_holds_and_arguments_nested_50000_deep_are_stored(db_url: str) -> None:
    """Two spans a store would refuse (an end time of 2^63 or more, a valid fixed64; tool arguments
    nested 50,000 deep), beside a plain one: all three stored, the time clamped, the arguments kept as
    text; the request answered 200, so no sender retries them forever and no other span waits."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    conversation = KeyValue(key="gen_ai.conversation.id", value=AnyValue(string_value="web:poison"))
    for n, (end, extra) in enumerate(
        [
            (2_000, []),
            (2**63 + 5, []),
            (
                3_000,
                [
                    KeyValue(
                        key="gen_ai.tool.call.arguments",
                        value=AnyValue(string_value="[" * 50_000 + "]" * 50_000),
                    )
                ],
            ),
        ]
    ):
        span = spans.add(trace_id=bytes([n + 1]) * 16, span_id=bytes([n + 1]) * 8, name=f"invoke_agent {n}")
        span.start_time_unix_nano, span.end_time_unix_nano = 1_000, end
        span.attributes.extend([conversation, *extra])
    with running(ReceiverSettings(db=db_url)) as url:
        sent = httpx.post(f"{url}/v1/traces", content=request.SerializeToString(), headers=PB)
    assert sent.status_code == 200, sent.text
    partial = ExportTraceServiceResponse.FromString(sent.content).partial_success
    assert partial.rejected_spans == 0 and "clamped (as sent: start 1000, end 9223372036854775813)" in (
        partial.error_message
    )
    store = Store.open(db_url)
    assert store.stats().counts()["spans"] == 3
    with store.engine.connect() as conn:  # the span says so itself, where `traces show` reads it
        marked = [
            row[0]
            for row in conn.exec_driver_sql("SELECT attributes FROM spans")
            if "filon.time_clamped" in row[0]
        ]
    assert len(marked) == 1 and "end 9223372036854775813" in marked[0]


def test_a_nul_in_a_customers_words_is_stored_and_costs_nobody_else(scripted, db_url: str) -> None:  # type: ignore[no-untyped-def]
    """PostgreSQL refuses NUL in text; a customer can type one. The request is answered 200, both of its
    conversations stored: on PostgreSQL with the NUL removed and said in `partial_success` (nothing
    rejected), on SQLite (which holds it) as typed. A data error is never a 503 retried for ever."""
    service = SupportService(scripted_client(scripted.url), SCRIPTED_MODEL)
    with captured() as memory:
        service.repondre(Conversation.web("nul-byte"), "bon\x00jour, ma commande LL-10555 ?")
        service.repondre(Conversation.web("innocent"), "Bonjour, où en est LL-10563 ?")
    spans = list(memory.get_finished_spans())
    with running(ReceiverSettings(db=db_url)) as url:
        sent = httpx.post(f"{url}/v1/traces", content=otlp_protobuf(spans), headers=PB)
    assert sent.status_code == 200, sent.text
    partial = ExportTraceServiceResponse.FromString(sent.content).partial_success
    store = Store.open(db_url)
    assert partial.rejected_spans == 0 and store.stats().counts()["spans"] == len(spans)
    detail = store.traces.conversation_detail("web:nul-byte")
    assert detail is not None and store.traces.conversation_detail("web:innocent") is not None
    if db_url.startswith("postgresql"):
        assert "NUL or lone surrogate removed" in partial.error_message
        assert detail[1][0].user.startswith("bonjour, ma commande")
    else:
        assert partial.error_message == "" and detail[1][0].user.startswith("bon\x00jour")


def test_an_8_kb_conversation_id_is_bounded_and_costs_nobody_else(db_url: str) -> None:
    """An id too long for any index (PostgreSQL's btree refuses 8 KB keys, a 'program limit' error): it is
    stored bounded (its start and a digest of the whole: the same id, the same key), the request beside it
    too; never a 503 for the group."""
    long_id = "web:" + "ab" * 4000
    doc = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [
        {**SPAN, "attributes": [{"key": "gen_ai.conversation.id", "value": {"stringValue": long_id}}]},
        {**SPAN, "traceId": "12" * 16, "spanId": "34" * 8,
         "attributes": [{"key": "gen_ai.conversation.id", "value": {"stringValue": "web:court"}}]},
    ]}]}]}  # fmt: skip
    with running(ReceiverSettings(db=db_url)) as url:
        sent = httpx.post(f"{url}/v1/traces", content=json.dumps(doc), headers=JS)
        again = httpx.post(f"{url}/v1/traces", content=json.dumps(doc), headers=JS)
    assert (sent.status_code, again.status_code) == (200, 200), sent.text
    ids = {c.conversation_id for c in Store.open(db_url).traces.list_conversations()}
    assert "web:court" in ids and len(ids) == 2
    bounded = next(i for i in ids if i != "web:court")
    assert bounded.startswith(long_id[:200]) and len(bounded) <= 256
