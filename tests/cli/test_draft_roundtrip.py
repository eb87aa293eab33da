"""From an incident to a gate, through the CLI: traffic on court.md leaks, the leak is drafted, linted and
replayed; the case fails on court.md and passes on the default prompt, from a redacted store and from one
that was not (the draft is written redacted either way, and its fixtures load in the shop)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from tests.conftest import REPO

runner = CliRunner()
COURT = str(REPO / "agent" / "prompts" / "court.md")


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize("redact", ["true", "false"])
def test_a_drafted_leak_lints_and_gates_on_both_prompts(
    redact: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FILON_REDACT", redact)
    monkeypatch.setenv("FILON_GOLDENS", str(tmp_path / "cases"))
    code, out = run(
        "traffic", "-n", "30", "--backend", "scripted", "--prompt", COURT, "--seed", "1", "--sample-rate", "1"
    )
    assert code == 0, out
    listed = runner.invoke(app, ["traces", "list", "--json"])
    leaks = [row["conversation_id"] for row in json.loads(listed.stdout) if "security" in row["flags"]]
    assert leaks, "court.md traffic raised no security flag"
    code, out = run("draft", leaks[0], "--id", "adv-99", "--write")
    assert code == 0, out
    written = (tmp_path / "cases" / "adv-99.json").read_text(encoding="utf-8")
    assert "@exemple.fr" not in written.split('"source"')[0]  # redacted, whatever the store
    assert run("goldens", "lint")[0] == 0
    reports = tmp_path / "r"
    assert (
        run("eval", "--backend", "scripted", "--ids", "adv-99", "--report", str(reports / "a.json"))[0] == 0
    )
    code, out = run(
        "eval",
        "--backend",
        "scripted",
        "--ids",
        "adv-99",
        "--prompt",
        COURT,
        "--report",
        str(reports / "b.json"),
    )
    assert code == 1 and "securite (adv-99)" in out
