"""A recorded payload through `filon ingest`, and what the store then holds, conversation by conversation:
the one way the stack tests read what filon made of a payload (through the CLI, as a user would)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from filon.cli import app
from filon.miner.core.model import Turn
from filon.miner.store import Store

runner = CliRunner()


def stored() -> dict[str, tuple[list[Turn], list[str]]]:
    """Every conversation `traces list` shows: its turns and the causes of its flags, sorted."""
    store = Store.open()
    out = {}
    for row in json.loads(runner.invoke(app, ["traces", "list", "--json"]).stdout):
        found = store.traces.conversation_detail(row["conversation_id"])
        assert found is not None
        out[row["conversation_id"]] = (found[1], sorted({f.cause for f in found[2]}))
    return out


def ingest(path: Path) -> tuple[str, dict[str, tuple[list[Turn], list[str]]]]:
    """`filon ingest PATH --sample-rate 1` (every conversation kept): what it said, and `stored()`."""
    result = runner.invoke(app, ["ingest", str(path), "--sample-rate", "1"])
    assert result.exit_code == 0, result.output
    return result.stdout, stored()
