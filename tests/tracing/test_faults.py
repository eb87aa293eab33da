"""Faults with a PostgreSQL server of the test's own (initdb/pg_ctl in a temporary folder), stopped in the
middle: the receiver answers 503 and recovers; the in-process exporter never blocks or raises into the
agent, counts what it drops, and resumes."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider

from filon.miner.store import Store
from filon.tracing.exporter import StoreExporter
from filon.tracing.ingest import Ingestor
from filon.tracing.receiver import ReceiverSettings
from filon.tracing.sampling.decider import Decider
from filon.tracing.sampling.sampler import TailSampler
from tests.tracing.server import free_port, running


def _server_binaries() -> list[str]:
    """Where initdb and pg_ctl are: on the PATH, else Debian's versioned folder."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return [str(Path(on_path).parent)]
    return sorted(glob.glob("/usr/lib/postgresql/*/bin"))


BIN = _server_binaries()


def _as_postgres(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


class OwnPostgres:
    def __init__(self) -> None:
        self.bin = Path(BIN[-1])
        self.dir = Path(tempfile.mkdtemp(prefix="filon-pg-"))
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        self.data = self.dir / "data"
        subprocess.run(
            _as_postgres([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust"]),
            check=True,
            capture_output=True,
        )
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        subprocess.run(
            _as_postgres(
                [
                    str(self.bin / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-o",
                    opts,
                    "-l",
                    str(self.dir / "log"),
                    "-w",
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
        )

    def stop(self) -> None:
        subprocess.run(
            _as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"]),
            capture_output=True,
        )


@pytest.fixture
def own_postgres() -> Iterator[OwnPostgres]:
    if not BIN or (shutil.which("runuser") is None and os.geteuid() == 0):
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed: fault tests skipped")
    server = OwnPostgres()
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.dir, ignore_errors=True)


def _body(conversation: str, n: int) -> bytes:
    import json

    spans = [
        {
            "traceId": f"{n:032x}",
            "spanId": f"{n:016x}",
            "name": "invoke_agent a",
            "startTimeUnixNano": "1",
            "endTimeUnixNano": "2",
            "attributes": [{"key": "gen_ai.conversation.id", "value": {"stringValue": conversation}}],
        }
    ]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


def test_receiver_answers_503_while_postgres_is_down_and_recovers(own_postgres: OwnPostgres) -> None:
    def post(url, n):
        return httpx.post(
            f"{url}/v1/traces",
            content=_body(f"c{n}", n),
            headers={"Content-Type": "application/json"},
            timeout=30,
        )

    with running(ReceiverSettings(db=own_postgres.url)) as url:
        assert post(url, 1).status_code == 200
        own_postgres.stop()
        down = post(url, 2)
        assert down.status_code == 503 and down.headers["Retry-After"]
        assert httpx.get(f"{url}/health").status_code == 503
        own_postgres.start()
        assert post(url, 2).status_code == 200  # the Collector's retry
        assert post(url, 3).status_code == 200
    assert Store.open(own_postgres.url).stats().counts()["spans"] == 3


def test_exporter_never_blocks_counts_drops_and_resumes(own_postgres: OwnPostgres) -> None:
    store = Store.open(own_postgres.url)
    exporter = StoreExporter(lambda: Ingestor(Store.open(own_postgres.url)), Decider(1.0))
    provider = TracerProvider()
    provider.add_span_processor(TailSampler(exporter))
    tracer = provider.get_tracer("agent")

    def turn(i: int) -> None:
        tracer.start_span(f"invoke_agent {i}", attributes={"gen_ai.conversation.id": f"conv-{i}"}).end()

    turn(1)
    assert exporter.flush(20)
    own_postgres.stop()
    for i in range(2, 5):
        turn(i)  # the agent goes on: no exception, no wait
    assert exporter.flush(30)
    assert exporter.counters.spans_dropped == 3 and exporter.counters.ingest_failures >= 1
    own_postgres.start()
    turn(5)
    assert exporter.flush(30)
    ids = {r.conversation_id for r in store.traces.list_conversations(limit=10)}
    assert ids == {"conv-1", "conv-5"}
    exporter.shutdown()
