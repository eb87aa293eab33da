"""The screens' common base: typed access to the review app (its store, reviewer, clock, folders)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual.screen import Screen
from textual.widgets import DataTable, Static

from filon.tui.safe import literal

if TYPE_CHECKING:
    from filon.tui.app import ReviewApp


class ReviewScreen(Screen[None]):
    @property
    def review(self) -> ReviewApp:
        return cast("ReviewApp", self.app)


def fitted(text: str, width: int) -> str:
    """`text` in `width` characters: whole when it fits; else a failure signature keeps its cause and
    channel (« cause · channel · ») and the end of its calls, where two signatures most often differ, and
    any other text its start and its end, around « … »."""
    if len(text) <= width or width < 8:
        return text
    head = text[: text.find(" · ", text.find(" · ") + 3) + 3] if text.count(" · ") >= 2 else ""
    if head and len(head) <= width - 9:
        room, kept = width - len(head) - 1, ""
        for call in reversed(text[len(head) :].split(" > ")):  # whole calls, from the last
            longer = f"{call} > {kept}" if kept else call
            if len(longer) + 2 > room:
                break
            kept = longer
        return f"{head}… > {kept}" if kept else f"{head}…{text[-room:]}"
    tail = (width - 1) // 2
    return f"{text[: width - 1 - tail].rstrip()}…{text[-tail:].lstrip()}"


def shown_path(path: Path) -> str:
    """A folder as a header shows it: relative to the working directory when under it (« goldens/cases »
    at 80 columns, where « /home/…/goldens/ca… » was cut), else whole."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve())) or "."
    except (ValueError, OSError):
        return str(path)


def detail(table: DataTable[object], texts: list[str], label: str) -> None:
    """The `#detail` line under a table: the highlighted row's `texts` entry whole, wrapped (its cell
    is cut to the column's width)."""
    screen = table.screen
    shown = texts[table.cursor_row] if 0 <= table.cursor_row < len(texts) else ""
    screen.query_one("#detail", Static).update(literal(f"{label}: {shown}") if shown else "")


def remaining(width: int, columns: list[tuple[str, int]]) -> int:
    """The width left to a table's free column once the fixed ones, their cell padding and the scroll
    bar are counted: at least 12."""
    return max(12, width - sum(w for _, w in columns) - 2 * (len(columns) + 1) - 2)
