"""Ingest throughput into PostgreSQL, as a ratio to the physical limit there: raw `COPY`.

Side by side in one run, on the machine's PostgreSQL (127.0.0.1:5432, user postgres; skipped, saying so,
without it): filon's ingest path into a fresh database (normalise, group, flag, upsert spans, turns,
conversations, flags: what `filon serve`'s writer does for each group), and psycopg's `COPY … FROM STDIN`
of exactly the rows that ingest wrote (read back from its database) into another fresh database of the
same schema, in the same batches of 512 spans, one commit per batch. Beside it, `filon serve`'s default:
a deferred receiver's acknowledgement path (`tracing.settle.accept`: spans written, traces noted as
waiting) against `COPY` of exactly those rows. A warm-up ingest first (imports,
statement caches); then five rounds interleaved so the machine's noise hits both alike; the best of each,
and each round's own ratio with their median (`_spread.py`). Goal: at least 0.4.

The spans are the minimal agent-shaped traces of `_spans.py`, as `ingest_throughput.py` uses for SQLite.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # this tree's filon, not another checkout's

from _spans import traffic
from _spread import spread

from filon.miner.store import Store
from filon.tracing.ingest import Ingestor
from filon.tracing.records import batched
from filon.tracing.settle import accept

ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
TURNS = 3000
BATCH = 512
ROUNDS = 5
TABLES = ("conversations", "spans", "turns", "flags")  # in the order their keys need


def fresh_database() -> str:
    import psycopg

    name = f"filon_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def drop(name: str) -> None:
    import psycopg

    with psycopg.connect(ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def url(name: str) -> str:
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


def ingest_rate(records: list, name: str, defer: bool = False) -> float:  # type: ignore[type-arg]
    """Inline ingest, or with `defer` a deferred receiver's acknowledgement path (`tracing.settle`)."""
    store = Store.open(url(name))
    ingestor = Ingestor(store)
    start = time.perf_counter()
    for batch in batched(records, BATCH):
        accept(ingestor, batch) if defer else ingestor.ingest(batch)
    elapsed = time.perf_counter() - start
    store.close()
    return len(records) / elapsed


def copy_rate(source: str) -> float:
    """`COPY` of the rows ingest wrote into `source`, into a fresh database of the same schema."""
    import psycopg

    target = fresh_database()
    try:
        Store.open(url(target)).close()  # the same schema, made by the same migrations
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:5432/{source}") as src:
            columns = {
                t: [r[0] for r in src.execute(f"SELECT * FROM {t} LIMIT 0").description or []] for t in TABLES
            }
            rows = {t: src.execute(f"SELECT * FROM {t}").fetchall() for t in TABLES}
        spans = len(rows["spans"])
        batches = max(1, spans // BATCH)
        at = {t: columns[t].index("conversation_id") for t in TABLES if t != "conversations"}
        conversations = {row[columns["conversations"].index("id")]: row for row in rows["conversations"]}
        parts = []  # each batch's rows; a conversation goes with the first batch that needs it (its key)
        written: set[str] = set()
        for i in range(batches):
            part = {
                t: rows[t][i * len(rows[t]) // batches : (i + 1) * len(rows[t]) // batches] for t in TABLES
            }
            needed = {r[at[t]] for t in at for r in part[t]} | {
                r[columns["conversations"].index("id")] for r in part["conversations"]
            }
            part["conversations"] = [conversations[c] for c in sorted(needed - written)]
            written |= needed
            parts.append(part)
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:5432/{target}") as conn:
            start = time.perf_counter()
            for part in parts:
                with conn.cursor() as cur:
                    for table in TABLES:
                        if not part[table]:
                            continue
                        names = ", ".join(f'"{c}"' for c in columns[table])
                        with cur.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                            for row in part[table]:
                                copy.write_row(row)
                conn.commit()
            elapsed = time.perf_counter() - start
        return spans / elapsed
    finally:
        drop(target)


def copy_accepted_rate(source: str) -> float:
    """`COPY` of what the acknowledgement path wrote into `source` (the spans, the traces noted as
    waiting), in the same batches, into a fresh database of the same schema."""
    import psycopg

    tables = ("spans", "pending_traces")
    target = fresh_database()
    try:
        Store.open(url(target)).close()
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:5432/{source}") as src:
            rows = {t: src.execute(f"SELECT * FROM {t}").fetchall() for t in tables}
        batches = max(1, len(rows["spans"]) // BATCH)
        parts = [
            {t: rows[t][i * len(rows[t]) // batches : (i + 1) * len(rows[t]) // batches] for t in tables}
            for i in range(batches)
        ]
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:5432/{target}") as conn:
            start = time.perf_counter()
            for part in parts:
                with conn.cursor() as cur:
                    for table in tables:
                        with cur.copy(f"COPY {table} FROM STDIN") as copy:
                            for row in part[table]:
                                copy.write_row(row)
                conn.commit()
            elapsed = time.perf_counter() - start
        return len(rows["spans"]) / elapsed
    finally:
        drop(target)


def main() -> None:
    try:
        import psycopg

        psycopg.connect(ADMIN, connect_timeout=2).close()
    except Exception as exc:
        print(json.dumps({"skipped": f"PostgreSQL not reachable at 127.0.0.1:5432: {exc}"[:200]}))
        return
    records = traffic(TURNS)
    warm = fresh_database()
    try:
        ingest_rate(records, warm)
    finally:
        drop(warm)
    ingested, copied, accepted, copied_accepted = [], [], [], []
    for _ in range(ROUNDS):
        name, deferred = fresh_database(), fresh_database()
        try:
            ingested.append(ingest_rate(traffic(TURNS), name))
            copied.append(copy_rate(name))
            accepted.append(ingest_rate(traffic(TURNS), deferred, defer=True))
            copied_accepted.append(copy_accepted_rate(deferred))
        finally:
            drop(name)
            drop(deferred)
    best_ingest, best_copy = max(ingested), max(copied)
    print(
        json.dumps(
            {
                "spans": len(records),
                "batch_spans": BATCH,
                "ingest_spans_per_s": round(best_ingest),
                "raw_copy_spans_per_s": round(best_copy),
                "ratio_ingest_to_raw_copy": round(best_ingest / best_copy, 3),
                **spread("ratio_ingest_to_raw_copy", ingested, copied),
                # `filon serve`'s default: the acknowledgement path against COPY of what it wrote
                "ratio_accept_to_raw_copy": round(max(accepted) / max(copied_accepted), 3),
                **spread("ratio_accept_to_raw_copy", accepted, copied_accepted),
                "goal_ratio_at_least": 0.45,
            }
        )
    )


if __name__ == "__main__":
    main()
