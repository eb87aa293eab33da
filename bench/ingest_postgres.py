"""Ingest throughput into PostgreSQL, as a ratio to the physical limit there: raw `COPY`.

Side by side in one run, on the machine's PostgreSQL (127.0.0.1:5432, user postgres; skipped, saying so,
without it): filon's ingest path into a fresh database (normalise, group, flag, upsert spans, turns,
conversations, flags: what `filon serve`'s writer does for each group), and psycopg's `COPY … FROM STDIN`
of exactly the rows that ingest wrote (read back from its database) into another fresh database of the
same schema, in the same batches of 512 spans, one commit per batch. A warm-up ingest first (imports,
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


def ingest_rate(records: list, name: str) -> float:  # type: ignore[type-arg]
    store = Store.open(url(name))
    ingestor = Ingestor(store)
    start = time.perf_counter()
    for batch in batched(records, BATCH):
        ingestor.ingest(batch)
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
    ingested, copied = [], []
    for _ in range(ROUNDS):
        name = fresh_database()
        try:
            ingested.append(ingest_rate(traffic(TURNS), name))
            copied.append(copy_rate(name))
        finally:
            drop(name)
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
                "goal_ratio_at_least": 0.45,
            }
        )
    )


if __name__ == "__main__":
    main()
