"""The dialect helpers of the ingest path: what they write is what the ORM would write."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from filon.miner.store.rows import CONVERSATION_COLUMNS


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(
        timezones=st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5))])
    )
)
def test_dates_written_by_the_ingest_path_are_the_orms_text(value: datetime) -> None:
    """The bulk insert's date conversion on SQLite gives the text the column type's own conversion gives."""
    from sqlalchemy.dialects import sqlite

    from filon.miner.store.sql import _processors
    from filon.miner.store.tables import TurnRow

    dialect = sqlite.dialect()
    column = TurnRow.__table__.c.started_at  # type: ignore[attr-defined]
    [(_, fast)] = _processors(TurnRow.__table__, dialect, ("started_at",))  # type: ignore[attr-defined]
    assert fast(value) == column.type.dialect_impl(dialect).bind_processor(dialect)(value)


def conversation_rows(prefix: str, ids: range, channel: str = "web") -> list[tuple[object, ...]]:
    """Conversation rows in `CONVERSATION_COLUMNS` order, of ids `web:PREFIX000`…"""
    from filon.miner.store.tables import ConversationRow

    when = datetime(2026, 12, 2, tzinfo=UTC)
    fields = ConversationRow.model_fields
    rows = []
    for i in ids:
        given = {"id": f"web:{prefix}{i:03}", "channel": channel, "started_at": when, "last_at": when}
        rows.append(tuple(given[c] if c in given else fields[c].default for c in CONVERSATION_COLUMNS))
    return rows


def test_bulk_inserts_say_what_was_new_whichever_way_they_went(db_url: str) -> None:
    """On PostgreSQL a batch goes by COPY: straight into the table when every row is new, else through
    the staging table with the conflict clause; on SQLite, multi-row INSERTs. Either way: each row once,
    the count and the keys returned are the new ones, an update updates, and a rolled-back transaction
    (the staging table made in it is gone) leaves the next one working."""
    import pytest
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    from filon.miner.store import Store
    from filon.miner.store.sql import insert_rows
    from filon.miner.store.tables import ConversationRow

    store = Store.open(db_url)
    table = ConversationRow.__table__  # type: ignore[attr-defined]
    names = CONVERSATION_COLUMNS

    def rows(ids: range, channel: str = "web") -> list[tuple[object, ...]]:
        return conversation_rows("c", ids, channel)

    with store.engine.begin() as conn:
        new: list[str] = []
        assert insert_rows(conn, table, names, rows(range(0, 60)), "nothing", ["id"], new) == 60
        assert new == [f"web:c{i:03}" for i in range(60)]
    with pytest.raises(DBAPIError), store.engine.begin() as conn:  # made the staging table, then failed
        insert_rows(conn, table, names, rows(range(50, 120)), "nothing", ["id"])
        conn.execute(text("SELECT * FROM no_such_table"))
    with store.engine.begin() as conn:
        again: list[str] = []
        assert insert_rows(conn, table, names, rows(range(50, 120)), "nothing", ["id"], again) == 60
        assert sorted(again) == [f"web:c{i:03}" for i in range(60, 120)]
        assert insert_rows(conn, table, names, rows(range(0, 30), "whatsapp"), "update", ["id"]) == 30
    with store.engine.connect() as conn:
        channels = dict(
            conn.execute(text("SELECT channel, COUNT(*) FROM conversations GROUP BY channel")).all()
        )
    assert channels == {"web": 90, "whatsapp": 30}


def test_a_session_killed_mid_batch_is_the_stores_failure_not_the_datas(postgres_url: str) -> None:
    """After the COPY path has run on a connection, the session is killed in the middle of a transaction:
    the error that ends it is still the driver's (the store is unavailable: retried), not a bookkeeping
    error of filon's hiding it (which would have rejected good spans as bad data)."""
    import psycopg
    import pytest
    from sqlalchemy import text

    from filon.miner.store import Store
    from filon.miner.store.sql import insert_rows
    from filon.miner.store.tables import ConversationRow
    from filon.tracing.isolate import store_unavailable
    from tests.conftest import PG_ADMIN, _fresh_schema

    store = Store.open(_fresh_schema(postgres_url))
    table = ConversationRow.__table__  # type: ignore[attr-defined]
    names, rows = CONVERSATION_COLUMNS, conversation_rows("k", range(60))
    with store.engine.begin() as conn:
        insert_rows(conn, table, names, rows, "nothing", ["id"])  # the COPY path: its listeners are set
    with pytest.raises(Exception) as caught, store.engine.begin() as conn:
        pid = conn.execute(text("SELECT pg_backend_pid()")).scalar()
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        conn.execute(text("SELECT 1"))
    assert store_unavailable(caught.value), repr(caught.value)
    store.close()


def test_span_attributes_given_as_utf8_bytes_are_stored_as_the_same_text(db_url: str) -> None:
    """The acknowledgement path hands a span's attributes as the UTF-8 bytes orjson wrote: stored as text
    (SQLite's `typeof`, not a blob), equal to what the same JSON given as `str` stores, and read back
    whole, accents, a euro sign and a character past the Basic Multilingual Plane included; on
    PostgreSQL by COPY (a batch) and by INSERT (one span)."""
    from sqlalchemy import text

    from filon.miner.store import Store
    from filon.tracing.ingest import from_row, to_row
    from filon.tracing.records import SpanRecord

    said = {"gen_ai.input.messages": "Où est ma commande ? 9,90 € 🙂", "n": 3, "ok": True}
    records = [
        SpanRecord(f"{t:032x}", f"{t:016x}", None, "chat", 1, 2, attributes=said) for t in range(1, 42)
    ]
    rows = [to_row(r, "", {}) for r in records]
    assert all(type(row[10]) is bytes for row in rows)
    as_text = [(*row[:10], row[10].decode(), *row[11:]) for row in rows]
    as_text = [(f"{t:032x}", *row[1:]) for t, row in zip(range(100, 141), as_text, strict=True)]
    store = Store.open(db_url)
    with store.trace_batch() as batch:
        assert batch.write_spans(rows[:-1]) == 40  # many: COPY on PostgreSQL
        assert batch.write_spans(rows[-1:]) == 1  # one: a multi-row INSERT
        assert batch.write_spans(as_text) == 41
    with store.engine.connect() as conn:
        stored = conn.execute(text("SELECT trace_id, attributes FROM spans ORDER BY trace_id")).all()
        if conn.dialect.name == "sqlite":
            kinds = conn.execute(text("SELECT DISTINCT typeof(attributes) FROM spans")).scalars().all()
            assert kinds == ["text"]
    assert len(stored) == 82 and len({a for _, a in stored}) == 1
    with store.trace_batch() as batch:
        back = [from_row(row) for row in batch.spans_of([records[0].trace_id, records[-1].trace_id])]
    assert [r.attributes for r in back] == [said, said]
    store.close()


def test_batches_of_any_size_are_stored_whole_by_a_few_statement_texts(tmp_path: Path) -> None:
    """Every row of a batch of any size is stored once, through statements of a handful of sizes (full
    ones, then powers of two): each text is prepared once and kept by the driver, whatever the sizes of
    the batches that come (one text per remainder would overflow its cache of 128 statements)."""
    from filon.miner.store import Store
    from filon.miner.store.sql import ROWS_PER_STATEMENT, insert_rows
    from filon.miner.store.tables import ConversationRow

    store = Store.open(f"sqlite:///{tmp_path / 'sizes.db'}")
    texts: set[str] = set()
    stored = 0
    for size in range(1, 2 * ROWS_PER_STATEMENT + 2):
        rows = conversation_rows(f"n{size}-", range(size))
        with store.engine.begin() as conn:
            conn.connection.driver_connection.set_trace_callback(texts.add)  # type: ignore[union-attr]
            assert insert_rows(conn, ConversationRow.__table__, CONVERSATION_COLUMNS, rows) == size  # type: ignore[attr-defined]
            conn.connection.driver_connection.set_trace_callback(None)  # type: ignore[union-attr]
        stored += size
    assert store.stats().counts()["conversations"] == stored
    # the callback sees each statement with its values written in: its rows are its texts' difference
    sizes = {t.count("'web:") for t in texts if t.startswith("INSERT")}
    assert sizes == {2**k for k in range(ROWS_PER_STATEMENT.bit_length())}, sorted(sizes)
    store.close()
