"""Migrations: ordered, recorded, idempotent, from a blank database (SQLite file and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, inspect, text
from sqlmodel import SQLModel

from filon.miner.store import Store, tables
from filon.miner.store.migrations import MIGRATIONS, applied, migrate


def test_blank_database_reaches_the_latest_schema(db_url: str) -> None:
    engine = create_engine(db_url)
    assert applied(engine) == []
    assert migrate(engine) == [v for v, _, _ in MIGRATIONS]
    assert applied(engine) == [v for v, _, _ in MIGRATIONS]
    assert migrate(engine) == []  # a second run applies nothing
    expected = {
        "eval_runs",
        "eval_results",
        "filon_migrations",
        "conversations",
        "turns",
        "spans",
        "flags",
        "reviews",
        "case_links",
        "eval_comparisons",
    }
    assert expected <= set(inspect(engine).get_table_names())
    columns = {c["name"]: c for c in inspect(engine).get_columns("eval_comparisons")}
    assert list(columns) == [
        "id",
        "created_at",
        "a_run_id",
        "b_run_id",
        "verdict",
        "exit_code",
        "delta",
        "p_value",
    ]
    assert [i["column_names"] for i in inspect(engine).get_indexes("eval_comparisons")] == [["b_run_id"]]


def test_migrations_apply_one_at_a_time_in_order_and_are_recorded(tmp_path: Path) -> None:
    """Each step brings exactly its own version, in the declared order, recorded with its name; once at
    the top, nothing more is applied."""
    engine = create_engine(f"sqlite:///{tmp_path / 'steps.db'}")
    for version, _, _ in MIGRATIONS:
        assert migrate(engine, upto=version) == [version]
    assert migrate(engine) == []
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT version, name FROM filon_migrations ORDER BY applied_at, version")
        ).all()
    assert [tuple(r) for r in rows] == [(v, n) for v, n, _ in MIGRATIONS]


def test_store_opens_in_wal_mode(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    store = Store.open(f"sqlite:///{tmp_path / 'sub' / 'filon.db'}")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert (tmp_path / "sub" / "filon.db").exists()


STORE_TABLES = [
    m.__table__  # type: ignore[attr-defined]
    for m in vars(tables).values()
    if isinstance(m, type) and issubclass(m, SQLModel) and m.__module__ == tables.__name__
]
Schema = dict[str, tuple[list[tuple[str, str, bool]], list[tuple[str, tuple[str, ...]]]]]


def _schema(engine: Engine) -> Schema:
    """Each table's columns (name, type, nullable) in order, and its indexes (name, columns)."""
    inspector = inspect(engine)
    out = {}
    for table in sorted(inspector.get_table_names()):
        keys = set(inspector.get_pk_constraint(table)["constrained_columns"])
        columns = [
            (c["name"], _type(c["type"], engine), bool(c["nullable"]) and c["name"] not in keys)
            for c in inspector.get_columns(table)
        ]
        indexes = sorted((i["name"] or "", tuple(i["column_names"])) for i in inspector.get_indexes(table))
        out[table] = (columns, indexes)
    return out


def _type(sql_type: Any, engine: Engine) -> str:
    """A column type as the database spells it, with the synonyms of reflection made one."""
    spelled = str(sql_type.compile(dialect=engine.dialect))
    return {"DOUBLE PRECISION": "FLOAT", "SERIAL": "INTEGER"}.get(spelled, spelled)


def _declared(
    engine: Engine,
) -> dict[str, tuple[list[tuple[str, str, bool]], list[tuple[str, tuple[str, ...]]]]]:
    """The same, as the table classes of `miner/store/tables.py` describe it."""
    out = {}
    for table in STORE_TABLES:
        name = table.name
        columns = [
            (c.name, _type(c.type, engine), bool(c.nullable) and not c.primary_key) for c in table.columns
        ]
        indexes = sorted((i.name or "", tuple(c.name for c in i.columns)) for i in table.indexes)
        out[name] = (columns, indexes)
    queue = ("ix_conversations_queue", ("priority", "wrote", "last_at", "id"))  # composite indexes, DDL only
    group = ("ix_conversations_group", ("signature", "priority", "wrote", "last_at", "id"))
    out["conversations"] = (out["conversations"][0], sorted([*out["conversations"][1], queue, group]))
    return out


def test_a_blank_database_has_exactly_the_declared_schema(db_url: str) -> None:
    engine = create_engine(db_url)
    migrate(engine)
    assert _schema(engine) == _declared(engine)


def test_the_flag_and_queue_columns_spelled_out(db_url: str) -> None:
    engine = create_engine(db_url)
    migrate(engine)
    schema = _schema(engine)
    # the columns these migrations made, in the order they made them (later migrations add after them)
    assert [c[0] for c in schema["flags"][0]][:10] == [
        "id",
        "conversation_id",
        "trace_id",
        "turn",
        "kind",
        "severity",
        "reason",
        "source",
        "created_at",
        "cause",
    ]
    assert [c[0] for c in schema["conversations"][0]][:10] == [
        "id",
        "channel",
        "started_at",
        "last_at",
        "turn_count",
        "escalated",
        "flag_kinds",
        "priority",
        "reason",
        "signature",
    ]
    assert schema["conversations"][1] == [
        ("ix_conversations_group", ("signature", "priority", "wrote", "last_at", "id")),
        ("ix_conversations_priority", ("priority",)),
        ("ix_conversations_queue", ("priority", "wrote", "last_at", "id")),
        ("ix_conversations_signature", ("signature",)),
        ("ix_conversations_started_at", ("started_at",)),
    ]


@pytest.mark.parametrize("version", [v for v, _, _ in MIGRATIONS][:-1])
def test_a_database_made_by_an_older_migration_upgrades_to_the_same_schema(db_url: str, version: int) -> None:
    engine = create_engine(db_url)
    assert migrate(engine, upto=version) == list(range(1, version + 1))
    assert migrate(engine)[0] == version + 1
    assert _schema(engine) == _declared(engine)


def test_flags_stored_before_causes_get_their_cause_and_the_queue_its_severity(db_url: str) -> None:
    engine = create_engine(db_url)
    migrate(engine, upto=5)
    at = "2026-01-01 10:00:00"
    rows = [  # (conversation, kind, severity, reason), as the rules of migration 5's time wrote them
        ("c-inj", "security", "high", "injection pattern « ignore » in the user's message"),
        ("c-leak", "security", "high", "the answer exposes 1 identifier(s) of another customer"),
        ("c-leak", "latency", "low", "turn took 9000 ms (threshold 8000 ms)"),
        ("c-esc", "escalation", "low", "escalated with transferer_a_un_conseiller"),
        ("c-inc", "incident", "high", "reported by on-call"),
    ]
    with engine.begin() as conn:
        for cid in dict.fromkeys(r[0] for r in rows):
            conn.exec_driver_sql(
                "INSERT INTO conversations (id, channel, started_at, last_at, turn_count, escalated, flag_kinds,"
                f" priority) VALUES ('{cid}', 'web', '{at}', '{at}', 1, false, '[]', 1)"
            )
        for cid, kind, severity, reason in rows:
            conn.execute(
                text(
                    "INSERT INTO flags (conversation_id, trace_id, turn, kind, severity, reason, source, created_at)"
                    " VALUES (:c, '', 0, :k, :s, :r, 'rule', :at)"
                ),
                {"c": cid, "k": kind, "s": severity, "r": reason, "at": at},
            )
    migrate(engine)
    with engine.connect() as conn:
        flags = {
            (r[0], r[1]): (r[2], r[3])
            for r in conn.exec_driver_sql("SELECT conversation_id, kind, cause, severity FROM flags")
        }
        queue = {
            r[0]: (r[1], r[2]) for r in conn.exec_driver_sql("SELECT id, priority, reason FROM conversations")
        }
    assert flags[("c-inj", "security")] == ("injection_refused", "low")
    assert flags[("c-leak", "security")] == ("leak", "critical")
    assert flags[("c-esc", "escalation")] == ("transferred", "high")
    assert flags[("c-inc", "incident")] == ("reported", "critical")
    assert queue == {
        "c-inc": (0, "reported by on-call"),
        "c-leak": (1, "the answer exposes 1 identifier(s) of another customer"),
        "c-esc": (2, "escalated with transferer_a_un_conseiller"),
        "c-inj": (4, "injection pattern « ignore » in the user's message"),
    }


def test_verdicts_stored_as_case_links_move_to_their_table(db_url: str) -> None:
    engine = create_engine(db_url)
    migrate(engine, upto=6)
    verdict = '{"verdict": "the case is wrong", "note": "trop strict", "reviewer": "alice"}'
    with engine.begin() as conn:
        for cid, provenance in (("", verdict), ("web:x", '{"file": "cases/adv-01.json"}')):
            conn.execute(
                text(
                    "INSERT INTO case_links (case_id, conversation_id, provenance, created_at)"
                    " VALUES ('adv-01', :c, :p, '2026-01-01 10:00:00')"
                ),
                {"c": cid, "p": provenance},
            )
    migrate(engine)
    store = Store(engine)
    assert store.reviews.verdicts("adv-01") == [
        {"verdict": "the case is wrong", "note": "trop strict", "reviewer": "alice"}
    ]
    assert store.stats().cases_made == 1  # the link of a case made from a conversation stays
