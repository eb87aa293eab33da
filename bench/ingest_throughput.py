"""Ingest throughput into SQLite, as a ratio to the physical limit.

Side by side in one run, on the same machine and disk: filon's ingest path (normalise, group, flag,
upsert spans/turns/conversations/flags) and raw `sqlite3.executemany` of exactly the rows that ingest
wrote, into the same schema, in the same batches, one commit per batch. Goal: ratio at least 0.5.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _spans import traffic

from miner.store import Store
from tracing.ingest import Ingestor
from tracing.records import batched
from tracing.redact import Redactor

TURNS = 3000
BATCH = 512
TABLES = ("spans", "turns", "conversations", "flags")


def ingest_rate(folder: Path, name: str, redact: bool) -> tuple[float, Path]:
    db = folder / f"{name}.db"
    records = traffic(TURNS)
    store = Store.open(f"sqlite:///{db}")
    ingestor = Ingestor(store, redactor=Redactor(b"bench") if redact else None)
    start = time.perf_counter()
    for batch in batched(records, BATCH):
        ingestor.ingest(batch)
    elapsed = time.perf_counter() - start
    store.close()
    return len(records) / elapsed, db


def raw_rate(folder: Path, source: Path) -> float:
    target = folder / "raw.db"
    Store.open(f"sqlite:///{target}").close()  # the same schema, made by the same migrations
    src = sqlite3.connect(source)
    rows = {t: src.execute(f"SELECT * FROM {t}").fetchall() for t in TABLES}
    src.close()
    conn = sqlite3.connect(target)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    spans = len(rows["spans"])
    batches = max(1, spans // BATCH)
    start = time.perf_counter()
    for i in range(batches):
        for table in TABLES:
            chunk = rows[table][i * len(rows[table]) // batches : (i + 1) * len(rows[table]) // batches]
            if chunk:
                marks = ",".join("?" * len(chunk[0]))
                conn.executemany(f"INSERT INTO {table} VALUES ({marks})", chunk)
        conn.commit()
    elapsed = time.perf_counter() - start
    conn.close()
    return spans / elapsed


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        plain, db = ingest_rate(folder, "ingest", redact=False)
        redacted, _ = ingest_rate(folder, "ingest-redacted", redact=True)
        raw = raw_rate(folder, db)
    print(
        json.dumps(
            {
                "spans": TURNS * 4,
                "ingest_spans_per_s": round(plain),
                "ingest_redacted_spans_per_s": round(redacted),
                "raw_executemany_spans_per_s": round(raw),
                "ratio_ingest_to_raw": round(plain / raw, 3),
                "ratio_ingest_redacted_to_raw": round(redacted / raw, 3),
                "goal_ratio_at_least": 0.5,
            }
        )
    )


if __name__ == "__main__":
    main()
