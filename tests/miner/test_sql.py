"""The dialect helpers of the ingest path: what they write is what the ORM would write."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(
        timezones=st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5))])
    )
)
def test_dates_written_by_the_ingest_path_are_the_orms_text(value: datetime) -> None:
    """The bulk insert's date conversion on SQLite gives the text the column type's own conversion gives."""
    from sqlalchemy.dialects import sqlite

    from miner.sql import _processors
    from miner.tables import TurnRow

    dialect = sqlite.dialect()
    column = TurnRow.__table__.c.started_at  # type: ignore[attr-defined]
    [(_, fast)] = _processors(TurnRow.__table__, dialect, ("started_at",))  # type: ignore[attr-defined]
    assert fast(value) == column.type.dialect_impl(dialect).bind_processor(dialect)(value)
