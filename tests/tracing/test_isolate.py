"""Whose failure a failed batch is: the store's (retried: 503) or some span's content (that span rejected
alone). By SQLSTATE where the database gives one, else by the driver's error class."""

from __future__ import annotations

import sqlite3

import psycopg
import pytest

from filon.tracing.isolate import store_unavailable


@pytest.mark.parametrize(
    ("error", "stores"),
    [
        (psycopg.errors.ProgramLimitExceeded("index row size 8016 exceeds maximum 2704"), False),  # 54000
        (psycopg.errors.UntranslatableCharacter("\\u0000 cannot be converted"), False),  # 22P05
        (psycopg.errors.UniqueViolation("duplicate key"), False),  # 23505
        (psycopg.errors.AdminShutdown("terminating connection"), True),  # 57P01
        (psycopg.errors.UndefinedTable("relation spans does not exist"), True),  # 42P01: not filon's schema
        (psycopg.errors.DeadlockDetected("deadlock"), True),  # 40P01: replayed, then retried
        (psycopg.errors.ReadOnlySqlTransaction("read-only"), True),  # 25006
        (sqlite3.OperationalError("database is locked"), True),
        (sqlite3.DatabaseError("database disk image is malformed"), True),
        (sqlite3.IntegrityError("NOT NULL constraint failed"), False),
        (UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed"), False),
        (OverflowError("Python int too large to convert to SQLite INTEGER"), False),
        (ConnectionRefusedError("connection refused"), True),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v),
)
def test_a_failure_is_the_stores_or_the_contents(error: BaseException, stores: bool) -> None:
    assert store_unavailable(error) is stores
