"""The review TUI on a large store: time to the first queue row with 1,000 and with 100,000 flagged
conversations (keyset pagination: goal ratio at most 2), and time to open a conversation of 20 turns.

Measured headless with Textual's own test driver, from app start to the message that fills the screen.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _spans import agent_trace

from miner.store import Store
from tracing.ingest import Ingestor
from tui.app import ReviewApp
from tui.conversation import ConversationScreen
from tui.queue import QueueScreen

ROUNDS = 3


def filled(folder: Path, count: int) -> Store:
    db = folder / f"q{count}.db"
    Store.open(f"sqlite:///{db}").close()
    start = datetime(2026, 11, 1, tzinfo=UTC)
    rows = [
        (
            f"web:c{i:06d}",
            "web",
            start + timedelta(seconds=i),
            start + timedelta(seconds=i),
            1,
            i % 7 == 0,
            json.dumps(["security" if i % 3 == 0 else "escalation"]),
            1 if i % 3 == 0 else 2,
        )
        for i in range(count)
    ]
    conn = sqlite3.connect(db)
    conn.executemany(
        "INSERT INTO conversations (id, channel, started_at, last_at, turn_count, escalated, flag_kinds, priority) VALUES (?,?,?,?,?,?,?,?)",
        [(r[0], r[1], r[2].isoformat(sep=" "), r[3].isoformat(sep=" "), *r[4:]) for r in rows],
    )
    conn.commit()
    conn.close()
    return Store.open(f"sqlite:///{db}")


async def first_row(store: Store, conversation: str | None = None) -> float:
    loaded = asyncio.Event()
    want = ConversationScreen.Loaded if conversation else QueueScreen.Loaded

    def hook(message: object) -> None:
        if isinstance(message, want):
            loaded.set()

    app = ReviewApp(store, reviewer="bench", conversation=conversation)
    start = time.perf_counter()
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await asyncio.wait_for(loaded.wait(), 60)
        await pilot.pause()
        elapsed = time.perf_counter() - start
    return elapsed


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small, large = filled(folder, 1_000), filled(folder, 100_000)
        t_small = statistics.median(asyncio.run(first_row(small)) for _ in range(ROUNDS))
        t_large = statistics.median(asyncio.run(first_row(large)) for _ in range(ROUNDS))
        long_store = Store.open(f"sqlite:///{folder / 'long.db'}")
        Ingestor(long_store).ingest([r for n in range(20) for r in agent_trace(n, "web:long")])
        t_open = statistics.median(asyncio.run(first_row(long_store, "web:long")) for _ in range(ROUNDS))
    print(
        json.dumps(
            {
                "first_row_s_1k": round(t_small, 3),
                "first_row_s_100k": round(t_large, 3),
                "ratio_100k_to_1k": round(t_large / t_small, 3),
                "goal_ratio_at_most": 2,
                "open_20_turn_conversation_s": round(t_open, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
