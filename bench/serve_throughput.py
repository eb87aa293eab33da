"""Spans persisted per second through `filon serve`, as a ratio to the in-process ingest of the same spans.

Side by side in one run, for SQLite and for PostgreSQL (when reachable): 4 concurrent clients post
512-span OTLP protobuf batches to `filon serve` running in its own process on loopback; the figure counts spans found in
the store afterwards, not 200s. The baseline ingests the same batches in-process with the same
`Ingestor`. The ratio is the receiver's own cost (HTTP, decoding, group commit; the store is written
by its helper process while it decodes the next requests). Best of three interleaved rounds each, and
each round's own ratio beside (`*_rounds`, `*_median`).
Goal: at least 0.7. These receivers read and flag before answering (`--no-defer`); `sqlite_deferred`
is `filon serve`'s default (answering once stored and redacted, its worker reading after) against the
same acknowledgement path in-process (`tracing.settle.accept`), on four times the spans, with the traces
its worker (a niced process of its own) had still to read when the last client had its answer
(`sqlite_deferred_traces_waiting_at_end`: the queue's lag, each round). Then two receivers on one PostgreSQL against one (`two_receivers`). The clients are `http.client`, the lightest in the standard library, and their CPU
seconds are printed beside (`*_clients_cpu_s`): on two cores the measuring side competes with what it
measures.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
from opentelemetry.exporter.otlp.proto.common._internal import (  # the exporter's own, as the SDK sends
    _encode_attributes,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _spans import traffic
from _spread import spread

from filon.miner.rules.config import FlagConfig
from filon.miner.store import Store
from filon.tracing.ingest import Ingestor
from filon.tracing.records import KIND, STATUS, SpanRecord, batched
from filon.tracing.settle import accept
from tests.tracing.server import free_port

TURNS = 3072  # 12,288 spans: 24 batches of 512
# a deferred receiver answers six times faster: four times the spans, so that its run lasts about a
# second, not a fifth of one (its worker's start and the first commits were most of it)
DEFERRED_TURNS = 4 * TURNS
CLIENTS = 4
ROUNDS = 3  # the best of each, the two interleaved
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"


_KIND_CODES = {name: code for code, name in KIND.items()}
_STATUS_CODES = {name: code for code, name in STATUS.items()}


def to_request(records: list[SpanRecord]) -> bytes:
    """The records as one OTLP protobuf request, as an exporter sends them: the attributes by the OTLP
    exporter's own encoder (each value in the field of its kind, a list or a mapping as an array or a
    key-value list), the span's kind and status, the first record's resource."""
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add()
    if records and records[0].resource:
        spans.resource.attributes.extend(_encode_attributes(records[0].resource))
    scope = spans.scope_spans.add()
    for r in records:
        span = scope.spans.add()
        span.trace_id, span.span_id = bytes.fromhex(r.trace_id), bytes.fromhex(r.span_id)
        if r.parent_span_id:
            span.parent_span_id = bytes.fromhex(r.parent_span_id)
        span.name, span.start_time_unix_nano, span.end_time_unix_nano = r.name, r.start_ns, r.end_ns
        span.kind = _KIND_CODES.get(r.kind, 0)
        span.status.code = _STATUS_CODES.get(r.status, 0)
        span.status.message = r.status_message
        span.attributes.extend(_encode_attributes(r.attributes))
    return bytes(request.SerializeToString())


def fresh_db(kind: str, folder: Path) -> str | None:
    if kind.startswith("sqlite"):
        return f"sqlite:///{folder / f'{uuid.uuid4().hex}.db'}"
    try:
        import psycopg

        name = f"filon_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=2) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    except Exception:
        return None


def in_process(db: str, batches: list[list[SpanRecord]], defer: bool = False) -> float:
    """The baseline: the same batches stored in-process, inline (read and flagged), or with `defer` by
    the acknowledgement path alone (`tracing.settle.accept`), as a deferred receiver stores them."""
    ingestor = Ingestor(Store.open(db), config=FlagConfig.load())  # the settings `filon serve` reads here
    start = time.perf_counter()
    for batch in batches:
        accept(ingestor, batch) if defer else ingestor.ingest(batch)
    return sum(len(b) for b in batches) / (time.perf_counter() - start)


@contextmanager
def serve_process(db: str, defer: bool = False) -> Iterator[str]:
    """`filon serve` in a process of its own, as in production: the clients do not share its GIL."""
    port = free_port()
    env = {**os.environ, "FILON_DB": db, "FILON_REDACT": "false"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "filon.cli",
            "serve",
            "--port",
            str(port),
            "--defer" if defer else "--no-defer",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(1200):
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break  # the receiver and its writer process are up
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(20)


def through_serve(
    db: str, bodies: list[bytes], receivers: int = 1, defer: bool = False
) -> tuple[float, float, int]:
    """Spans stored per second through `filon serve` (`receivers` of them on one store, the clients
    shared out between them), the CPU seconds its clients took, and the traces still waiting to be read
    when the last client had its answer (a deferred receiver's lag). The clients are the standard
    library's `http.client`, one kept-alive connection each: on two cores, every CPU second the measuring
    side spends is taken from the receiver it measures (httpx's pure-Python HTTP took as much CPU as the
    receiver itself)."""
    Store.open(db).close()
    with ExitStack() as stack:
        urls = [stack.enter_context(serve_process(db, defer)) for _ in range(receivers)]
        share = [bodies[i::CLIENTS] for i in range(CLIENTS)]
        spent: list[float] = []

        def client(mine: list[bytes], url: str) -> None:
            host, port = url.removeprefix("http://").split(":")
            start = time.thread_time()
            conn = http.client.HTTPConnection(host, int(port), timeout=60)
            try:
                for body in mine:
                    conn.request("POST", "/v1/traces", body, {"Content-Type": "application/x-protobuf"})
                    answer = conn.getresponse()
                    answer.read()
                    if answer.status != 200:
                        raise RuntimeError(f"filon serve answered {answer.status}")
            finally:
                conn.close()
                spent.append(time.thread_time() - start)

        threads = [
            threading.Thread(target=client, args=(s, urls[i % receivers])) for i, s in enumerate(share)
        ]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
        waiting = Store.open(db).stats().waiting  # what a deferred receiver's worker had still to read
    stored = Store.open(db).stats().counts()["spans"]
    return stored / elapsed, sum(spent), waiting


def drop_db(url: str) -> None:
    if url.startswith("postgresql"):
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=2) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


def main() -> None:
    records = traffic(TURNS)
    batches = list(batched(records, 512))
    bodies = [to_request(b) for b in batches]
    longer = list(batched(traffic(DEFERRED_TURNS), 512))
    work = {False: (batches, bodies), True: (longer, [to_request(b) for b in longer])}
    out: dict[str, object] = {
        "spans": len(records),
        "clients": CLIENTS,
        "batch_spans": 512,
        "rounds": ROUNDS,
        "goal_ratio_at_least": 0.7,
    }
    with tempfile.TemporaryDirectory() as tmp:
        for kind, defer in (("sqlite", False), ("postgres", False), ("sqlite_deferred", True)):
            base, served, clients_cpu, lag = [], [], [], []
            for _ in range(ROUNDS):  # interleaved, so the machine's drift hits both alike
                a, b = fresh_db(kind, Path(tmp)), fresh_db(kind, Path(tmp))
                if a is None or b is None:
                    break
                try:
                    base.append(in_process(a, work[defer][0], defer))
                    rate, cpu, waiting = through_serve(b, work[defer][1], defer=defer)
                    served.append(rate)
                    clients_cpu.append(cpu)
                    lag.append(waiting)
                finally:
                    drop_db(a)
                    drop_db(b)
            if not served:
                out[f"{kind}_skipped"] = "PostgreSQL not reachable at 127.0.0.1:5432"
                continue
            out[f"{kind}_in_process_spans_per_s"] = round(max(base))
            out[f"{kind}_serve_spans_per_s"] = round(max(served))
            out[f"{kind}_ratio_serve_to_in_process"] = round(max(served) / max(base), 3)
            out.update(spread(f"{kind}_ratio_serve_to_in_process", served, base))
            out[f"{kind}_clients_cpu_s"] = round(min(clients_cpu), 3)
            if defer:
                out[f"{kind}_spans"] = sum(len(b) for b in longer)
                out[f"{kind}_traces_waiting_at_end"] = lag
        out.update(two_receivers(bodies, Path(tmp)))
    print(json.dumps(out))


def two_receivers(bodies: list[bytes], folder: Path) -> dict[str, object]:
    """Two `filon serve` on one PostgreSQL against one, interleaved rounds: what a second replica adds.
    On this two-core machine the two replicas and their writer processes share the cores the one had:
    the ratio shows the receivers do not get in each other's way (locks, conflicts, deadlocks), not the
    scaling a replica on its own cores would give."""
    one, two = [], []
    for _ in range(ROUNDS):
        a, b = fresh_db("postgres", folder), fresh_db("postgres", folder)
        if a is None or b is None:
            return {"postgres_two_receivers_skipped": "PostgreSQL not reachable at 127.0.0.1:5432"}
        try:
            one.append(through_serve(a, bodies, 1)[0])
            two.append(through_serve(b, bodies, 2)[0])
        finally:
            drop_db(a)
            drop_db(b)
    return {
        "postgres_one_receiver_spans_per_s": round(max(one)),
        "postgres_two_receivers_spans_per_s": round(max(two)),
        "postgres_ratio_two_receivers_to_one": round(max(two) / max(one), 3),
        **spread("postgres_ratio_two_receivers_to_one", two, one),
    }


if __name__ == "__main__":
    main()
