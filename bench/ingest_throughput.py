"""Ingest throughput into SQLite, as a ratio to the physical limit.

Side by side in one run, on the same machine and disk: filon's ingest path (normalise, group, flag,
upsert spans/turns/conversations/flags) and raw `sqlite3.executemany` of exactly the rows that ingest
wrote, into the same schema with the store's WAL and synchronous=NORMAL (and without the foreign-key
checks the store makes: the baseline is the cheaper one), in the same batches, one commit per batch. A
warm-up ingest first (imports, statement caches); then rounds interleaved so that the machine's noise hits
all three alike (five rounds), the best of each reported, and each round's own ratios beside them
(`*_rounds`, sorted, and their `*_median`: the spread within the run, `_spread.py`). Goal: ratio at least
0.5.

Two sources of spans. The goal is stated on the minimal agent-shaped traces of `_spans.py` (a root, two
model calls, a tool call, a few hundred bytes each). The same figures follow for the spans filon's own
agent emits through the official instrumentation (`_agent_spans.py`): kilobytes of system instructions,
tool definitions and history per model call, which weigh on reading and redaction more than on SQLite.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # this tree's filon, not another checkout's

from _agent_spans import agent_traffic
from _spans import traffic
from _spread import spread

from filon.miner.rules.config import FlagConfig
from filon.miner.rules.grounding_rule import forget_readings
from filon.miner.store import Store
from filon.tracing.ingest import Ingestor
from filon.tracing.records import SpanRecord, batched
from filon.tracing.redact import Redactor
from filon.tracing.settle import accept

TURNS = 3000
BATCH = 512
ROUNDS = 5
TABLES = (
    "spans",
    "turns",
    "conversations",
    "flags",
    "failure_groups",
    "failure_group_days",
    "pending_traces",
)
Source = Callable[[int], list[SpanRecord]]


def full_rulebook() -> FlagConfig:
    """Every rule of the rulebook flagging production and held wherever it can be: `fait_non_fonde` needs
    what the agent was told, which the minimal spans do not record (the agent's and tau-bench's do), so
    `sources` are declared (the shop's prompts). As it ships, a stack that records no instructions and
    declares no `sources` is not held to that rule (`not_evaluated`): the lighter figure."""
    prompts = Path(__file__).resolve().parent.parent / "agent" / "prompts"
    return FlagConfig.from_json(
        {
            "sources": [str(prompts)],
            "rules": {"action_affirmee": {"production": True}, "fait_non_fonde": {"production": True}},
        }
    )


def ingest_rate(
    folder: Path,
    name: str,
    redact: bool,
    source: Source = traffic,
    config: FlagConfig | None = None,
    defer: bool = False,
) -> tuple[float, Path]:
    """Spans per second through ingest, or with `defer` through a deferred receiver's acknowledgement
    path (`tracing.settle.accept`: the spans redacted, written and noted as waiting; no rule runs on it)."""
    db = folder / f"{name}.db"
    records = source(TURNS)
    forget_readings()  # each round reads its traces as new ones (they are the same traces every round)
    store = Store.open(f"sqlite:///{db}")
    ingestor = Ingestor(store, config=config, redactor=Redactor(b"bench") if redact else None)
    step = partial(accept, ingestor) if defer else ingestor.ingest
    start = time.perf_counter()
    for batch in batched(records, BATCH):
        step(batch)
    elapsed = time.perf_counter() - start
    store.close()
    return len(records) / elapsed, db


def raw_target(target: Path, source: Path) -> tuple[sqlite3.Connection, dict[str, list[Any]]]:
    """An empty store of the same schema (made by the same migrations) opened as raw `sqlite3`, with the
    rows `source` holds, read beforehand."""
    Store.open(f"sqlite:///{target}").close()
    src = sqlite3.connect(source)
    rows = {t: src.execute(f"SELECT * FROM {t}").fetchall() for t in TABLES}
    src.close()
    conn = sqlite3.connect(target)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn, rows


def insert_raw(conn: sqlite3.Connection, rows: dict[str, list[Any]]) -> None:
    """The baseline's work: the rows in the same batches as ingest's, one commit each."""
    batches = max(1, len(rows["spans"]) // BATCH)
    for i in range(batches):
        for table in TABLES:
            chunk = rows[table][i * len(rows[table]) // batches : (i + 1) * len(rows[table]) // batches]
            if chunk:
                marks = ",".join("?" * len(chunk[0]))
                conn.executemany(f"INSERT INTO {table} VALUES ({marks})", chunk)
        conn.commit()


def raw_rate(folder: Path, source: Path, name: str = "raw") -> float:
    conn, rows = raw_target(folder / f"{name}.db", source)
    start = time.perf_counter()
    insert_raw(conn, rows)
    elapsed = time.perf_counter() - start
    conn.close()
    return len(rows["spans"]) / elapsed


def python_us_per_turn(source: Source, config: FlagConfig | None = None) -> tuple[float, float]:
    """The per-turn Python work that raw `executemany` does not do, alone (best of three): reading a
    trace's GenAI JSON into a turn, and the flag rules (per turn of the same conversations)."""
    from _conversations import gathered

    from filon.miner.rules.flags import flag_conversation
    from filon.tracing.grouping import by_trace, turn_of

    traces = list(by_trace(source(TURNS)).values())
    config = config or FlagConfig()
    reading = flags = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        seen = [turn_of(spans, config.escalation_tools) for spans in traces]
        reading = min(reading, (time.perf_counter() - start) / len(traces))
        conversations = gathered(seen)
        forget_readings()  # every round reads the answers afresh, as ingest reads a new turn
        start = time.perf_counter()
        for conversation in conversations:
            flag_conversation(conversation, config)
        flags = min(flags, (time.perf_counter() - start) / len(traces))
    return reading * 1e6, flags * 1e6


def figures(source: Source, prefix: str = "") -> dict[str, object]:
    plain, redacted, raw, lean, accepted, raw_accepted = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ingest_rate(folder, "warm-up", True, source)
        for r in range(ROUNDS):
            rate, db = ingest_rate(folder, f"ingest-{r}", False, source)
            plain.append(rate)
            redacted.append(ingest_rate(folder, f"ingest-redacted-{r}", True, source)[0])
            raw.append(raw_rate(folder, db, f"raw-{r}"))
            lean.append(ingest_rate(folder, f"ingest-full-{r}", False, source, full_rulebook())[0])
            rate, db = ingest_rate(folder, f"accept-{r}", True, source, defer=True)
            accepted.append(rate)
            raw_accepted.append(raw_rate(folder, db, f"raw-accepted-{r}"))
    best_plain, best_redacted, best_raw, best_lean = max(plain), max(redacted), max(raw), max(lean)
    reading_us, flags_us = python_us_per_turn(source)
    _, lean_flags_us = python_us_per_turn(source, full_rulebook())
    return {
        f"{prefix}spans": len(source(TURNS)),
        f"{prefix}ingest_spans_per_s": round(best_plain),
        f"{prefix}ingest_redacted_spans_per_s": round(best_redacted),
        f"{prefix}raw_executemany_spans_per_s": round(best_raw),
        f"{prefix}ratio_ingest_to_raw": round(best_plain / best_raw, 3),
        f"{prefix}ratio_ingest_redacted_to_raw": round(best_redacted / best_raw, 3),
        **spread(f"{prefix}ratio_ingest_to_raw", plain, raw),
        **spread(f"{prefix}ratio_ingest_redacted_to_raw", redacted, raw),
        f"{prefix}turn_reading_us_per_turn": round(reading_us, 1),
        f"{prefix}flag_rules_us_per_turn": round(flags_us, 1),
        # the full rulebook flagging production (its grounding rules switched on) beside ingest as it ships
        f"{prefix}ratio_ingest_full_rulebook_to_raw": round(best_lean / best_raw, 3),
        **spread(f"{prefix}ratio_ingest_full_rulebook_to_raw", lean, raw),
        f"{prefix}flag_rules_full_rulebook_us_per_turn": round(lean_flags_us, 1),
        # `filon serve`'s default: the acknowledgement path against raw `executemany` of what it wrote
        f"{prefix}accept_spans_per_s": round(max(accepted)),
        f"{prefix}ratio_accept_to_raw": round(max(accepted) / max(raw_accepted), 3),
        **spread(f"{prefix}ratio_accept_to_raw", accepted, raw_accepted),
    }


def main() -> None:
    out = figures(traffic)
    out["goal_ratio_at_least"] = 0.5
    out.update(figures(agent_traffic, "agent_spans_"))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
