"""Each mapping beside its table: a turn as a row and back, by column name, over any turn."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from filon.miner.core.model import ToolCall, Turn
from filon.miner.store.rows import CONVERSATION_COLUMNS, SPAN_COLUMNS, TURN_COLUMNS, row_turn, turn_row
from filon.miner.store.tables import ConversationRow, SpanRow, TurnRow
from filon.tracing.records import FIELD_NAMES, RESOURCE, SpanRecord, fields_of

TEXT = st.text(max_size=20)
TURNS = st.builds(
    Turn,
    trace_id=st.text(min_size=1, max_size=32),
    started_at=st.datetimes(
        timezones=st.just(UTC), min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)
    ),
    user=TEXT,
    agent=TEXT,
    tools=st.lists(
        st.builds(ToolCall, name=TEXT, arguments=st.dictionaries(TEXT, TEXT, max_size=2)), max_size=2
    ),
    escalated=st.booleans(),
    latency_ms=st.floats(0, 1e6),
    input_tokens=st.integers(0, 10**6),
    output_tokens=st.integers(0, 10**6),
    error_types=st.lists(TEXT, max_size=2),
    failed_spans=st.lists(TEXT, max_size=2),
    feedback=st.none() | st.floats(-1, 1),
    sender=st.none() | TEXT,
)


def test_the_column_tuples_are_the_tables_columns_in_order() -> None:
    assert tuple(c.name for c in TurnRow.__table__.columns) == TURN_COLUMNS  # type: ignore[attr-defined]
    assert tuple(c.name for c in ConversationRow.__table__.columns) == CONVERSATION_COLUMNS  # type: ignore[attr-defined]
    assert tuple(c.name for c in SpanRow.__table__.columns) == SPAN_COLUMNS  # type: ignore[attr-defined]


@given(TURNS)
def test_a_turn_comes_back_from_its_row_field_for_field(turn: Turn) -> None:
    row = dict(zip(TURN_COLUMNS, turn_row("web:x", turn), strict=True))
    assert row["conversation_id"] == "web:x" and row["trace_id"] == turn.trace_id
    assert row_turn(row) == turn


def test_the_span_field_lists_are_named() -> None:
    assert tuple(f.name for f in fields(SpanRecord)) == FIELD_NAMES and FIELD_NAMES[RESOURCE] == "resource"
    record = SpanRecord("t", "s", None, "n", 1, 2, resource={"service.name": "x"})
    assert fields_of(record)[RESOURCE] == {"service.name": "x"} and SpanRecord(*fields_of(record)) == record
