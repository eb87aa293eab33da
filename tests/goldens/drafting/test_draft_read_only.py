"""An agent whose writes filon.toml declares, on a conversation that wrote nothing (a question answered,
a hand-over): the draft forbids the writes and proposes, off, what the conversation read, its hand-over
and the facts it told; `--proposed` turns them on; the case covers its source conversation's group.

A newcomer's English FAQ bot with `write_tools` got drafts that checked nothing but the writes, and
`goldens coverage` then said those cases matched no conversation, the very ones they were drafted from.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.store import Store
from filon.tracing.ingest import Ingestor
from tests.tui.data import turn

runner = CliRunner()

TOML = """tools = ["search_faq", "lookup_order", "request_return", "escalate_to_human"]
write_tools = ["request_return"]
escalation_tools = ["escalate_to_human"]
"""


@pytest.fixture
def bot(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "filon.toml").write_text(TOML, encoding="utf-8")
    cases = tmp_path / "goldens" / "cases"
    cases.mkdir(parents=True)
    monkeypatch.setenv("FILON_GOLDENS", str(cases))
    faq = [("search_faq", {"query": "shipping"}, {"results": "Shipping is $6.95, free over $75."})]
    Ingestor(Store.open(db_url), sample_rate=1.0).ingest(
        turn("web:faq-1", "How much is shipping?", "Shipping is $6.95, free over $75.", faq, 1)
    )
    return cases


def test_a_read_only_conversation_proposes_what_it_did_off_and_proposed_turns_it_on(bot: Path) -> None:
    said = runner.invoke(app, ["draft", "web:faq-1"], env={"COLUMNS": "200"})
    assert said.exit_code == 0, said.output
    case = json.loads(said.stdout)
    assert case["outils_interdits"] == [{"outil": "request_return", "si_reussi": True}]
    assert case["outils"] == [] and case["escalade"] is None  # one conversation is not the policy
    off = [line for line in said.stderr.splitlines() if "[off:" in line]
    assert any("outils: search_faq" in line for line in off) and any(
        "escalade: false" in line for line in off
    )
    assert "request_return (si_reussi)" in said.stderr  # the case's word, not « réussi »
    on = json.loads(runner.invoke(app, ["draft", "web:faq-1", "--proposed"]).stdout)
    assert on["outils"] == ["search_faq"] and on["escalade"] is False
    assert any("6.95" in group for group in on["contient"])


def test_a_case_drafted_from_a_conversation_covers_its_group(bot: Path) -> None:
    before = runner.invoke(app, ["goldens", "coverage", str(bot), "--since", "3650d", "--json"])
    written = runner.invoke(app, ["draft", "web:faq-1", "--write"])
    assert written.exit_code == 0, written.output
    after = runner.invoke(app, ["goldens", "coverage", str(bot), "--since", "3650d", "--json"])
    assert after.exit_code == 0, after.output
    doc = json.loads(after.stdout)
    assert doc["covered"] == doc["conversations"] == 1 and doc["unseen_cases"] == []
    assert before.exit_code != 0 or json.loads(before.stdout)["covered"] == 0
