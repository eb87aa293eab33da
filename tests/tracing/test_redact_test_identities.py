"""The agent's own test customers (filon.toml's `test_identities`) are left as written by redaction, in
the store and in a drafted case: a bookshop's case said « My email is user-e84192e8c1@redacted.invalid »,
and its agent, whose test data knows alice@example.com, refused her her own order. Everyone else is
redacted as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.tracing.redact import Redactor
from tests.tracing.helpers import one_span

runner = CliRunner()


def test_the_redactor_keeps_what_it_is_told_and_only_that() -> None:
    keep = ["*@example.com", "+33 6 12 34 56 78"]
    redactor = Redactor(b"k", keep)
    said = "alice@example.com, 06 12 34 56 78; zoe@free.fr, 06 98 76 54 32; ALICE@EXAMPLE.COM"
    out = redactor.text(said)
    assert "alice@example.com" in out and "06 12 34 56 78" in out and "ALICE@EXAMPLE.COM" in out
    assert "zoe@free.fr" not in out and "06 98 76 54 32" not in out
    assert Redactor(b"k").text(said).count("redacted.invalid") == 3  # nothing kept without the list


def test_an_ingest_and_a_draft_keep_the_test_customers_email_the_agent_knows(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "filon.toml").write_text('test_identities = ["*@example.com"]\n', encoding="utf-8")
    said = "Where is BK-1001? My email is alice@example.com, or zoe@free.fr"
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.conversation.id": "web:own-2",
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": said}]}]),
        "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": "It has shipped."}]}]
        ),
    }
    export = tmp_path / "export.json"
    export.write_text(json.dumps(one_span("invoke_agent bookshop", attributes)), encoding="utf-8")
    ingested = runner.invoke(app, ["ingest", str(export)], env={"FILON_REDACT": "true"})
    assert ingested.exit_code == 0, ingested.output
    shown = runner.invoke(app, ["traces", "show", "web:own-2", "--json"], env={"COLUMNS": "300"})
    assert "alice@example.com" in shown.stdout and "zoe@free.fr" not in shown.stdout
    drafted = runner.invoke(app, ["draft", "web:own-2"])
    assert drafted.exit_code == 0, drafted.output
    case = json.loads(drafted.stdout)
    assert "alice@example.com" in case["tours"][0] and "zoe@free.fr" not in case["tours"][0]
