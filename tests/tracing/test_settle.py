"""Flags off the acknowledgement path (`tracing.settle`): what a deferred receiver stores, once its worker
has read it, is what an inline ingest stores; a span arriving late, or while its trace is being read, is
read with it; a trace no reader can read does not stop the others; `db stats` shows what waits; and
`filon serve`'s default (deferred, in the helper process or a thread) leaves the store read and flagged
when it ends."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.rules.config import FlagConfig
from filon.miner.store import Store
from filon.tracing.files import read_otlp_file
from filon.tracing.ingest import Ingestor
from filon.tracing.receiver import ReceiverSettings
from filon.tracing.records import SpanRecord, batched
from filon.tracing.redact import Redactor
from filon.tracing.settle import Settler, accept, settle_all
from tests.corpus import tau
from tests.tracing.server import running

runner = CliRunner()
TABLES = {
    "conversations": "id, channel, turn_count, escalated, flag_kinds, priority, reason, signature, wrote",
    "turns": "trace_id, conversation_id, user_text, agent_text, tools, escalated",
    "spans": "trace_id, span_id, conversation_id, name, attributes",
    "flags": "conversation_id, trace_id, kind, severity, reason",
    "failure_groups": "signature, size, priority",
}


def tau_records(tasks: int) -> list[SpanRecord]:
    """Real conversations (tau-bench airline, GPT-4o through OpenInference), in an arrival order that
    mixes their traces, as several agents' exporters would."""
    records = [r for path in tau.payloads()[:tasks] for r in read_otlp_file(path)]
    random.Random(7).shuffle(records)
    return records


def tau_config(tmp_path: Path) -> FlagConfig:
    (tmp_path / "filon.toml").write_text(tau.FILON_TOML, encoding="utf-8")
    return FlagConfig.load(tmp_path)


def contents(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    with store.engine.connect() as conn:
        return {t: sorted(map(tuple, conn.execute(text(f"SELECT {c} FROM {t}")))) for t, c in TABLES.items()}


def waiting(store: Store) -> int:
    return store.stats().waiting


def test_deferred_reading_stores_what_inline_ingest_stores(tmp_path: Path) -> None:
    """Spans accepted in small batches, in a mixed order, then read by the worker in batches of its own,
    leave the store as one inline ingest of them all does."""
    config, records = tau_config(tmp_path), tau_records(3)
    inline = Store.open(f"sqlite:///{tmp_path / 'inline'}.db")
    Ingestor(inline, config, Redactor(b"k")).ingest(records)
    deferred = Store.open(f"sqlite:///{tmp_path / 'deferred'}.db")
    ingestor = Ingestor(deferred, config, Redactor(b"k"))
    for batch in batched(records, 97):
        accept(ingestor, batch)
    assert waiting(deferred) > 0 and deferred.stats().conversations == 0
    read = settle_all(ingestor, limit=40)
    assert waiting(deferred) == 0
    assert read.flagged == 12  # the twelve trials, each flagged ("write", "grounding"...)
    assert contents(inline) == contents(deferred)


def test_deferred_reading_samples_and_drops_what_is_not_a_conversation(tmp_path: Path) -> None:
    """At a sample rate under 1, a conversation the rate drops and no rule flags leaves no span behind;
    a trace of no GenAI convention (an HTTP health check) is not kept either."""
    store = Store.open(f"sqlite:///{tmp_path / 'f.db'}")
    records = tau_records(2)
    health = replace(records[0], trace_id="f" * 32, span_id="1" * 16, attributes={"http.route": "/health"})
    ingestor = Ingestor(store, tau_config(tmp_path), sample_rate=0.01)
    accept(ingestor, [*records, health])
    settle_all(ingestor)
    with store.engine.connect() as conn:
        unplaced = conn.execute(text("SELECT count(*) FROM spans WHERE conversation_id = ''")).scalar()
        placed = conn.execute(text("SELECT count(DISTINCT conversation_id) FROM spans")).scalar()
    stats = store.stats()
    assert unplaced == 0 and placed == stats.conversations == stats.flagged > 0


def test_a_late_span_is_read_with_its_trace(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'l.db'}")
    ingestor = Ingestor(store, tau_config(tmp_path))
    records = [r for r in read_otlp_file(tau.payloads()[0])]
    trace = records[-1].trace_id
    late = [r for r in records if r.trace_id == trace and r.parent_span_id]
    accept(ingestor, [r for r in records if r not in late])
    settle_all(ingestor)
    before = store.stats().spans
    accept(ingestor, late)
    assert waiting(store) == 1
    settle_all(ingestor)
    with store.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT DISTINCT conversation_id FROM spans WHERE trace_id = :t"), {"t": trace}
        )
        homes = [cid for (cid,) in rows]
    assert store.stats().spans == before + len(late) and len(homes) == 1 and homes[0]


def test_a_span_arriving_while_its_trace_is_read_keeps_it_waiting(tmp_path: Path) -> None:
    """The worker clears only what it read: a span noted after it took the trace leaves it waiting."""
    store = Store.open(f"sqlite:///{tmp_path / 'r.db'}")
    with store.trace_batch() as batch:
        batch.note_pending(["a" * 32, "b" * 32], 1_000)
        taken = batch.take_pending(10)
    with store.trace_batch() as batch:
        batch.note_pending(["a" * 32], 2_000)  # a late span of trace a, meanwhile
    with store.trace_batch() as batch:
        batch.done_pending(taken)
        assert batch.take_pending(10) == [("a" * 32, 2_000)]


def test_a_trace_no_reader_can_read_does_not_stop_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'p.db'}")
    ingestor = Ingestor(store, tau_config(tmp_path))
    records = tau_records(1)
    poison = records[0].trace_id
    accept(ingestor, records)
    real_write = Ingestor.write

    def write(self: Ingestor, batch: Any, recs: list[SpanRecord], *args: Any, **kw: Any) -> None:
        if any(r.trace_id == poison for r in recs):
            raise ValueError("a reader choked")
        real_write(self, batch, recs, *args, **kw)

    monkeypatch.setattr(Ingestor, "write", write)
    settle_all(ingestor)
    stats = store.stats()
    assert stats.waiting == 0 and stats.turns == len({r.trace_id for r in records}) - 1
    assert stats.unread == sum(r.trace_id == poison for r in records) > 0  # kept, and counted
    assert "could not be read as a turn" in caplog.text
    # retention deletes them once old, as it does an old unflagged conversation (these are of 2024)
    monkeypatch.setenv("FILON_DB", f"sqlite:///{tmp_path / 'p.db'}")
    assert runner.invoke(app, ["db", "prune", "--older-than", "1000d"]).exit_code == 0
    assert store.stats().unread == stats.unread  # not that old yet
    pruned = runner.invoke(app, ["db", "prune", "--older-than", "1d"])
    assert pruned.exit_code == 0, pruned.output
    assert store.stats().unread == 0


def test_the_worker_reads_after_each_wake_and_drains_on_close(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'w.db'}")
    ingestor = Ingestor(store, tau_config(tmp_path))
    settler = Settler(ingestor, idle_s=60)  # only a wake makes it read
    try:
        accept(ingestor, tau_records(1))
        settler.wake()
        assert settler.drained(30)
        assert waiting(store) == 0 and store.stats().conversations == 4
        accept(ingestor, tau_records(2)[:50])
    finally:
        settler.close()
    assert waiting(store) == 0 and settler.failures == 0


def test_db_stats_shows_what_waits(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    records = tau_records(1)
    accept(Ingestor(Store.open(db)), records)
    result = runner.invoke(app, ["db", "stats"], env={"FILON_DB": db, "FILON_LANG": "en"})
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if "waiting to be read" in x)
    assert "(the oldest received" in line
    assert line.split()[5:7] == [str(len({r.trace_id for r in records})), "(the"]


@pytest.mark.parametrize("offload", [True, False], ids=["writer process", "writer thread"])
def test_serve_deferred_answers_then_reads_everything(db_url: str, offload: bool) -> None:
    """Over a real socket: the 200 comes once spans are stored; when the receiver ends, every trace has
    been read and flagged, as inline reading would have left it."""
    import httpx

    path = tau.payloads()[0]  # one request as the stack exported it, gzipped protobuf
    records = read_otlp_file(path)
    headers = {"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"}
    with running(ReceiverSettings(db=db_url, offload=offload, defer=True)) as url:
        answer = httpx.post(f"{url}/v1/traces", content=path.read_bytes(), headers=headers, timeout=60)
        assert answer.status_code == 200
        assert Store.open(db_url).stats().spans == len(records)  # stored before the answer
        health = httpx.get(f"{url}/health", timeout=30).json()["waiting"]
        assert set(health) == {"traces", "oldest_s"} and 0 <= health["traces"] <= 27
    store = Store.open(db_url)
    stats = store.stats()
    assert stats.waiting == 0 and stats.conversations == 4 and stats.spans == len(records)
    assert stats.flagged > 0
