"""The coverage screen, driven by Pilot on a store built by real ingest: the figure `filon goldens
coverage` gives, the uncovered groups largest first, a case drafted from one in one key."""

from __future__ import annotations

import json

from textual.widgets import DataTable, Sparkline, Static
from typer.testing import CliRunner

from filon.cli import app as cli
from filon.miner.store import Store
from filon.tui.coverage import CoverageScreen
from filon.tui.editor import EditorScreen
from tests.tui.conftest import settle
from tests.tui.data import deploy, novel


async def test_the_figure_is_the_cli_s_and_the_largest_uncovered_group_drafts_in_one_key(
    make_app, store: Store, cases, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    deploy(store, 12, minute=-2 * 24 * 60)  # two days before the rest: a curve of two points
    changed = novel(store, 7)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CoverageScreen)
        figure = str(screen.query_one("#figure", Static).render())
        assert "covers" in figure and "of the last 7d" in figure
        sizes = [g.size for g in screen.uncovered]
        assert sizes == sorted(sizes, reverse=True) and sizes
        assert screen.query_one(DataTable).row_count == len(sizes)
        spark = screen.query_one(Sparkline)
        assert spark.display and len(spark.data or []) == 2  # by day: the two days with traffic
        trend = str(screen.query_one("#trend", Static).render())
        assert trend.startswith("coverage day by day, oldest left: ") and "(lowest " in trend
        first = screen.uncovered[0]
        assert first.size == 7 and first.representative in changed  # the new kind of question, on top
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, EditorScreen)
        assert app.screen.conversation_id == first.representative
        await pilot.press("escape")  # the editor, then the conversation: back to the figure
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("w")  # 30 days: the same traffic here
        await settle(pilot)
        assert "of the last 30d" in str(screen.query_one("#figure", Static).render())
    # the CLI's own figure over the same store and set is the one the screen said: the CLI's window ends
    # now, the screen's at the app's fixed clock, and both hold all of the fixture's traffic
    monkeypatch.setenv("FILON_DB", str(store.engine.url.render_as_string(hide_password=False)))
    shown = figure.split("covers ")[1].split(" ")[0]
    result = CliRunner().invoke(cli, ["goldens", "coverage", str(cases), "--since", "60d", "--json"])
    assert result.exit_code == 0, result.output
    said = json.loads(result.stdout)
    assert shown == f"{said['share']:.0%}" and said["uncovered"][0]["size"] == 7
