"""Within one severity the queue shows first the conversations where the agent changed the customer's
records (a write that succeeded): a changed record is where a mistake costs most, and on real conversations
(tau-bench's airline agent, tasks 0-24) it is where the failed trials are. `traces list`, the review
TUI's pages (keyset) and `claim_next` agree on that order."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.store import Store
from tests.corpus import tau

runner = CliRunner()
RANK = {"critical": 4, "high": 3, "medium": 2, "low": 1}


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[dict[str, object]]]:
    folder = tmp_path_factory.mktemp("queue")
    (folder / "filon.toml").write_text(tau.FILON_TOML, encoding="utf-8")
    db = f"sqlite:///{folder / 'filon.db'}"
    env = {"FILON_DB": db, "FILON_HOME": str(folder)}
    payloads = [str(p) for p in tau.payloads()[:8]]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)  # the agent's filon.toml: its write tools
        assert runner.invoke(app, ["ingest", *payloads, "--sample-rate", "1"], env=env).exit_code == 0
        result = runner.invoke(app, ["traces", "list", "--json", "--limit", "500"], env=env)
    assert result.exit_code == 0, result.output
    return db, json.loads(result.stdout)


def _wrote(row: dict[str, object]) -> bool:
    return any(r["cause"] == "write_made" for r in row["reasons"])  # type: ignore[attr-defined, index]


def test_within_a_severity_a_changed_record_comes_first(listed: tuple[str, list[dict[str, object]]]) -> None:
    _, rows = listed
    flagged = [r for r in rows if r["severity"]]
    keys = [(-RANK[str(r["severity"])], not _wrote(r)) for r in flagged]
    assert keys == sorted(keys)
    mixed = {r["severity"] for r in flagged if _wrote(r)} & {r["severity"] for r in flagged if not _wrote(r)}
    assert mixed, "no severity holds both: the order is not tried"


def test_the_review_pages_and_claims_follow_the_same_order(
    listed: tuple[str, list[dict[str, object]]],
) -> None:
    db, rows = listed
    store = Store.open(db)
    pages, cursor = [], None
    while True:
        page = store.reviews.review_queue(cursor, limit=3)
        pages += [r.conversation_id for r in page]
        if len(page) < 3:
            break
        cursor = page[-1].cursor
    assert pages == [r["conversation_id"] for r in rows if r["severity"]]
    assert [store.reviews.claim_next("alice") for _ in range(3)] == pages[:3]
