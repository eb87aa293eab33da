"""Ingest throughput into SQLite, as a ratio to the physical limit.

Side by side in one run, on the same machine and disk: filon's ingest path (normalise, group, flag,
upsert spans/turns/conversations/flags) and raw `sqlite3.executemany` of exactly the rows that ingest
wrote, into the same schema with the store's WAL and synchronous=NORMAL (and without the foreign-key
checks the store makes: the baseline is the cheaper one), in the same batches, one commit per batch. A warm-up ingest first (imports, statement caches);
then rounds interleaved so that the machine's noise hits all three alike, the best of each reported.
Goal: ratio at least 0.5.
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
ROUNDS = 3
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


def raw_rate(folder: Path, source: Path, name: str = "raw") -> float:
    target = folder / f"{name}.db"
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


def python_us_per_turn() -> tuple[float, float]:
    """The per-turn Python work that raw `executemany` does not do, alone: reading a trace's GenAI JSON
    into a turn, and the flag rules (per turn of the same two-turn conversations)."""
    from miner.config import FlagConfig
    from miner.flags import flag_conversation
    from miner.model import Conversation
    from tracing.grouping import by_trace, turn_of

    traces = list(by_trace(traffic(TURNS)).values())
    config = FlagConfig()
    start = time.perf_counter()
    seen = [turn_of(spans, config.escalation_tools) for spans in traces]
    reading = (time.perf_counter() - start) / len(traces)
    conversations: dict[str, Conversation] = {}
    for s in seen:
        conversations.setdefault(s.conversation_id, Conversation(s.conversation_id, s.channel)).turns.append(
            s.turn
        )
    start = time.perf_counter()
    for conversation in conversations.values():
        flag_conversation(conversation, config)
    flags = (time.perf_counter() - start) / len(traces)
    return reading * 1e6, flags * 1e6


def main() -> None:
    plain, redacted, raw = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ingest_rate(folder, "warm-up", redact=True)
        for r in range(ROUNDS):
            rate, db = ingest_rate(folder, f"ingest-{r}", redact=False)
            plain.append(rate)
            redacted.append(ingest_rate(folder, f"ingest-redacted-{r}", redact=True)[0])
            raw.append(raw_rate(folder, db, f"raw-{r}"))
    best_plain, best_redacted, best_raw = max(plain), max(redacted), max(raw)
    reading_us, flags_us = python_us_per_turn()
    print(
        json.dumps(
            {
                "spans": TURNS * 4,
                "ingest_spans_per_s": round(best_plain),
                "ingest_redacted_spans_per_s": round(best_redacted),
                "raw_executemany_spans_per_s": round(best_raw),
                "ratio_ingest_to_raw": round(best_plain / best_raw, 3),
                "ratio_ingest_redacted_to_raw": round(best_redacted / best_raw, 3),
                "turn_reading_us_per_turn": round(reading_us, 1),
                "flag_rules_us_per_turn": round(flags_us, 1),
                "goal_ratio_at_least": 0.5,
            }
        )
    )


if __name__ == "__main__":
    main()
