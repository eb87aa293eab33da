"""A one-line question in a modal: a dismissal reason, a note, a check's new value."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class PromptScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    PromptScreen { align: center middle; }
    PromptScreen > Vertical { width: 90%; max-width: 100; height: auto; border: round $accent; padding: 1 2; background: $surface; }
    PromptScreen Label { width: 100%; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, value: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question)
            yield Input(value=self.value, id="answer")

    def on_mount(self) -> None:
        found = self.query_one(Input)
        found.cursor_position = len(self.value)  # a value given is to be written on, not before

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
