"""`?`: every binding of the screen underneath and of the app, with its description."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Static { width: 70; height: auto; border: round $accent; padding: 1 2; background: $surface; }
    """
    BINDINGS = [Binding("escape,q,question_mark", "close", "Close help")]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.under = under
        self.rows: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        table = Table(
            title=f"keys — {self.under.__class__.__name__.removesuffix('Screen').lower()}",
            caption="esc, q or ? closes this help",  # a newcomer did not know how to leave it
            expand=True,
        )
        table.add_column("key")
        table.add_column("what it does")
        seen = set()
        for source in (self.under.BINDINGS, self.app.BINDINGS):
            for b in source:
                if isinstance(b, Binding) and b.description and b.key not in seen:
                    seen.add(b.key)
                    self.rows.append((self.app.get_key_display(b), b.tooltip or b.description))
                    table.add_row(*self.rows[-1])
        yield Static(table)

    def action_close(self) -> None:
        self.dismiss(None)
