"""`filon traces list --groups` on a store built by real traffic: one bad deploy's many flagged
conversations read as a few failures, worst first, each with its size and a representative to open."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from filon.cli import app

runner = CliRunner()


def listed(*args: str) -> list[dict[str, object]]:
    result = runner.invoke(app, ["traces", "list", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_a_bad_deploys_conversations_are_a_few_groups_worst_first(db_url: str) -> None:
    made = runner.invoke(
        app,
        ["traffic", "--backend", "scripted", "--seed", "3", "-n", "60", "--prompt", "agent/prompts/court.md",
         "--sample-rate", "1"],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    conversations = listed("--limit", "1000")
    groups = listed("--groups", "--limit", "1000")
    assert sum(g["size"] for g in groups) == len(conversations) > 40  # every conversation in one group
    assert len(groups) < len(conversations)
    flagged = [g for g in groups if g["severity"]]
    leaks = [g for g in flagged if str(g["signature"]).startswith("injection_obeyed")]
    assert leaks and sum(g["size"] for g in leaks) >= 2  # the same failure, several conversations: grouped
    ranks = {"critical": 1, "high": 2, "medium": 3, "low": 4, None: 9}
    order = [(ranks[g["severity"]], -g["size"]) for g in groups]  # type: ignore[index, operator]
    assert order == sorted(order)  # worst first, then the largest
    group = leaks[0]
    members = listed("--group", str(group["signature"]), "--limit", "1000")
    assert len(members) == group["size"] and group["representative"] in {
        m["conversation_id"] for m in members
    }
    assert all(m["severity"] == "critical" for m in members)
    # an incident marked on a member of a small group puts that group on top, as its failure's, not alone
    smallest = min((g for g in groups if not g["severity"]), key=lambda g: g["size"])
    marked = runner.invoke(
        app, ["incident", "add", str(smallest["representative"]), "--note", "a customer called"]
    )
    assert marked.exit_code == 0, marked.output
    after = listed("--groups", "--limit", "1000")
    assert after[0]["signature"] == smallest["signature"] and after[0]["incident"] is True
    shown = runner.invoke(app, ["traces", "list", "--groups"])
    assert "failure group(s), worst first" in shown.stdout and "filon traces list --group" in shown.stdout


def test_a_group_that_is_not_there_and_options_that_do_not_go_with_groups_say_so(db_url: str) -> None:
    missing = runner.invoke(app, ["traces", "list", "--group", "leak · web · nothing"])
    assert missing.exit_code == 1 and "no conversation matches in the failure group" in missing.stdout
    mixed = runner.invoke(app, ["traces", "list", "--groups", "--flag", "security"])
    assert mixed.exit_code == 2 and "--groups: give only" in mixed.stderr
    empty = runner.invoke(app, ["traces", "list", "--groups", "--json"])
    assert empty.exit_code == 0 and json.loads(empty.stdout) == []
