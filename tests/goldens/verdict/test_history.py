"""Each eval run is recorded; `filon eval history` shows the set's and a case's trend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filon.cli import app
from filon.miner.store import Store

runner = CliRunner()


def test_runs_are_recorded_and_read_back_per_case(tmp_path: Path, db_url: str) -> None:
    report = str(tmp_path / "r.json")
    ok = runner.invoke(app, ["eval", "--backend", "scripted", "--ids", "adv-01,faq-01", "--report", report])
    bad = runner.invoke(
        app, ["eval", "--backend", "scripted", "--ids", "adv-01", "--prompt", "court.md", "--report", report]
    )
    assert (ok.exit_code, bad.exit_code) == (0, 1)
    rows = json.loads(runner.invoke(app, ["eval", "history", "adv-01", "--json"]).stdout)
    assert [r["case_status"] for r in rows] == ["0/1", "1/1"]  # newest first
    assert [r["decision"] for r in rows] == ["failed", "passed"]
    assert rows[0]["prompt_sha256"] != rows[1]["prompt_sha256"]
    only_faq = json.loads(runner.invoke(app, ["eval", "history", "faq-01", "--json"]).stdout)
    assert len(only_faq) == 1
    # runs there are, none of this case: a wrong id, not « run filon eval first » and exit 0
    unknown = runner.invoke(app, ["eval", "history", "nope"])
    assert unknown.exit_code == 2 and "no recorded run replayed a case 'nope'" in unknown.output
    table = runner.invoke(app, ["eval", "history"])
    assert table.exit_code == 0 and "failed" in table.stdout
    assert "score over the last" not in table.stdout  # two prompts, two sets: no one line drawn through them
    # beside the table, the trend drawn in the terminal: the case at 100% then 0%, oldest left
    drawn = runner.invoke(app, ["eval", "history", "adv-01"], env={"COLUMNS": "80"}).stdout
    plot = drawn[drawn.index("adv-01: pass rate over the last 2 runs") :].splitlines()
    assert "\x1b" not in drawn  # plain text: a CI log reads it as a terminal does
    grid = [line for line in plot if "┤" in line]
    top, bottom = grid[0], grid[-1]
    assert top.lstrip().startswith("100") and bottom.lstrip().startswith("0")
    inside = lambda line: line.split("┤", 1)[1]  # noqa: E731
    assert "•" in inside(top)[:10] and "•" not in inside(top)[-10:]  # high on the left (the first run)
    assert "•" in inside(bottom)[-10:] and "•" not in inside(bottom)[:10]  # low on the right (the last)
    quiet = runner.invoke(app, ["eval", "history", "adv-01", "--no-plot"]).stdout
    assert "pass rate over" not in quiet
    again = runner.invoke(
        app, ["eval", "--backend", "scripted", "--ids", "adv-01,faq-01", "--report", report]
    )
    assert again.exit_code == 0
    drawn_set = runner.invoke(app, ["eval", "history"], env={"COLUMNS": "100"}).stdout
    assert "score over the last 2 runs of system.md on 2 attempt(s)" in drawn_set


def test_empty_history_says_what_to_do(db_url: str) -> None:
    result = runner.invoke(app, ["eval", "history"])
    assert result.exit_code == 0 and "run filon eval first" in result.stdout


def test_an_unreachable_store_does_not_change_the_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FILON_DB", "postgresql+psycopg://nobody@127.0.0.1:1/none")
    result = runner.invoke(
        app, ["eval", "--backend", "scripted", "--ids", "faq-01", "--report", str(tmp_path / "r.json")]
    )
    assert result.exit_code == 0
    assert "run not recorded in the store" in result.stderr
    history = runner.invoke(app, ["eval", "history"])
    assert history.exit_code == 1 and "cannot open the store" in history.stderr


def test_store_record_is_complete(tmp_path: Path, db_url: str) -> None:
    report = tmp_path / "r.json"
    runner.invoke(app, ["eval", "--backend", "scripted", "--ids", "esc-03", "--report", str(report)])
    store = Store.open()
    [row] = store.eval_history("esc-03")
    assert row.backend == "scripted" and row.valid == 1 and row.case_status == "1/1"
    assert row.run_id == json.loads(report.read_text())["execution"]["id"]


def test_history_at_80_columns_keeps_ids_whole_and_names_the_prompt(tmp_path: Path, db_url: str) -> None:
    report = str(tmp_path / "r.json")
    runner.invoke(app, ["eval", "--backend", "scripted", "--ids", "faq-01", "--report", report])
    run_id = json.loads(Path(report).read_text())["execution"]["id"]
    table = runner.invoke(app, ["eval", "history"], env={"COLUMNS": "80"})
    assert table.exit_code == 0
    assert max(len(line) for line in table.stdout.splitlines()) <= 80
    assert run_id in table.stdout and "system.md" in table.stdout
    one_case = runner.invoke(app, ["eval", "history", "faq-01"], env={"COLUMNS": "80"})  # a column more
    assert one_case.exit_code == 0 and run_id in one_case.stdout
    assert max(len(line) for line in one_case.stdout.splitlines()) <= 80


def test_model_url_with_the_real_backend_is_refused(tmp_path: Path) -> None:
    for command in (["ask", "Bonjour"], ["eval", "--report", str(tmp_path / "r.json")]):
        result = runner.invoke(app, [*command, "--model-url", "http://127.0.0.1:8765"])
        assert result.exit_code == 2, result.output
        assert "--model-url goes with --backend scripted" in result.output
