"""A yes/no question in a modal: leaving the editor with edits that would be lost, saving a case CI
would refuse. The question wraps to the screen's width (90%, at most 100 columns): at 80x24 it was cut
mid-word at 60 columns, its reason and the keys that fix it out of sight."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label


class ConfirmScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 90%; max-width: 100; height: auto; max-height: 90%; border: round $warning; padding: 1 2; background: $surface; }
    ConfirmScreen Label { width: 100%; }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def ask(app: App[Any], question: str, then: Callable[[], object]) -> None:
    """`then`, after a yes to `question`; nothing after a no."""

    def answered(yes: bool | None) -> None:
        if yes:
            then()

    app.push_screen(ConfirmScreen(question), answered)
