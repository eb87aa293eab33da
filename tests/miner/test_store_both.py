"""The store on a real SQLite file and a real PostgreSQL database: claims, the queue, retention, indexes."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import text

from miner.store import Store
from tests.tui.data import NOW, fill


def test_claims_are_compare_and_set_and_expire(db_url: str) -> None:
    store = Store.open(db_url)
    fill(store)
    now = datetime.now(UTC)
    assert store.claim("web:leak", "alice", now).ok
    assert store.claim("web:leak", "alice", now).ok  # renewing one's own claim
    bob = store.claim("web:leak", "bob", now + timedelta(minutes=10))
    assert (bob.ok, bob.holder) == (False, "alice")
    assert not store.dismiss("web:leak", "bob", "not mine")
    assert store.claim("web:leak", "bob", now + timedelta(minutes=31)).ok  # alice's claim expired
    assert store.claim("nope", "bob").status == "missing"


def test_claim_next_hands_out_distinct_conversations_at_once(db_url: str) -> None:
    store = Store.open(db_url)
    fill(store)  # three flagged conversations
    got: list[str | None] = []
    barrier = threading.Barrier(4)

    def reviewer(name: str) -> None:
        barrier.wait()
        got.append(store.claim_next(name))

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
    first = store.review_queue(limit=2, now=NOW)
    second = store.review_queue(after=first[-1].cursor, limit=2, now=NOW)
    assert [r.conversation_id for r in first] == ["web:leak", "web:promesse"]
    assert [r.conversation_id for r in second] == ["web:geste"]


def test_prune_keeps_flagged_and_case_linked_conversations(db_url: str) -> None:
    store = Store.open(db_url)
    fill(store)
    store.complete(
        "web:faq", "alice", "faq-09", {"file": "faq-09.json"}
    )  # a case was made from an unflagged one
    later = datetime(2027, 1, 1, tzinfo=UTC)
    dry = store.prune(timedelta(days=30), dry_run=True, now=later)
    assert store.counts()["conversations"] == 6 and dry["conversations"] == 2  # web:markup and whatsapp
    done = store.prune(timedelta(days=30), now=later)
    assert done == dry
    left = {r.conversation_id for r in store.list_conversations(limit=100)}
    assert left == {"web:leak", "web:geste", "web:promesse", "web:faq"}
    assert store.conversation_detail("web:faq") is not None  # provenance survives retention
    with store.engine.connect() as conn:
        assert (
            conn.execute(text("SELECT count(*) FROM spans WHERE conversation_id = 'web:faq'")).scalar() == 2
        )
        assert (
            conn.execute(text("SELECT count(*) FROM spans WHERE conversation_id = 'web:markup'")).scalar()
            == 0
        )
    assert store.stats()["cases made"] == 1


def test_queue_and_span_lookups_use_indexes(db_url: str) -> None:
    store = Store.open(db_url)
    fill(store)
    queue = "SELECT id FROM conversations WHERE priority < 9 ORDER BY priority, last_at DESC, id LIMIT 50"
    spans = "SELECT * FROM spans WHERE trace_id = 'x'"
    turns = "SELECT * FROM turns WHERE conversation_id = 'x'"
    with store.engine.connect() as conn:
        if store.engine.dialect.name == "postgresql":
            conn.execute(text("SET enable_seqscan = off"))  # tiny tables: ask whether an index *can* serve
            plans = [
                " ".join(r[0] for r in conn.execute(text(f"EXPLAIN {q}"))) for q in (queue, spans, turns)
            ]
        else:
            plans = [
                " ".join(str(r[-1]) for r in conn.execute(text(f"EXPLAIN QUERY PLAN {q}")))
                for q in (queue, spans, turns)
            ]
    assert "ix_conversations_queue" in plans[0], plans[0]
    assert "spans" in plans[1] and ("pkey" in plans[1] or "INDEX" in plans[1].upper()), plans[1]
    assert "ix_turns_conversation_id" in plans[2], plans[2]
