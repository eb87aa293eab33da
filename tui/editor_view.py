"""How the case editor shows a draft: each check's origin in its colour, and each example under the
current checks (passes or not, and whether that agrees with the reviewer's verdict)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from filon.goldens.drafting.check import Origin
from filon.goldens.set.calibration import Trial
from filon.tui.safe import line

ORIGIN_STYLE = {
    Origin.OBSERVED: "cyan",
    Origin.CORRECTED: "bold magenta",
    Origin.SUGGESTED: "yellow",
    Origin.EXISTING: "white",
    Origin.EDITED: "bold green",
}


def examples_text(rows: list[Trial]) -> Text:
    """Each example under the current checks: passes or not, and whether that agrees with its verdict."""
    if not rows:
        return Text("no example yet: the checks are unproven", style="yellow")
    out = Text()
    for t in rows:
        mark, style = ("✓", "green") if t.agrees else ("✗", "bold red")
        verdict = f"{t.example.verdict} ({t.example.origine})"
        if t.agrees:
            why = "accepted" if t.accepted else "rejected"
        else:
            gaps = "; ".join(g.render("en") for g in t.gaps)  # the screen's language, not the report's
            why = "trop strict: " + gaps if t.example.verdict == "bon" else "trop lâche"
        out.append_text(
            line(
                (f"{mark} {verdict} ", style), " / ".join(t.example.answers())[:120], (f"  — {why}\n", "dim")
            )
        )
    return out


class TriedView(Static):
    """The result of `t`: brought into view, its top first, once laid out at its new height (scrolling
    before the layout stopped at the old bottom: at 80×24 only its first line showed)."""

    pending = False

    def show(self, said: Text) -> None:
        self.pending = True
        self.update(said)
        self.call_after_refresh(self._bring)  # the same height again: no resize comes

    def _bring(self) -> None:
        self.scroll_visible(top=True, animate=False)

    def on_resize(self) -> None:
        if self.pending:
            self.pending = False
            self._bring()
