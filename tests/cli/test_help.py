"""Help a user reads: usage in capitals, flags without a value's type, defaults as they are."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.rules.config import ESCALATION

runner = CliRunner()


def test_help_reads_as_usage_not_as_types() -> None:
    """Boolean flags take no value and arguments read in capitals: no `<bool>`, no `{conversation_id}`."""
    shown = runner.invoke(app, ["traces", "list", "--help"], env={"COLUMNS": "100"}).output
    assert "<bool>" not in shown
    assert "--json" in shown
    usage = runner.invoke(app, ["incident", "add", "--help"], env={"COLUMNS": "100"}).output
    assert "CONVERSATION_ID" in usage
    assert "{" not in usage


@pytest.mark.parametrize("command", [["ingest"], ["serve"], ["traces", "doctor"]])
def test_escalation_help_names_every_default(command: list[str]) -> None:
    shown = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "400"}).output
    assert "--escalation-tool" in shown
    said = " ".join(shown.split())
    for pattern in ESCALATION:
        assert pattern in said, pattern
