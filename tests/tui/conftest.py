"""A filled store, a copy of the golden set, and a helper to let workers finish."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from miner.store import Store
from tests.conftest import REPO
from tests.tui.data import NOW, fill
from tui.app import ReviewApp


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store.open(f"sqlite:///{tmp_path / 'review.db'}")
    fill(s)
    return s


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    shutil.copytree(REPO / "goldens" / "cases", folder)
    return folder


@pytest.fixture
def make_app(store: Store, cases: Path):  # type: ignore[no-untyped-def]
    def make(**kw):  # type: ignore[no-untyped-def]
        kw.setdefault("reviewer", "alice")
        kw.setdefault("backend", "scripted")
        return ReviewApp(store, goldens=cases, now=lambda: NOW, **kw)

    return make


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """Let every worker finish and every posted message be handled (no sleeping)."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


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
