"""Quick start 3 as a new user walks it (issue 45): an incident is on top of the queue whatever its
review's status, and marking it reopens a conversation already done; a reviewer's own claim stays in
their open view; a done conversation can be drafted again by the reviewer who closed it (one claim rule
for the TUI and `filon draft --write`); the reason column keeps its room at 80 and 120 columns and is
laid out again on resize."""

from __future__ import annotations

from textual.widgets import DataTable

from filon.miner.store import Store
from filon.tui.editor import EditorScreen
from filon.tui.queue import QueueScreen
from tests.tui.conftest import settle


async def test_an_incident_on_a_done_conversation_is_reopened_and_on_top(make_app, store: Store) -> None:  # type: ignore[no-untyped-def]
    assert store.reviews.claim("web:promesse", "demo").ok
    assert store.reviews.complete("web:promesse", "demo", "adv-99", {"source": "test"})
    app = make_app(reviewer="demo")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "web:promesse" not in [r.conversation_id for r in app.screen.rows]  # done: not open
    assert store.incidents.add_incident("web:promesse", "a customer was promised a refund")
    app = make_app(reviewer="demo")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.rows[0].conversation_id == "web:promesse"
        assert app.screen.rows[0].status == "open"  # reopened


async def test_a_reviewer_s_own_claim_stays_in_their_open_view(make_app, store: Store) -> None:  # type: ignore[no-untyped-def]
    assert store.reviews.claim("web:geste", "alice").ok
    mine = make_app(reviewer="alice")
    async with mine.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        row = next(r for r in mine.screen.rows if r.conversation_id == "web:geste")
        cells = [str(c) for c in mine.screen.query_one(DataTable).get_row(row.conversation_id)]
        assert "@alice" in cells  # at 80 columns the holder shows in the status column
    other = make_app(reviewer="bob")
    async with other.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "web:geste" not in [r.conversation_id for r in other.screen.rows]


async def test_a_done_conversation_is_drafted_again_by_its_reviewer(make_app, store: Store) -> None:  # type: ignore[no-untyped-def]
    assert store.reviews.claim("web:leak", "demo").ok
    assert store.reviews.complete("web:leak", "demo", "adv-99", {"source": "test"})
    app = make_app(reviewer="demo", conversation="web:leak")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, EditorScreen)  # not « demo holds this conversation »


async def test_the_reason_column_has_room_and_follows_a_resize(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QueueScreen)

        def why_width() -> int:
            table = screen.query_one(DataTable)
            return next(c.width for c in table.columns.values() if str(c.label) == "why")

        assert why_width() >= 25
        await pilot.resize_terminal(120, 30)
        await settle(pilot)
        assert why_width() >= 33 and "holder" in screen.layout_columns
        await pilot.resize_terminal(160, 40)
        await settle(pilot)
        assert why_width() >= 45 and "case" in screen.layout_columns
        assert len(screen.query_one(DataTable).rows) == len(screen.rows)  # the rows shown again


async def test_a_leaking_answer_is_never_added_as_a_good_example(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(reviewer="demo", conversation="web:leak")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        assert editor.draft.observed_wrong is not None  # the leak was drafted as the case's bad example
        before = [(e.verdict, e.reponse) for e in editor.draft.exemples]
        await pilot.press("b")
        await settle(pilot)
        assert [(e.verdict, e.reponse) for e in editor.draft.exemples] == before  # nothing added as bon
        assert all(e.verdict == "mauvais" for e in editor.draft.exemples if e.origine == "observé")


async def test_at_80_by_24_the_result_of_t_is_on_screen(make_app) -> None:  # type: ignore[no-untyped-def]
    """A newcomer pressed t at 80×24 and saw nothing happen: the result was below the fold."""
    app = make_app(reviewer="demo", conversation="web:leak", prompt="court.md")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in "dt":  # the draft, then its try
            await pilot.press(key)
            await settle(pilot)
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        tried = editor.query_one("#tried")
        shown = editor.query_one("VerticalScroll").region
        assert tried.region.height > 0 and "fails:" in str(tried.render())
        assert shown.contains(tried.region.x, tried.region.y), (tried.region, shown)
        whole = shown.contains_region(tried.region)  # all of it, or as much as fits from its top
        assert whole or tried.region.y == shown.y, (tried.region, shown)


async def test_the_sub_title_leads_with_the_prompt_and_ends_with_the_path(make_app) -> None:  # type: ignore[no-untyped-def]
    """At 80 columns the end of the line is cut: the prompt under review must not be what is lost."""
    app = make_app(reviewer="demo", prompt="court.md")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.sub_title.startswith("prompt ") and "court.md" in app.sub_title.split(" · ")[0]
        assert app.sub_title.split(" · ")[-1].startswith("cases in ")
