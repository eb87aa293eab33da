"""Retention: `filon db prune`.

Pruning deletes old conversations that no rule or human flagged, with their turns and spans, and the old
spans no reader could read (kept in no conversation by a deferred receiver's worker); it never deletes a
conversation a case was made from, so a case's provenance survives retention.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete, func, select
from sqlmodel import SQLModel

from filon.miner.store import tables as _tables  # noqa: F401  (registers the tables in the metadata)
from filon.miner.store.regroup import recount
from filon.miner.store.stats import unread_spans

T = SQLModel.metadata.tables


def prune(
    engine: Engine, older_than: timedelta, dry_run: bool = False, now: datetime | None = None
) -> dict[str, int]:
    """Old unflagged conversations deleted, never one a case was made from (`db prune`)."""
    cutoff = (now or datetime.now(UTC)) - older_than
    conv, links, spans, turns = T["conversations"], T["case_links"], T["spans"], T["turns"]
    with engine.begin() as conn:
        linked = select(links.c.conversation_id).where(links.c.conversation_id != "")
        query = select(conv.c.id).where(
            conv.c.last_at < cutoff, conv.c.flag_kinds == "[]", conv.c.id.not_in(linked)
        )
        doomed = [r[0] for r in conn.execute(query)]
        signatures = sorted(
            {r[0] for i in range(0, len(doomed), 500)
             for r in conn.execute(select(conv.c.signature).where(conv.c.id.in_(doomed[i : i + 500])))}
        )  # fmt: skip
        counts = {"conversations": len(doomed), "turns": 0, "spans": 0}
        for i in range(0, len(doomed), 500):
            chunk = doomed[i : i + 500]
            for name, table in (("spans", spans), ("turns", turns)):
                where = table.c.conversation_id.in_(chunk)
                counts[name] += (
                    conn.execute(select(func.count()).select_from(table).where(where)).scalar() or 0
                )
            if dry_run:
                continue
            for table in (spans, turns, T["reviews"], T["flags"]):
                conn.execute(delete(table).where(table.c.conversation_id.in_(chunk)))
            conn.execute(delete(conv).where(conv.c.id.in_(chunk)))
        unread = unread_spans() & (spans.c.end_ns < int(cutoff.timestamp() * 1e9))  # as old
        counts["spans"] += conn.execute(select(func.count()).select_from(spans).where(unread)).scalar() or 0
        if not dry_run:
            conn.execute(delete(spans).where(unread))
            recount(conn, signatures)  # the groups they left, counted again
    return counts
