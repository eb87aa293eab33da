"""The store on a real SQLite file and a real PostgreSQL database: claims, the queue, retention, indexes."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from filon.miner.store import Store
from tests.tui.data import NOW, fill


def test_claims_are_compare_and_set_and_expire(db_url: str) -> None:
    store = Store.open(db_url)
    fill(store)
    now = datetime.now(UTC)
    assert store.reviews.claim("web:leak", "alice", now).ok
    assert store.reviews.claim("web:leak", "alice", now).ok  # renewing one's own claim
    bob = store.reviews.claim("web:leak", "bob", now + timedelta(minutes=4))
    assert (bob.ok, bob.holder) == (False, "alice")
    assert not store.reviews.dismiss("web:leak", "bob", "not mine")
    assert store.reviews.claim("web:leak", "bob", now + timedelta(minutes=6)).ok  # alice's claim expired
    assert store.reviews.claim("nope", "bob").status == "missing"


def test_every_open_filter_counts_an_expired_claim_as_open(db_url: str) -> None:
    store = Store.open(db_url)
    fill(store)
    long_ago = datetime.now(UTC) - timedelta(hours=2)
    assert store.reviews.claim("web:leak", "alice", long_ago).ok  # expired an hour and a half ago
    listed = {r.conversation_id: r.status for r in store.traces.list_conversations(status="open")}
    queued = {r.conversation_id for r in store.reviews.review_queue(status="open")}
    assert "web:leak" in listed and "web:leak" in queued
    assert store.reviews.claim_next("bob") is not None and store.reviews.claim("web:leak", "bob").ok


def test_claim_next_hands_out_distinct_conversations_at_once(db_url: str) -> None:
    store = Store.open(db_url)
    fill(store)  # three flagged conversations
    got: list[str | None] = []
    barrier = threading.Barrier(4)

    def reviewer(name: str) -> None:
        barrier.wait()
        got.append(store.reviews.claim_next(name))

    threads = [threading.Thread(target=reviewer, args=(f"r{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    claimed = [g for g in got if g]
    assert len(claimed) == len(set(claimed)) == 3 and got.count(None) == 1


def test_queue_pages_by_keyset(db_url: str) -> None:
    store = Store.open(db_url)
    fill(store)
    first = store.reviews.review_queue(limit=2, now=NOW)
    second = store.reviews.review_queue(after=first[-1].cursor, limit=2, now=NOW)
    assert [r.conversation_id for r in first] == ["web:leak", "web:promesse"]
    assert [r.conversation_id for r in second] == ["web:geste"]


def test_prune_keeps_flagged_and_case_linked_conversations(db_url: str) -> None:
    store = Store.open(db_url)
    fill(store)
    store.reviews.complete(
        "web:faq", "alice", "faq-09", {"file": "faq-09.json"}
    )  # a case was made from an unflagged one
    later = datetime(2027, 1, 1, tzinfo=UTC)
    dry = store.prune(timedelta(days=30), dry_run=True, now=later)
    assert (
        store.stats().counts()["conversations"] == 6 and dry["conversations"] == 2
    )  # web:markup and whatsapp
    done = store.prune(timedelta(days=30), now=later)
    assert done == dry
    left = {r.conversation_id for r in store.traces.list_conversations(limit=100)}
    assert left == {"web:leak", "web:geste", "web:promesse", "web:faq"}
    assert store.traces.conversation_detail("web:faq") is not None  # provenance survives retention
    with store.engine.connect() as conn:
        assert (
            conn.execute(text("SELECT count(*) FROM spans WHERE conversation_id = 'web:faq'")).scalar() == 2
        )
        assert (
            conn.execute(text("SELECT count(*) FROM spans WHERE conversation_id = 'web:markup'")).scalar()
            == 0
        )
    assert store.stats().cases_made == 1


def test_queue_and_span_lookups_use_indexes(db_url: str) -> None:
    store = Store.open(db_url)
    fill(store)
    queue = "SELECT id FROM conversations WHERE priority < 9 ORDER BY priority, wrote DESC, last_at DESC, id LIMIT 50"
    spans = "SELECT * FROM spans WHERE trace_id = 'x'"
    turns = "SELECT * FROM turns WHERE conversation_id = 'x'"
    # a page after a cursor: the rest of its priority, one index range (not an OR the planner scans)
    keyset = (
        "SELECT id FROM conversations WHERE priority = 2 AND wrote = FALSE AND last_at <= '2026-11-01 10:00:00'"
        " AND (last_at < '2026-11-01 10:00:00' OR id > 'web:x') ORDER BY priority, wrote DESC, last_at DESC, id LIMIT 50"
    )
    with store.engine.connect() as conn:
        if store.engine.dialect.name == "postgresql":
            conn.execute(text("SET enable_seqscan = off"))  # tiny tables: ask whether an index *can* serve
            plans = [
                " ".join(r[0] for r in conn.execute(text(f"EXPLAIN {q}")))
                for q in (queue, spans, turns, keyset)
            ]
        else:
            plans = [
                " ".join(str(r[-1]) for r in conn.execute(text(f"EXPLAIN QUERY PLAN {q}")))
                for q in (queue, spans, turns, keyset)
            ]
    assert "ix_conversations_queue" in plans[0], plans[0]
    assert "spans" in plans[1] and ("pkey" in plans[1] or "INDEX" in plans[1].upper()), plans[1]
    assert "ix_turns_conversation_id" in plans[2], plans[2]
    assert "ix_conversations_queue" in plans[3] and "SCAN" not in plans[3].replace("INDEX", ""), plans[3]


def test_a_batch_larger_than_one_statement_is_stored_whole_and_read_back_alike(db_url: str) -> None:
    """Ingest writes rows in multi-row statements of at most ROWS_PER_STATEMENT rows, through the driver;
    what it wrote reads back through the ORM exactly as written."""
    import json

    from filon.miner.store.sql import ROWS_PER_STATEMENT
    from filon.tracing.ingest import Ingestor
    from filon.tracing.records import SpanRecord

    start = datetime(2026, 11, 30, 9, 15, 2, 123456, tzinfo=UTC)
    t0 = int(start.timestamp() * 1e9)
    records = []
    for n in range(ROWS_PER_STATEMENT + 45):  # one root span per trace: more rows than one statement takes
        message = json.dumps([{"role": "user", "parts": [{"type": "text", "content": f"question {n}"}]}])
        records.append(
            SpanRecord(
                f"{n + 1:032x}",
                f"{n + 1:016x}",
                None,
                "invoke_agent support",
                t0 + n * 1000,
                t0 + n * 1000 + 500,
                attributes={"gen_ai.conversation.id": f"web:big-{n // 3}", "gen_ai.input.messages": message},
            )
        )
    store = Store.open(db_url)
    stats = Ingestor(store).ingest(records)
    assert (stats.new_spans, stats.turns, stats.conversations) == (
        len(records),
        len(records),
        (len(records) + 2) // 3,
    )
    assert Ingestor(store).ingest(records).new_spans == 0  # the same spans again: stored once
    counts = store.stats().counts()
    assert (counts["spans"], counts["turns"]) == (len(records), len(records))
    detail = store.traces.conversation_detail("web:big-0")
    assert detail is not None
    conv, turns, _ = detail
    assert [t.user for t in turns] == ["question 0", "question 1", "question 2"]
    assert turns[0].started_at == start and conv.turn_count == 3


def test_finishing_a_conversation_the_store_does_not_hold_is_false_not_a_broken_key(db_url: str) -> None:
    """The gate dismisses its replays as it stores them; one whose spans were not all stored (its root
    came late) has no conversation row: dismissing it says no, and leaves no review row behind."""
    store = Store.open(db_url)
    fill(store)
    assert store.reviews.dismiss("web:eval-absent-1", "filon eval", "replay") is False
    assert store.reviews.dismiss("web:leak", "alice", "test") is True
    with store.engine.connect() as conn:
        assert (
            conn.execute(
                text("SELECT count(*) FROM reviews WHERE conversation_id = 'web:eval-absent-1'")
            ).scalar()
            == 0
        )
