"""The screens' common base: typed access to the review app (its store, reviewer, clock, folders)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.screen import Screen

if TYPE_CHECKING:
    from filon.tui.app import ReviewApp


class ReviewScreen(Screen[None]):
    @property
    def review(self) -> ReviewApp:
        return cast("ReviewApp", self.app)


def remaining(width: int, columns: list[tuple[str, int]]) -> int:
    """The width left to a table's free column once the fixed ones, their cell padding and the scroll
    bar are counted: at least 12."""
    return max(12, width - sum(w for _, w in columns) - 2 * (len(columns) + 1) - 2)
