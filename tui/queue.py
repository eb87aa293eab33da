"""The first screen: flagged conversations by priority (incidents, then severity), each with its reason.

Pages are read with keyset pagination in a thread worker, so a store of 100,000 conversations opens as
fast as one of 1,000 and the UI never waits on the database.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import Worker

from filon.miner.core.severity import ReviewStatus, Severity
from filon.miner.rules.flags import KINDS
from filon.miner.store.reviews import Cursor, QueueRow
from filon.tui.base import ReviewScreen, detail, remaining
from filon.tui.prompt import PromptScreen
from filon.tui.safe import literal

PAGE = 50
STATUSES: tuple[str | None, ...] = (None, *(s.value for s in ReviewStatus))
SEVERITIES: tuple[Severity | None, ...] = (None, *Severity)
SEVERITY_STYLE = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "dim"}


def lag(count: int, seconds: float) -> str:
    """The queue's delay behind production (a deferred receiver reads after it answers): said only while
    traces wait, so that a reviewer knows the newest conversations are not in the list yet."""
    if not count:
        return ""
    return f" · {count} trace(s) not read yet, oldest {elapsed(int(seconds))}"


def age(then: datetime, now: datetime) -> str:
    return elapsed(int((now - then).total_seconds()))


def elapsed(seconds: int) -> str:
    seconds = max(0, seconds)
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"  # "23m", "2h", "5d": whole in the 5 columns of 80×24
    return f"{seconds}s"


class QueueScreen(ReviewScreen):
    BINDINGS = [
        # the footer at 80×24 holds what a reviewer needs first, short; `?` says each in full (tooltip).
        # enter is the screen's (priority): the table's own enter binding, hidden, would hide it
        Binding("enter", "open", "Open", tooltip="Open the highlighted conversation", priority=True),
        Binding("c", "claim_next", "Claim", tooltip="Claim the next open one"),
        Binding("slash", "filter_flag", "Flag", tooltip="Filter by flag", show=False),  # room for g
        Binding("f", "cycle_status", "Status", tooltip="Filter by status"),
        Binding("g", "groups", "Groups", tooltip="The conversations gathered by failure, worst first"),
        Binding("v", "coverage", "Coverage", tooltip="What share of the traffic the set covers", show=False),
        Binding("s", "cycle_severity", "Filter by severity", show=False),  # in the help, like n and p
        Binding(
            "n", "next_page", "Next page", show=False
        ),  # in the help (?); the footer keeps room for q, ?, F
        Binding("p", "previous_page", "Previous page", show=False),
        Binding("r", "refresh", "Refresh", show=False),
    ]

    @dataclass
    class Loaded(Message):
        rows: list[QueueRow]
        has_more: bool
        generation: int = 0  # which load: a thread worker cancelled late still posts, and is not shown
        waiting: tuple[int, float] = (0, 0.0)  # traces not read yet by a deferred receiver, oldest's wait

    @dataclass
    class Failed(Message):
        error: str

    @dataclass
    class Claimed(Message):
        conversation_id: str | None

    def __init__(self, group: str | None = None) -> None:
        super().__init__()
        self.group = group  # a failure signature: its members only (`tui.group`)
        self.flag: str | None = None
        self.status_index = 1  # open by default
        self.severity_index = 0  # every severity
        self.cursors: list[Cursor | None] = [None]
        self.rows: list[QueueRow] = []
        self.has_more = False
        self.waiting: tuple[int, float] = (0, 0.0)
        self.wide = True
        self.width_laid = 0  # the width the columns were laid out for
        self.layout_columns: list[str] = []
        self.generation = 0  # of the last load asked for

    @property
    def status(self) -> str | None:
        return STATUSES[self.status_index]

    @property
    def severity(self) -> Severity | None:
        return SEVERITIES[self.severity_index]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="filters")
        table: DataTable[object] = DataTable(id="queue", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static(id="detail")  # the highlighted row's reason, whole: its cell has 29 characters at 80
        yield Footer()

    def on_mount(self) -> None:
        self._columns(self.app.size.width)
        self.load()

    def on_resize(self) -> None:
        if self.app.size.width != self.width_laid:
            self._columns(self.app.size.width)
            self._show()

    def _columns(self, width: int) -> None:
        """The columns for a screen this wide: the reason, the one column that explains the row, takes
        what the others leave (27 characters at 80 columns, 35 at 120, 50 at 160); under 120 columns the
        holder shows in the status column (« @alice »), the flags and holder come at 120, turns and case
        at 160. Laid out again when the terminal is resized."""
        table = self.query_one(DataTable)
        table.clear(columns=True)
        self.width_laid = width
        self.wide = width >= 120
        columns = [("severity", 8), ("conversation", 30 if width >= 160 else 22 if self.wide else 20)]
        columns += [("flags", 16)] if self.wide else []
        columns += [("turns", 5)] if width >= 160 else []
        columns += [("age", 4), ("status", 9)]
        columns += [("holder", 10)] if self.wide else []
        columns += [("case", 8)] if width >= 160 else []
        columns.insert(2, ("why", remaining(width, columns)))
        self.layout_columns = [label for label, _ in columns]
        for label, size in columns:
            table.add_column(label, width=size)

    def on_screen_resume(self) -> None:
        self.load()

    def load(self) -> Worker[None]:
        self.generation += 1
        return self.read_page(self.generation)

    @work(thread=True, exclusive=True, exit_on_error=False, group="queue")
    def read_page(self, generation: int) -> None:
        try:
            rows = self.review.store.reviews.review_queue(
                self.cursors[-1],
                PAGE + 1,
                self.flag,
                self.status,
                self.review.now(),
                self.severity,
                self.group,
                self.review.reviewer,
            )
            waiting = self.review.store.waiting()
        except Exception as exc:  # shown, never a crash
            self.post_message(self.Failed(str(exc)))
            return
        self.post_message(self.Loaded(rows[:PAGE], len(rows) > PAGE, generation, waiting))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        if message.generation != self.generation:
            return  # a later load is on its way: these rows may predate a change the reviewer made
        self.rows, self.has_more, self.waiting = message.rows, message.has_more, message.waiting
        self._show()

    def _show(self) -> None:
        """The rows loaded, in the columns laid out for this width."""
        table = self.query_one(DataTable)
        table.clear()
        now = self.review.now()
        for row in self.rows:
            held = row.status == "claimed" and row.claimant and "holder" not in self.layout_columns
            cells = {
                "severity": Text(row.severity, style=SEVERITY_STYLE.get(row.severity, "")),
                "conversation": literal(row.conversation_id),
                "why": literal(row.reason),
                "flags": literal(", ".join(row.flags)),
                "turns": str(row.turns),
                "age": age(row.last_at, now),
                "status": literal(f"@{row.claimant}") if held else row.status,  # who holds it, at 80
                "holder": literal(row.claimant or ""),
                "case": literal(row.case_id or ""),
            }
            table.add_row(*(cells[c] for c in self.layout_columns), key=row.conversation_id)
        self._filters(len(self.rows))
        self._detail()

    @on(DataTable.RowHighlighted)
    def _detail(self) -> None:
        detail(self.query_one(DataTable), [r.reason for r in self.rows], "why")

    def _filters(self, shown: int) -> None:
        page = len(self.cursors)
        self.query_one("#filters", Static).update(
            f"flag: {self.flag or 'all'} · severity: {f'{self.severity}+' if self.severity else 'all'}"
            f" · status: {self.status or 'all'} · page {page}"
            + (" · more: n" if self.has_more else "")
            + f" · {shown} shown"
            + lag(*self.waiting)
        )

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        self.notify(f"cannot read the store: {message.error}", severity="error")

    def selected(self) -> str | None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row].conversation_id

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        conversation_id = self.selected()
        if conversation_id:
            self.review.open_conversation(conversation_id)

    def action_filter_flag(self) -> None:
        def chosen(value: str | None) -> None:
            if value is None:
                return
            value = value.strip()
            if value and value not in KINDS:
                self.notify(f"unknown flag {value!r}: one of {', '.join(KINDS)}", severity="warning")
                return
            self.flag = value or None
            self.cursors = [None]
            self.load()

        self.app.push_screen(
            PromptScreen(f"Flag kind ({', '.join(KINDS)}), empty for all:", self.flag or ""), chosen
        )

    def action_cycle_status(self) -> None:
        self.status_index = (self.status_index + 1) % len(STATUSES)
        self.cursors = [None]
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="claim")
    def action_claim_next(self) -> None:
        """The store hands out the next open conversation (`claim_next`: on PostgreSQL, `FOR UPDATE SKIP
        LOCKED`, so two reviewers pressing c at once get two different ones)."""
        try:
            claimed = self.review.store.reviews.claim_next(self.review.reviewer, now=self.review.now())
        except Exception as exc:  # shown, never a crash
            self.post_message(self.Failed(str(exc)))
            return
        self.post_message(self.Claimed(claimed))

    @on(Claimed)
    def _claimed(self, message: Claimed) -> None:
        if message.conversation_id is None:
            self.notify("nothing open to claim", severity="warning")
            return
        self.review.held.add(message.conversation_id)
        self.review.open_conversation(message.conversation_id)

    def action_cycle_severity(self) -> None:
        """All, then critical, high and above, medium and above, low and above."""
        self.severity_index = (self.severity_index + 1) % len(SEVERITIES)
        self.cursors = [None]
        self.load()

    def action_next_page(self) -> None:
        if self.has_more and self.rows:
            self.cursors.append(self.rows[-1].cursor)
            self.load()

    def action_previous_page(self) -> None:
        if len(self.cursors) > 1:
            self.cursors.pop()
            self.load()

    def action_refresh(self) -> None:
        self.load()

    def action_groups(self) -> None:
        from filon.tui.groups import GroupsScreen

        self.app.push_screen(GroupsScreen())

    def action_coverage(self) -> None:
        from filon.tui.coverage import CoverageScreen

        self.app.push_screen(CoverageScreen())
