"""The yes/no question the editor asks before saving a case CI would refuse: read whole on a small
terminal (a newcomer saw it cut mid-word at 80x24 and at 120x40, its reason and the keys that fix it
out of sight), from the screen as it is drawn."""

from __future__ import annotations

import html
import re

import pytest
from textual.app import App

from filon.tui.confirm import ConfirmScreen

QUESTION = (
    "CI (lint --strict) would refuse this case: 0 'bon' example(s) in own words: a securite case needs two.\n"
    "Back in the editor, b adds the conversation's answer as a good example, n writes one (bon: … or mauvais: …).\n"
    "Save it anyway? (y / n)"
)


def drawn(app: App[None]) -> str:
    """The screen's text as drawn (its SVG screenshot's text, in one spacing)."""
    svg = app.export_screenshot()
    rows: dict[str, list[str]] = {}
    for y, text in re.findall(r'<text[^>]* y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(y, []).append(html.unescape(re.sub(r"<[^>]+>", "", text)))
    lines = ["".join(parts) for _, parts in sorted(rows.items(), key=lambda kv: float(kv[0]))]
    text = re.sub("[\u2500-\u257f]", " ", " ".join(lines).replace("\xa0", " "))  # the box's own lines
    return " ".join(text.split())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_question_is_drawn_whole(size: tuple[int, int]) -> None:
    answers: list[bool | None] = []

    class Asking(App[None]):
        def on_mount(self) -> None:
            self.push_screen(ConfirmScreen(QUESTION), answers.append)

    app = Asking()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        shown = drawn(app)
        for line in QUESTION.splitlines():  # every word of it, in order, wrapped where the screen needs
            assert " ".join(line.split()) in shown, (line, shown)
        await pilot.press("y")
        await pilot.pause()
    assert answers == [True]


async def test_a_prompt_s_question_is_drawn_whole_at_80_columns() -> None:
    """The editor's `n` asks « New example, 'bon: …' or 'mauvais: …' (tools: the case's own) »: a
    newcomer read it cut after « the case's o »."""
    from filon.tui.prompt import PromptScreen

    question = "New example, 'bon: …' or 'mauvais: …' (tools: the case's own)"
    said: list[str | None] = []

    class Asking(App[None]):
        def on_mount(self) -> None:
            self.push_screen(PromptScreen(question, "bon: "), said.append)

    app = Asking()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert question in drawn(app)
        await pilot.press("o", "k", "enter")
        await pilot.pause()
    assert said == ["bon: ok"]


async def test_the_help_says_how_to_leave_it() -> None:
    """A newcomer opened `?` and did not know how to close it."""
    from textual.binding import Binding
    from textual.screen import Screen

    from filon.tui.help import HelpScreen

    class Under(Screen[None]):
        BINDINGS = [Binding("d", "draft", "Draft a case")]

    class Helped(App[None]):
        def on_mount(self) -> None:
            under = Under()
            self.push_screen(under)
            self.push_screen(HelpScreen(under))

    app = Helped()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = drawn(app)
        assert "Draft a case" in shown and "esc, q or ? closes this help" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
