"""`g` from the queue: the flagged conversations gathered by failure signature, worst first.

After a bad deploy the queue holds two hundred conversations that are one failure; here they are one row
(a group holding an incident first, then by severity, then by size), with its size, when the failure was
first and last seen, and its signature. Enter opens the group's members (how many are still open is said
there), where one verdict applies to all of them. The groups are read as ingest keeps them
(`Store.failure_groups`): the screen costs the same on a store of a thousand conversations or a million;
counting each group's open members here would not.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static

from filon.miner.core.severity import Severity
from filon.miner.store.groups import INCIDENT, FailureGroup
from filon.tui.base import ReviewScreen, detail, fitted, remaining
from filon.tui.queue import SEVERITY_STYLE, age
from filon.tui.safe import literal

SHOWN = 200  # groups on screen: past the worst two hundred, a reviewer filters by severity (traces list)


class GroupsScreen(ReviewScreen):
    BINDINGS = [
        Binding("enter", "open", "Open group", tooltip="Show the group's conversations", priority=True),
        Binding("escape", "back", "Back", tooltip="Back to the queue of conversations"),
        Binding("r", "refresh", "Refresh", show=False),
    ]

    @dataclass
    class Loaded(Message):
        groups: list[FailureGroup]

    @dataclass
    class Failed(Message):
        error: str

    def __init__(self) -> None:
        super().__init__()
        self.groups: list[FailureGroup] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("failure groups, worst first", id="filters")
        yield DataTable(id="groups", cursor_type="row", zebra_stripes=True)
        yield Static(id="detail")  # the highlighted group's signature, whole: its cell cuts it at 80
        yield Footer()

    def on_mount(self) -> None:
        table: DataTable[object] = self.query_one(DataTable)
        width = self.app.size.width
        wide = width >= 120
        columns = [("severity", 8), ("size", 6), ("last", 4)]
        columns += [("first", 5), ("representative", 26)] if wide else []
        columns.append(("signature", remaining(width, columns)))
        self.wide = wide
        self.signature_width = columns[-1][1]
        for label, size in columns:
            table.add_column(label, width=size)
        self.load()

    def on_screen_resume(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="groups")
    def load(self) -> None:
        try:
            groups = self.review.store.groups.failure_groups(Severity.LOW, SHOWN)
        except Exception as exc:  # shown, never a crash
            self.post_message(self.Failed(str(exc)))
            return
        self.post_message(self.Loaded(groups))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.groups = message.groups
        table: DataTable[object] = self.query_one(DataTable)
        table.clear()
        now = self.review.now()
        for g in message.groups:
            level = "incident" if g.priority == INCIDENT else g.severity
            table.add_row(
                Text(level, style=SEVERITY_STYLE.get(g.severity, "")),
                str(g.size),
                age(g.last_seen, now),
                *((age(g.first_seen, now), literal(g.representative)) if self.wide else ()),
                literal(fitted(g.signature, self.signature_width)),
                key=g.signature,
            )
        self._detail()
        self.query_one("#filters", Static).update(
            f"failure groups, worst first · {len(message.groups)} shown · enter: the group's conversations"
        )

    @on(Failed)
    def _failed(self, message: Failed) -> None:
        self.notify(f"cannot read the store: {message.error}", severity="error", markup=False)

    @on(DataTable.RowHighlighted)
    def _detail(self) -> None:
        whole = [f"{g.signature} (e.g. {g.representative})" for g in self.groups]
        detail(self.query_one(DataTable), whole, "failure")

    def selected(self) -> FailureGroup | None:
        table: DataTable[object] = self.query_one(DataTable)
        if not self.groups or table.cursor_row >= len(self.groups):
            return None
        return self.groups[table.cursor_row]

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        group = self.selected()
        if group is not None:
            from filon.tui.group import GroupScreen

            self.app.push_screen(GroupScreen(group))

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_refresh(self) -> None:
        self.load()
