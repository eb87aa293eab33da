"""Migrations: ordered, recorded, idempotent, from a blank database (SQLite file and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, inspect

from miner.migrations import MIGRATIONS, applied, migrate
from miner.store import Store


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


def test_versions_are_strictly_increasing() -> None:
    versions = [v for v, _, _ in MIGRATIONS]
    assert versions == sorted(set(versions))


def test_store_opens_in_wal_mode(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    store = Store.open(f"sqlite:///{tmp_path / 'sub' / 'filon.db'}")
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert (tmp_path / "sub" / "filon.db").exists()
