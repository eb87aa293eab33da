"""Snapshots of each screen on fixed data (times, ids and paths are fixed; nothing depends on the clock), at
the two sizes a person meets: an 80×24 terminal and a 160×48 one. At 80×24 what decides a pick stays in
the queue (severity, the whole id, the reason, age, status, holder) and the footer keeps q, ? and F."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from filon.miner.store import Store
from filon.tui.app import ReviewApp
from tests.conftest import copy_set
from tests.tui.conftest import court_eval, settle
from tests.tui.data import NOW, deploy, fill, novel

SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])


@pytest.fixture
def app_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    copy_set("cases")
    store = Store.open("sqlite:///review.db")
    fill(store)

    def make(**kw):  # type: ignore[no-untyped-def]
        return ReviewApp(
            store, reviewer="alice", backend="scripted", goldens=Path("cases"), now=lambda: NOW, **kw
        )

    return make


@SIZES
def test_queue(snap_compare, app_at, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_at(), terminal_size=size, run_before=settle)


@SIZES
def test_conversation(snap_compare, app_at, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_at(conversation="web:leak"), terminal_size=size, run_before=settle)


@SIZES
def test_conversation_with_untrusted_text(snap_compare, app_at, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app_at(conversation="web:markup"), terminal_size=size, run_before=settle)


@SIZES
def test_editor(snap_compare, app_at, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def draft(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)

    assert snap_compare(app_at(conversation="web:leak"), terminal_size=size, run_before=draft)


@SIZES
def test_help(snap_compare, app_at, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def help_(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(app_at(), terminal_size=size, run_before=help_)


@SIZES
def test_failures(snap_compare, app_at, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    court_eval(Path("cases"), Path("rapport.json"), "adv-01,faq-01")
    report = json.loads(Path("rapport.json").read_text(encoding="utf-8"))
    report["execution"]["debut"] = NOW.isoformat()  # the header names the run's date: fixed here
    for case in report["cas"]:  # the shop's dates are relative to today: the answers' dates are fixed too
        for attempt in case["tentatives"]:
            attempt["reponses"] = [
                re.sub(r"\b\d{2}/\d{2}/\d{4}\b", "01/01/2026", r) for r in attempt["reponses"]
            ]
    Path("rapport.json").write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")

    async def failures(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)

    assert snap_compare(app_at(report=Path("rapport.json")), terminal_size=size, run_before=failures)


def keys(*pressed: str):  # type: ignore[no-untyped-def]
    async def run(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return run


@SIZES
def test_groups(snap_compare, app_at, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    app = app_at()
    deploy(app.store, 12)
    assert snap_compare(app, terminal_size=size, run_before=keys("g"))


@SIZES
def test_group_members(snap_compare, app_at, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    app = app_at()
    deploy(app.store, 12)
    assert snap_compare(app, terminal_size=size, run_before=keys("g", "enter"))


@SIZES
def test_coverage(snap_compare, app_at, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    app = app_at()
    novel(app.store, 5)
    assert snap_compare(app, terminal_size=size, run_before=keys("v"))
