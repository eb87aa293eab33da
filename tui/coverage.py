"""`v` from the queue: what share of the stored traffic the golden set covers, and what it does not.

The figure of `filon goldens coverage` over a window (`w` cycles a day, a week, a month): the share of
conversations whose failure group some case replays, drawn day by day (hour by hour for a day) as a
sparkline; the groups no case covers, largest first, each drafted in one key (`d` opens its
representative and drafts a case from it); the cases nothing of the window matched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Sparkline, Static

from filon.goldens.set.coverage import Coverage, percent
from filon.miner.rules.config import FlagConfig
from filon.miner.store.groups import FailureGroup
from filon.tui.base import ReviewScreen
from filon.tui.safe import line, literal

WINDOWS = (("7d", timedelta(days=7)), ("30d", timedelta(days=30)), ("24h", timedelta(hours=24)))


class CoverageScreen(ReviewScreen):
    BINDINGS = [
        Binding("d", "draft", "Draft", tooltip="Draft a case from the highlighted group's representative"),
        Binding("w", "window", "Window", tooltip="The window of traffic: 7 days, 30 days, 24 hours"),
        Binding("escape", "back", "Back", tooltip="Back to the queue"),
    ]
    DEFAULT_CSS = """
    CoverageScreen #spark { height: 3; margin: 0 1; }
    CoverageScreen #figure, CoverageScreen #unseen, CoverageScreen #trend { padding: 0 1; }
    """

    @dataclass
    class Measured(Message):
        window: int  # which window it measured: a result for another (w pressed meanwhile) is not shown
        found: Coverage | None
        points: list[float]
        cases: int
        error: str | None = None

    def __init__(self) -> None:
        super().__init__()
        self.window = 0
        self.uncovered: list[FailureGroup] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("measuring…", id="figure")
        yield Static(id="trend")
        yield Sparkline([], id="spark")
        yield DataTable(id="uncovered", cursor_type="row", zebra_stripes=True)
        yield Static(id="unseen")
        yield Footer()

    def on_mount(self) -> None:
        table: DataTable[object] = self.query_one(DataTable)
        table.add_column("size", width=5)
        table.add_column("uncovered group", width=max(20, self.app.size.width - 40))
        table.add_column("representative", width=24)
        self.measure()

    def on_screen_resume(self) -> None:
        self.measure()  # a case drafted from here changes the figure

    @work(thread=True, exclusive=True, exit_on_error=False, group="coverage")
    def measure(self) -> None:
        from filon.goldens.set.caseset import load_set
        from filon.goldens.set.coverage import coverage, over_time, sources_of

        which = self.window
        _, window = WINDOWS[which]
        now = self.review.now()
        try:
            caseset = load_set(self.review.goldens)
            escalation = frozenset(FlagConfig.load().escalation_tools)
            groups = self.review.store.groups.failure_groups(limit=None, since=now - window)
            sources = sources_of(self.review.store, caseset.cases)
            found = coverage(caseset.cases, groups, escalation, sources) if groups else None
            points, _ = over_time(
                self.review.store, caseset.cases, escalation, sources, now - window, window, now
            )
        except Exception as exc:  # a set that does not load, a store that does not answer: said
            self.post_message(self.Measured(which, None, [], 0, str(exc)))
            return
        self.post_message(self.Measured(which, found, [v for _, v in points], len(caseset.cases)))

    @on(Measured)
    def _measured(self, message: Measured) -> None:
        if message.window != self.window:
            return  # measured for the window before `w` was pressed
        name, _ = WINDOWS[self.window]
        figure = self.query_one("#figure", Static)
        table: DataTable[object] = self.query_one(DataTable)
        table.clear()
        self.uncovered = []
        spark = self.query_one(Sparkline)
        spark.display = False  # shown again below when this window has a curve
        self.query_one("#trend", Static).update("")
        self.query_one("#unseen", Static).update("")
        if message.error is not None:
            figure.update(line("cannot measure the coverage: ", message.error))
            return
        found = message.found
        if found is None:
            figure.update(f"no conversation in the last {name} in the store · w: another window")
            return
        share = found.share or 0.0
        figure.update(
            f"the set ({message.cases} case{'' if message.cases == 1 else 's'}) covers {percent(share)} of the {found.conversations} conversation(s)"
            f" of the last {name} · {len(found.uncovered)} group(s) not covered, largest first"
        )
        spark.data = message.points
        spark.display = len(message.points) >= 2
        unit = "hour" if name == "24h" else "day"
        self.query_one("#trend", Static).update(
            f"coverage {unit} by {unit}, oldest left: "
            + " → ".join(f"{v:.0f}%" for v in (message.points[0], message.points[-1]))
            + f" (lowest {min(message.points):.0f}%)"
            if len(message.points) >= 2
            else f"(one {unit} of traffic in the window: no curve yet)"
        )
        self.uncovered = found.uncovered
        for g in found.uncovered:
            table.add_row(str(g.size), literal(g.signature), literal(g.representative), key=g.signature)
        unseen = ", ".join(found.unseen_cases) or "none"
        self.query_one("#unseen", Static).update(line("cases nothing of the window matched: ", unseen))

    def action_draft(self) -> None:
        table: DataTable[object] = self.query_one(DataTable)
        if not self.uncovered or table.cursor_row >= len(self.uncovered):
            self.notify("no uncovered group to draft from", severity="warning")
            return
        from filon.tui.conversation import ConversationScreen

        self.app.push_screen(ConversationScreen(self.uncovered[table.cursor_row].representative, draft=True))

    def action_window(self) -> None:
        self.window = (self.window + 1) % len(WINDOWS)
        self.query_one("#figure", Static).update("measuring…")
        self.measure()

    def action_back(self) -> None:
        self.app.pop_screen()
