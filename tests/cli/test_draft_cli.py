"""`filon draft`: print a draft, or write it (lint first, never over an existing id)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.set.caseset import load_set
from filon.miner.store import Store
from tests.conftest import copy_set
from tests.tui.data import fill

runner = CliRunner()


@pytest.fixture
def cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, db_url: str) -> Path:
    fill(Store.open())
    folder = tmp_path / "cases"
    copy_set(folder)
    monkeypatch.setenv("FILON_GOLDENS", str(folder))
    return folder


def test_draft_prints_the_case_and_the_origins(cases: Path) -> None:
    result = runner.invoke(app, ["draft", "web:promesse"])
    assert result.exit_code == 0
    case = json.loads(result.stdout)
    assert case["escalade"] is True and case["outils"] == ["transferer_a_un_conseiller"]
    assert "corrected  escalade: true" in result.stderr
    assert not (cases / f"{case['id']}.json").exists()


def test_draft_write_saves_links_and_refuses_an_existing_id(cases: Path) -> None:
    result = runner.invoke(app, ["draft", "web:geste", "--id", "esc-10", "--write", "--reviewer", "bob"])
    assert result.exit_code == 0, result.output
    saved = json.loads((cases / "esc-10.json").read_text())
    assert saved["source"]["conversation_id"] == "web:geste" and saved["source"]["reviewer"] == "bob"
    assert load_set(cases).errors == []
    again = runner.invoke(app, ["draft", "web:geste", "--id", "esc-10", "--write"])
    assert again.exit_code == 1 and "already exists" in again.stderr
    assert "error: error:" not in again.stderr and again.stderr.count("error:") == 1
    unknown = runner.invoke(app, ["draft", "nope"])
    assert unknown.exit_code == 2 and "no conversation 'nope'" in unknown.stderr


def test_a_second_case_of_the_same_incident_warns_and_names_the_first(cases: Path) -> None:
    first = runner.invoke(app, ["draft", "web:geste", "--id", "esc-10", "--write"])
    assert first.exit_code == 0 and "nearly repeats" not in first.stderr
    second = runner.invoke(app, ["draft", "web:geste", "--id", "esc-11", "--write"])
    assert second.exit_code == 0  # a warning: the reviewer decides
    assert (
        "warning: esc-11.json: tours: nearly repeats esc-10 (same tools and flags, 100% of the same words)"
        in second.stderr
    )
    assert (cases / "esc-11.json").exists()


def test_an_id_too_long_for_a_file_name_is_one_line(tmp_path: Path, db_url: str) -> None:
    fill(Store.open(db_url))
    runner = CliRunner()
    result = runner.invoke(
        app, ["draft", "web:leak", "--id", "a" * 300, "--write"], env={"FILON_GOLDENS": str(tmp_path / "c")}
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines()[-1] == "error: --id: at most 64 characters (got 300)"
    assert not (tmp_path / "c").exists()
    bad = runner.invoke(app, ["draft", "web:leak", "--id", "../escape"])
    assert bad.exit_code == 2 and "lower-case letters, digits" in bad.stderr


def test_a_cli_draft_respects_a_reviewers_claim_and_links_its_source(cases: Path, db_url: str) -> None:
    """While alice holds a conversation, `filon draft --write` refuses, naming her; with --force it
    writes, and the case is linked to its source all the same: `filon db prune`, which deletes old
    unflagged conversations, never deletes this one."""
    store = Store.open(db_url)
    assert store.reviews.claim("web:faq", "alice").ok  # unflagged, a month old: what prune deletes
    refused = runner.invoke(app, ["draft", "web:faq", "--id", "faq-20", "--write"])
    assert refused.exit_code == 1 and "alice holds 'web:faq' (claimed)" in refused.stderr
    assert not (cases / "faq-20.json").exists()
    forced = runner.invoke(app, ["draft", "web:faq", "--id", "faq-20", "--write", "--force"])
    assert forced.exit_code == 0 and (cases / "faq-20.json").exists()
    pruned = runner.invoke(app, ["db", "prune", "--older-than", "1m"])
    assert pruned.exit_code == 0 and "deleted 2 conversation(s)" in pruned.stdout, pruned.output
    assert store.traces.conversation_detail("web:faq") is not None  # its case's source stays
    bob = store.reviews.claim("web:faq", "bob")
    assert (bob.ok, bob.holder) == (False, "alice")  # still hers: the CLI did not take it from her


def test_a_write_that_fails_gives_the_claim_back(cases: Path) -> None:
    """Issue 45: an id already taken wrote nothing, and the conversation is not held until its claim expires."""
    taken = runner.invoke(app, ["draft", "web:geste", "--id", "faq-01", "--write", "--reviewer", "bob"])
    assert taken.exit_code == 1 and "already exists" in taken.stderr
    free = re.search(r"(\w+-\d\d) is free", taken.stderr)  # the id to take instead, named
    assert free is not None and not (cases / f"{free.group(1)}.json").exists(), taken.stderr
    store = Store.open()
    assert store.reviews.review_queue(status="claimed", limit=100) == []
    assert store.reviews.claim("web:geste", "alice").ok  # another reviewer may take it at once


def test_the_cli_and_the_tui_hold_to_one_claim_rule(cases: Path) -> None:
    store = Store.open()
    assert store.reviews.claim("web:geste", "alice").ok
    held = runner.invoke(app, ["draft", "web:geste", "--id", "esc-10", "--write", "--reviewer", "bob"])
    assert held.exit_code == 1 and "alice holds" in held.stderr  # claimed by another: refused
    assert store.reviews.complete("web:geste", "alice", "esc-09", {"source": "test"})
    done = runner.invoke(app, ["draft", "web:geste", "--id", "esc-10", "--write", "--reviewer", "bob"])
    assert done.exit_code == 0, done.output  # done already: a further case is the reviewer's call
