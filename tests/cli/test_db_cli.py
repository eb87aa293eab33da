"""`filon db stats|prune` and `filon serve`'s usage errors, through CliRunner."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from filon.cli import app
from filon.miner.store import Store
from tests.tui.data import fill

runner = CliRunner()


def test_stats_and_prune(db_url: str) -> None:
    fill(Store.open())
    stats = runner.invoke(app, ["db", "stats"])
    assert stats.exit_code == 0 and "conversations                6" in stats.stdout
    assert re.search(r"oldest conversation\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC$", stats.stdout, re.M)
    dry = runner.invoke(app, ["db", "prune", "--older-than", "1m", "--dry-run"])
    assert dry.exit_code == 0 and "would delete 3 conversation(s)" in dry.stdout
    assert Store.open().stats().counts()["conversations"] == 6
    done = runner.invoke(app, ["db", "prune", "--older-than", "1m"])
    assert "deleted 3 conversation(s)" in done.stdout and Store.open().stats().counts()["conversations"] == 3


def test_usage_errors() -> None:
    assert runner.invoke(app, ["db", "prune", "--older-than", "a month"]).exit_code == 2
    bad = runner.invoke(app, ["serve", "--max-body", "10"])
    assert bad.exit_code == 2 and "--max-body" in bad.stderr


def test_filon_db_takes_a_plain_path_and_refuses_a_missing_folder(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FILON_DB", str(tmp_path / "plain.db"))
    listed = runner.invoke(app, ["traces", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    assert (tmp_path / "plain.db").exists()
    unknown = runner.invoke(app, ["traces", "show", "web:nope"])
    assert unknown.exit_code == 2 and f"in the store {tmp_path / 'plain.db'}" in unknown.stderr
    monkeypatch.setenv("FILON_DB", str(tmp_path / "typo" / "filon.db"))
    missing = runner.invoke(app, ["traces", "list"])
    assert missing.exit_code == 1
    assert f"the folder '{tmp_path / 'typo'}' does not exist" in missing.stderr
    assert not (tmp_path / "typo").exists()  # no empty store made behind the user's back


def test_filon_db_takes_postgres_urls(postgres_url: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FILON_DB", postgres_url.replace("postgresql+psycopg://", "postgres://"))
    result = runner.invoke(app, ["db", "stats"])
    assert result.exit_code == 0, result.output
    assert "conversations" in result.stdout


def test_the_default_store_is_made_on_a_fresh_clone(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """No FILON_DB, no var/: the default store is created where the README says (make demo relies on it)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FILON_DB")
    from filon.tracing.setup import setup_tracing

    tracing = setup_tracing(sample_rate=1.0, offload=False)
    tracing.shutdown()
    assert (tmp_path / "var" / "filon.db").exists()
    assert runner.invoke(app, ["traces", "list"]).exit_code == 0


def test_serve_refuses_to_listen_beyond_loopback_without_a_token(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bare = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--port", "0"])
    assert bare.exit_code == 2 and "beyond loopback a token is required" in bare.stderr
    empty = tmp_path / "token"
    empty.write_text("\n")
    refused = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--token-file", str(empty)])
    assert refused.exit_code == 2 and "the file is empty" in refused.stderr
    missing = runner.invoke(app, ["serve", "--token-file", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "--token-file" in missing.stderr
    blank = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--port", "0"], env={"FILON_TOKEN": "   "})
    assert blank.exit_code == 2 and "a token of spaces only is no token" in blank.stderr
