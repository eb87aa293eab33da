"""`filon db stats|prune` and `filon serve`'s usage errors, through CliRunner."""

from __future__ import annotations

from typer.testing import CliRunner

from filon.cli import app
from miner.store import Store
from tests.tui.data import fill

runner = CliRunner()


def test_stats_and_prune(db_url: str) -> None:
    fill(Store.open())
    stats = runner.invoke(app, ["db", "stats"])
    assert stats.exit_code == 0 and "conversations         6" in stats.stdout
    dry = runner.invoke(app, ["db", "prune", "--older-than", "1m", "--dry-run"])
    assert dry.exit_code == 0 and "would delete 3 conversation(s)" in dry.stdout
    assert Store.open().counts()["conversations"] == 6
    done = runner.invoke(app, ["db", "prune", "--older-than", "1m"])
    assert "deleted 3 conversation(s)" in done.stdout and Store.open().counts()["conversations"] == 3


def test_usage_errors() -> None:
    assert runner.invoke(app, ["db", "prune", "--older-than", "a month"]).exit_code == 2
    bad = runner.invoke(app, ["serve", "--max-body", "10"])
    assert bad.exit_code == 2 and "--max-body" in bad.stderr
