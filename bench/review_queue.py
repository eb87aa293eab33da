"""The review queue's query on a large store: `Store.review_queue` (the first page, and a page deep in the
queue by its keyset cursor) with 1,000 and with 1,000,000 flagged conversations, side by side in one run.
Goal: the 1M figure at most twice the 1k one (the queue index makes a page cost the same at any size).
The same for the failure groups (`filon traces list --groups`) and a week's window of them (what
`filon goldens coverage` reads), kept up to date on ingest: 300 failures in both stores.

What is timed is the query alone, on an open store (median of many calls after a warm-up), not the app
or Python's start-up. Beside it: `Store.conversation_detail` of a 20-turn conversation (what opening one
in the TUI reads), and, named as what it is, the TUI's time from start to its first row at 1M.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _spans import agent_trace

from filon.miner.store import Store
from filon.miner.store.regroup import recount
from filon.miner.store.reviews import Cursor
from filon.tracing.ingest import Ingestor

CALLS = int(__import__("os").environ.get("BENCH_CALLS", "200"))
NOW = datetime(2026, 12, 1, tzinfo=UTC)
SIGNATURES = 300
SPAN = timedelta(days=12)
DEPLOY = "escalation · web · tool_deploy(a)"


def filled(folder: Path, count: int) -> Store:
    db = folder / f"q{count}.db"
    Store.open(f"sqlite:///{db}").close()
    start = datetime(2026, 11, 1, tzinfo=UTC)
    conn = sqlite3.connect(db)

    def rows() -> Iterator[tuple[object, ...]]:
        for i in range(count):
            at = (start + SPAN * i / count).isoformat(sep=" ")  # both stores over the same twelve days
            kind = "security" if i % 3 == 0 else "escalation"
            signature = f"{kind} · web · tool_{i % SIGNATURES}(a)"  # a few hundred failures, as a fleet has
            if i % 10 == 1:  # and one bad deploy, a tenth of the traffic: its page is full in both stores
                signature = DEPLOY
            yield (
                f"web:c{i:07d}",
                "web",
                at,
                at,
                1,
                i % 7 == 0,
                json.dumps([kind]),
                1 + i % 4,
                "why",
                signature,
            )

    conn.executemany(
        "INSERT INTO conversations (id, channel, started_at, last_at, turn_count, escalated, flag_kinds,"
        " priority, reason, signature) VALUES (?,?,?,?,?,?,?,?,?,?)",
        rows(),
    )
    conn.commit()
    conn.close()
    store = Store.open(f"sqlite:///{db}")
    with store.engine.begin() as db_conn:  # the groups as ingest would have kept them (not timed)
        recount(db_conn)
    return store


def timed(call: Callable[[], object]) -> float:
    """Median seconds of `call` over CALLS calls, after ten to warm the caches and the pool."""
    for _ in range(10):
        call()
    samples = []
    for _ in range(CALLS):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def deep_cursor(store: Store, pages: int) -> Cursor:
    cursor = None
    for _ in range(pages):
        page = store.reviews.review_queue(cursor, 50, now=NOW)
        cursor = page[-1].cursor
    assert cursor is not None
    return cursor


async def tui_first_row(store: Store) -> float:
    from filon.tui.app import ReviewApp
    from filon.tui.queue import QueueScreen

    loaded = asyncio.Event()

    def hook(message: object) -> None:
        if isinstance(message, QueueScreen.Loaded):
            loaded.set()

    app = ReviewApp(store, reviewer="bench")
    start = time.perf_counter()
    async with app.run_test(size=(120, 40), message_hook=hook):
        await asyncio.wait_for(loaded.wait(), 120)
        return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small, large = filled(folder, 1_000), filled(folder, 1_000_000)
        figures: dict[str, float] = {}
        for name, store in (("1k", small), ("1m", large)):
            cursor = deep_cursor(store, 15)  # page 16: 750 conversations in, within the small store too
            figures[f"first_page_ms_{name}"] = (
                timed(partial(store.reviews.review_queue, None, 50, now=NOW)) * 1e3
            )
            figures[f"page_16_ms_{name}"] = (
                timed(partial(store.reviews.review_queue, cursor, 50, now=NOW)) * 1e3
            )
            # the failure groups (`traces list --groups`) and a week's window of them (what coverage reads)
            figures[f"groups_ms_{name}"] = timed(partial(store.groups.failure_groups, limit=None)) * 1e3
            # one group's members, the first page in queue order (the TUI's group screen); and the ids
            # of its open members, what a verdict for the whole group reads (in proportion to its size)
            group = DEPLOY
            figures[f"group_page_ms_{name}"] = (
                timed(partial(store.reviews.review_queue, None, 50, now=NOW, group=group)) * 1e3
            )
            figures[f"group_open_ids_ms_{name}"] = (
                timed(partial(store.reviews.open_members, group, "bench", NOW)) * 1e3
            )
            week = datetime(2026, 11, 6, tzinfo=UTC)  # the last seven of the twelve days
            figures[f"groups_week_ms_{name}"] = (
                timed(partial(store.groups.failure_groups, limit=None, since=week)) * 1e3
            )
        long_store = Store.open(f"sqlite:///{folder / 'long.db'}")
        Ingestor(long_store).ingest([r for n in range(20) for r in agent_trace(n, "web:long")])
        open_ms = timed(lambda: long_store.traces.conversation_detail("web:long")) * 1e3
        tui_s = asyncio.run(tui_first_row(large))
    print(
        json.dumps(
            {
                **{k: round(v, 3) for k, v in figures.items()},
                "ratio_first_page_1m_to_1k": round(
                    figures["first_page_ms_1m"] / figures["first_page_ms_1k"], 3
                ),
                "ratio_page_16_1m_to_1k": round(figures["page_16_ms_1m"] / figures["page_16_ms_1k"], 3),
                "ratio_groups_1m_to_1k": round(figures["groups_ms_1m"] / figures["groups_ms_1k"], 3),
                "ratio_groups_week_1m_to_1k": round(
                    figures["groups_week_ms_1m"] / figures["groups_week_ms_1k"], 3
                ),
                "ratio_group_page_1m_to_1k": round(
                    figures["group_page_ms_1m"] / figures["group_page_ms_1k"], 3
                ),
                "goal_ratio_at_most": 2,
                "group_open_ids_per_member_us_1k": round(figures["group_open_ids_ms_1k"] * 1e3 / 100, 3),
                "group_open_ids_per_member_us_1m": round(figures["group_open_ids_ms_1m"] * 1e3 / 100_000, 3),
                "conversation_detail_ms_20_turns": round(open_ms, 3),
                "tui_start_to_first_row_s_1m": round(tui_s, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
