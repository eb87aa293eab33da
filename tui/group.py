"""One failure group's conversations, and one verdict for all of them.

The members are the queue's rows for one signature (`QueueScreen` filtered), the representative first.
`x` dismisses every open member with one reason; `d` drafts a case from the highlighted member (the
representative, unless another is chosen) and, once the case is saved, offers to mark the other open
members covered by it. Either says how many it changed, and `u` gives them back. The verdict touches the
members the reviewer was shown: if the group gained open members meanwhile, nothing is applied and the
question is asked again with the new count. Incidents are left open, to be reviewed one by one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import Worker

from miner.group_review import GroupVerdict
from miner.groups import FailureGroup
from tui.confirm import ConfirmScreen
from tui.prompt import PromptScreen
from tui.queue import QueueScreen
from tui.safe import line


class GroupScreen(QueueScreen):
    BINDINGS = [
        Binding("x", "dismiss_group", "Dismiss all", tooltip="Dismiss every open conversation of the group"),
        Binding(
            "d",
            "draft_group",
            "Draft for all",
            tooltip="Draft one case from the highlighted conversation; the others are then marked covered",
        ),
        Binding("u", "undo", "Undo", tooltip="Give back what the last group verdict changed"),
        # the queue's filters and escape stay (in the help); the footer's room goes to the verdicts
        Binding("escape", "back", "Back", tooltip="Back to the groups", show=False),
        Binding("slash", "filter_flag", "Flag", tooltip="Filter by flag", show=False),
        Binding("f", "cycle_status", "Status", tooltip="Filter by status", show=False),
    ]
    NOT_HERE = ("claim_next", "groups", "coverage")  # the whole queue's, not a group's

    @dataclass
    class Members(Message):
        ids: list[str]

    @dataclass
    class Applied(Message):
        verdict: GroupVerdict
        detail: str  # the dismissal's reason, or the conversation the covering case was drafted from
        shown: list[str]  # the members the question counted

    @dataclass
    class CaseWritten(Message):
        source: str
        case_id: str | None

    @dataclass
    class Undone(Message):
        count: int

    def __init__(self, group: FailureGroup) -> None:
        super().__init__(group.signature)
        self.failure = group
        self.shown: list[str] = []  # the open members the reviewer was shown: what a verdict may touch
        self.drafting: tuple[str, datetime] | None = None  # the member a case is drafted from, and since

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(line(("group ", "bold"), self.failure.id, " · ", self.failure.signature), id="group")
        yield Static(id="filters")
        yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in self.NOT_HERE

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self.drafting is not None:
            self.written(*self.drafting)

    @work(thread=True, exclusive=True, exit_on_error=False, group="members")
    def members(self) -> None:
        """The open members this reviewer may act on, read when the page is: what the verdict is for."""
        ids = self.review.store.open_members(self.failure.signature, self.review.reviewer, self.review.now())
        self.post_message(self.Members(ids))

    def load(self) -> Worker[None]:
        self.members()
        return super().load()

    @on(Members)
    def _members(self, message: Members) -> None:
        self.shown = message.ids
        self.query_one("#group", Static).update(
            line(
                ("group ", "bold"),
                self.failure.id,
                f" · {len(message.ids)} open of {self.failure.size} · ",
                self.failure.signature,
            )
        )

    def action_dismiss_group(self) -> None:
        if not self.shown:
            self.notify("nothing open in this group", severity="warning")
            return
        shown = list(self.shown)  # what the question counts is what the verdict touches

        def reason(value: str | None) -> None:
            if value and value.strip():
                self.ask(
                    f"Dismiss the {len(shown)} open conversation(s) of this group?",
                    value.strip(),
                    None,
                    shown,
                )

        self.app.push_screen(
            PromptScreen(f"Why are these {len(shown)} conversations not worth a case?"), reason
        )

    def ask(self, question: str, detail: str, case_id: str | None, shown: list[str]) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self.apply(detail, case_id, shown)

        self.app.push_screen(ConfirmScreen(f"{question} Incidents stay open. (y / n)"), answered)

    @work(thread=True, exclusive=True, exit_on_error=False, group="verdict")
    def apply(self, detail: str, case_id: str | None, shown: list[str]) -> None:
        store, who = self.review.store, self.review.reviewer
        if case_id is None:
            verdict = store.dismiss_group(self.failure.signature, who, detail, shown)
        else:
            verdict = store.cover_group(self.failure.signature, who, case_id, shown, detail)
        self.post_message(self.Applied(verdict, detail, shown))

    @on(Applied)
    def _applied(self, message: Applied) -> None:
        verdict = message.verdict
        if verdict.stale:  # new members since it was shown: nothing was applied; asked again, all counted
            shown = [*message.shown, *verdict.new]
            count = sum(1 for i in shown if verdict.case_id is None or i != message.detail)
            self.ask(
                f"The group changed since it was shown: {len(verdict.new)} new open conversation(s). "
                f"Apply to all {count} now?",
                message.detail,
                verdict.case_id,
                shown,
            )
            return
        self.review.last_group = verdict
        what = "dismissed" if verdict.case_id is None else f"marked covered by case {verdict.case_id}"
        left = f"; {verdict.incidents} incident(s) left to review alone" if verdict.incidents else ""
        self.notify(f"{len(verdict.changed)} conversation(s) {what}{left} · u: undo", markup=False)
        self.cursors = [None]
        self.load()

    def action_draft_group(self) -> None:
        source = self.selected()
        if source is None:
            self.notify("no conversation to draft from", severity="warning")
            return
        from tui.conversation import ConversationScreen

        self.drafting = (source, datetime.now(UTC))  # the store's clock: a link written after this
        self.app.push_screen(ConversationScreen(source, draft=True))

    @work(thread=True, exclusive=True, exit_on_error=False, group="verdict")
    def written(self, source: str, since: datetime) -> None:
        self.post_message(self.CaseWritten(source, self.review.store.case_of(source, since)))

    @on(CaseWritten)
    def _case_written(self, message: CaseWritten) -> None:
        self.drafting = None
        if message.case_id is None:
            return  # the draft was left: nothing to apply
        others = [i for i in self.shown if i != message.source]
        if not others:
            self.notify(f"case {message.case_id} written; no other open conversation in the group")
            return
        self.ask(
            f"Case {message.case_id} was written from {message.source}. Mark the {len(others)} other open "
            "conversation(s) of the group covered by it?",
            message.source,
            message.case_id,
            others,
        )

    def action_undo(self) -> None:
        if self.review.last_group is None:
            self.notify("no group verdict to undo", severity="warning")
            return
        self.undo(self.review.last_group)

    @work(thread=True, exclusive=True, exit_on_error=False, group="verdict")
    def undo(self, verdict: GroupVerdict) -> None:
        self.post_message(self.Undone(self.review.store.undo_group(verdict, self.review.reviewer)))

    @on(Undone)
    def _undone(self, message: Undone) -> None:
        self.review.last_group = None
        self.notify(f"{message.count} conversation(s) open again")
        self.cursors = [None]
        self.load()

    def action_back(self) -> None:
        self.app.pop_screen()
