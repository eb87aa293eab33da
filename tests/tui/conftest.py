"""A filled store, a copy of the golden set, and a helper to let workers finish."""

from __future__ import annotations

from pathlib import Path

import pytest

from filon.miner.store import Store
from filon.tui.app import ReviewApp
from tests.conftest import copy_set
from tests.tui.data import NOW, fill


@pytest.fixture
def store(db_url: str) -> Store:
    s = Store.open(db_url)  # a real SQLite file, then a real PostgreSQL database
    fill(s)
    return s


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    copy_set(folder)
    return folder


@pytest.fixture
def make_app(store: Store, cases: Path):  # type: ignore[no-untyped-def]
    def make(**kw):  # type: ignore[no-untyped-def]
        kw.setdefault("reviewer", "alice")
        kw.setdefault("backend", "scripted")
        return ReviewApp(store, goldens=cases, now=lambda: NOW, **kw)

    return make


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """Until the app is quiet: no worker unfinished and no message pending, three checks in a row.

    A worker may be created by a message handled after the previous check (a screen mounting late on a
    loaded machine), hence the run of quiet checks; bounded, and no sleeping.
    """
    app = pilot.app
    quiet = 0
    for _ in range(500):
        await app.workers.wait_for_complete()
        await pilot.pause()
        busy = any(not w.is_finished for w in app.workers) or any(
            not node._message_queue.empty() for node in (app, app.screen, *app.screen.walk_children())
        )
        quiet = 0 if busy else quiet + 1
        if quiet >= 3:
            return
    raise AssertionError("the app never settled")


def court_eval(cases: Path, report: Path, ids: str) -> None:
    """A scripted eval on the shortened prompt, whose report the failures screen reads."""
    from typer.testing import CliRunner

    from filon.cli import app as cli

    args = [
        "eval",
        "--backend",
        "scripted",
        "--goldens",
        str(cases),
        "--ids",
        ids,
        "--prompt",
        "court.md",
        "--report",
        str(report),
    ]
    CliRunner().invoke(cli, args)
