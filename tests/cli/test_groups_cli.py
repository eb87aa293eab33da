"""`filon traces list --groups` on a store built by real traffic: one bad deploy's many flagged
conversations read as a few failures, worst first, each with its size and a representative to open."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from filon.cli import app
from filon.goldens.set.coverage import percent
from tests.conftest import copy_set
from tests.tracing.helpers import one_span

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
    assert listed("--group", str(group["id"]), "--limit", "1000") == members  # by its short id, as shown
    shown = runner.invoke(app, ["traces", "list", "--groups"], env={"COLUMNS": "80"})
    assert str(group["id"]) in shown.stdout  # the handle to copy is on the screen, whole
    # at 80 columns each signature has a line of its own, wrapped between its parts, never mid-word
    table = [ln for ln in shown.stdout.splitlines() if "filon traces" not in ln]
    assert all(len(ln) <= 80 for ln in table), shown.stdout
    joined = " ".join(" ".join(ln.split()) for ln in table)
    assert all(" ".join(str(g["signature"]).split()) in joined for g in flagged), shown.stdout
    unflagged = [g for g in groups if str(g["signature"]).startswith("ok · ")]
    assert unflagged and all(str(g["id"]) not in shown.stdout for g in unflagged)  # no "ok" failure group
    assert f"{len(unflagged)} group(s) no rule flagged left out" in shown.stdout
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
    assert missing.exit_code == 1 and "--group: no failure group 'leak · web · nothing'" in missing.stderr
    assert "shows each group's id" in missing.stderr
    mixed = runner.invoke(app, ["traces", "list", "--groups", "--flag", "security"])
    assert mixed.exit_code == 2 and "--groups: give only" in mixed.stderr
    empty = runner.invoke(app, ["traces", "list", "--groups", "--json"])
    assert empty.exit_code == 0 and json.loads(empty.stdout) == []


def test_coverage_of_the_traffic_by_the_set(db_url: str, tmp_path: Path) -> None:
    """The set's share of a week of traffic, its uncovered groups largest first (each with the command that
    drafts from one of its members), the cases nothing matched; without the cases that covered the
    largest covered group, the share falls by exactly that group's size."""
    made = runner.invoke(
        app, ["traffic", "--backend", "scripted", "--seed", "5", "-n", "80", "--sample-rate", "1"]
    )
    assert made.exit_code == 0, made.output
    cases = copy_set(tmp_path / "cases")
    measured = runner.invoke(app, ["goldens", "coverage", str(cases), "--json"])
    assert measured.exit_code == 0, measured.output
    doc = json.loads(measured.stdout)
    groups = {g["signature"]: g for g in listed("--groups", "--limit", "1000")}
    assert doc["conversations"] == sum(g["size"] for g in groups.values())
    assert 0 < doc["covered"] < doc["conversations"] and doc["share"] == round(
        doc["covered"] / doc["conversations"], 4
    )
    sizes = [g["size"] for g in doc["uncovered"]]
    assert sizes == sorted(sizes, reverse=True)
    assert doc["covered"] + sum(sizes) == doc["conversations"]
    # the questions answered from the help pages are covered by the web cases that expect that search;
    # take those cases away and those groups are uncovered, the figure down by exactly their size
    faq = [g for s, g in groups.items() if s.startswith("ok · web · rechercher_aide(question) ·")]
    assert faq and not any(g["signature"] in {u["signature"] for u in doc["uncovered"]} for g in faq)
    for path in cases.glob("*.json"):
        case = json.loads(path.read_text(encoding="utf-8"))
        if case.get("canal", "web") == "web" and "rechercher_aide" in json.dumps(case.get("outils", [])):
            path.unlink()
    fewer = json.loads(runner.invoke(app, ["goldens", "coverage", str(cases), "--json"]).stdout)
    assert fewer["covered"] == doc["covered"] - sum(g["size"] for g in faq)
    shown = runner.invoke(app, ["goldens", "coverage", str(cases)])
    assert "covers" in shown.stdout and "→ filon draft " in shown.stdout
    assert f"covers {percent(fewer['covered'] / fewer['conversations'])} of" in shown.stdout


def test_coverage_says_what_it_could_not_read(db_url: str, tmp_path: Path) -> None:
    cases = copy_set(tmp_path / "cases")
    bad = runner.invoke(app, ["goldens", "coverage", str(cases), "--since", "a week"])
    assert bad.exit_code == 2 and "--since: 'a week' is not a window like 7d" in bad.stderr
    empty = runner.invoke(app, ["goldens", "coverage", str(cases), "--since", "7d"])
    assert empty.exit_code == 1 and "no conversation since" in empty.stderr
    missing = runner.invoke(app, ["goldens", "coverage", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "nope" in missing.stderr


def test_coverage_is_drawn_day_by_day(db_url: str, tmp_path: Path) -> None:
    """Traffic over three days, read by `filon ingest`: the first day's questions answered from the help
    pages (covered), the second day's calling a tool no case expects (not covered), the third half and
    half: the plot reads 100, then 0, then 50, oldest left."""
    import time

    from tests.cli.test_ingest_bad_spans import request, span

    now = time.time_ns()
    day = 86_400 * 10**9
    spans = []
    for n, (ago, tool) in enumerate(
        [(2.5, "rechercher_aide"), (2.5, "rechercher_aide"), (1.5, "outil_inconnu"), (1.5, "outil_inconnu"),
         (0.5, "rechercher_aide"), (0.5, "outil_inconnu")], start=1
    ):  # fmt: skip
        at = now - int(ago * day)
        turn = {
            **span(n, f"Question {n} ?"),
            "startTimeUnixNano": str(at),
            "endTimeUnixNano": str(at + 10**9),
        }
        call = {
            **span(100 + n, ""),
            "traceId": turn["traceId"],
            "parentSpanId": turn["spanId"],
            "name": "execute_tool",
        }
        call["startTimeUnixNano"], call["endTimeUnixNano"] = str(at + 1000), str(at + 2000)
        call["attributes"] = [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": tool}},
            {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": '{"question": "x"}'}},
        ]
        spans += [turn, call]
    export = tmp_path / "week.jsonl"
    export.write_text(request(*spans) + "\n", encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(export)]).exit_code == 0
    cases = copy_set(tmp_path / "cases")
    drawn = runner.invoke(app, ["goldens", "coverage", str(cases), "--since", "3d"], env={"COLUMNS": "80"})
    assert drawn.exit_code == 0, drawn.output
    assert "covers 50% of the 6 conversation(s)" in drawn.stdout
    plot = drawn.stdout[drawn.stdout.index("coverage of each day's traffic") :].splitlines()
    grid = [line for line in plot if "┤" in line]
    top, bottom = grid[0], grid[-1]
    assert top.lstrip().startswith("100") and bottom.lstrip().startswith("0")
    inside = lambda line: line.split("┤", 1)[1]  # noqa: E731
    assert "•" in inside(top)[:10] and "•" not in inside(top)[-10:]  # the first day: all covered
    assert "•" not in inside(bottom)[:10] and "•" not in inside(bottom)[-10:]  # the second day, in the middle
    assert any(
        "•" in inside(line)[-10:] for line in grid[len(grid) // 3 : 2 * len(grid) // 3 + 1]
    )  # 50, right
    quiet = runner.invoke(app, ["goldens", "coverage", str(cases), "--since", "3d", "--no-plot"])
    assert "coverage of each" not in quiet.stdout and "no plot" not in quiet.stdout
    one_day = runner.invoke(app, ["goldens", "coverage", str(cases), "--since", "12h"])
    assert "(no plot: the window's traffic falls within one hour)" in one_day.stdout


def _counted_now(db_url: str) -> dict[str, tuple[int, int]]:
    from filon.miner.store import Store

    return {
        g.signature: (g.size, g.priority)
        for g in Store.open(db_url).groups.failure_groups(limit=None, exact=True)
    }


def test_the_groups_kept_on_ingest_are_what_counting_the_conversations_gives(db_url: str) -> None:
    """The groups are kept up to date as conversations are written, marked and pruned, never counted on a
    read: at each step they equal a count of the conversations themselves."""
    from datetime import UTC, datetime, timedelta

    from filon.miner.store import Store

    def kept() -> dict[str, tuple[int, int]]:
        return {g["signature"]: (g["size"], {"critical": 1, "high": 2, "medium": 3, "low": 4}.get(g["severity"], 9)
                if not g["incident"] else 0) for g in listed("--groups", "--limit", "1000")}  # fmt: skip

    for seed, prompt in ((6, "agent/prompts/system.md"), (7, "agent/prompts/court.md")):
        made = runner.invoke(
            app, ["traffic", "--backend", "scripted", "--seed", str(seed), "-n", "40", "--prompt", prompt,
                  "--sample-rate", "1"],
        )  # fmt: skip
        assert made.exit_code == 0, made.output
        assert kept() == _counted_now(db_url)
    member = listed("--limit", "1")[0]["conversation_id"]
    assert runner.invoke(app, ["incident", "add", str(member), "--note", "seen by a customer"]).exit_code == 0
    assert kept() == _counted_now(db_url) and next(iter(kept().values()))[1] == 0
    assert runner.invoke(app, ["incident", "remove", str(member)]).exit_code == 0
    assert kept() == _counted_now(db_url)
    Store.open(db_url).prune(timedelta(days=1), now=datetime.now(UTC) + timedelta(days=2))  # the unflagged go
    assert kept() == _counted_now(db_url) and all(s[1] < 9 for s in kept().values())


def _span(span_id: str, name: str, attributes: dict[str, str], parent: str = "") -> dict[str, object]:
    """One span of trace `ab…`, ended just now (the coverage window is the last week)."""
    from datetime import UTC, datetime

    now = int(datetime.now(UTC).timestamp() * 1e9)
    return one_span(name, attributes, "ab" * 16, span_id, str(now - 2_000_000_000), str(now), parent)


def test_a_tool_span_exported_before_its_turn_is_not_a_conversation_of_its_own(
    db_url: str, tmp_path: Path
) -> None:
    """The SDK's `SimpleSpanProcessor` exports each span as it ends: the tool's first, alone (read as a
    conversation `trace:…` until its turn came). A newcomer's coverage counted 7 conversations where the
    store held 4, and offered to draft the `trace:…` ones."""
    tool = _span(
        "2" * 16,
        "execute_tool search_faq",
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search_faq",
         "gen_ai.tool.call.arguments": '{"query": "shipping"}', "gen_ai.tool.call.result": '"3.90"'},
        parent="1" * 16,
    )  # fmt: skip
    said = [{"role": "user", "parts": [{"type": "text", "content": "How much is shipping?"}]}]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": "Shipping is 3.90."}]}]
    turn = _span(
        "1" * 16,
        "invoke_agent faqbot",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "web:c1",
         "gen_ai.input.messages": json.dumps(said), "gen_ai.output.messages": json.dumps(answer)},
    )  # fmt: skip
    for n, payload in enumerate((tool, turn)):
        path = tmp_path / f"export-{n}.json"
        path.write_text(json.dumps(payload))
        assert runner.invoke(app, ["ingest", str(path)]).exit_code == 0
    assert [c["conversation_id"] for c in listed()] == ["web:c1"]
    assert sum(g["size"] for g in listed("--groups")) == 1  # type: ignore[misc]
    cases = copy_set(tmp_path / "cases")
    shown = runner.invoke(app, ["goldens", "coverage", str(cases), "--json", "--no-plot"])
    assert json.loads(shown.stdout)["conversations"] == 1, shown.output
