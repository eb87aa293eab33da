"""The screens' common base: typed access to the review app (its store, reviewer, clock, folders)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.screen import Screen

if TYPE_CHECKING:
    from tui.app import ReviewApp


class ReviewScreen(Screen[None]):
    @property
    def review(self) -> ReviewApp:
        return cast("ReviewApp", self.app)
