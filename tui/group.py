"""One failure group's conversations, and one verdict for all of them.

The members are the queue's rows for one signature (`QueueScreen` filtered), the representative first.
`x` dismisses every open member with one reason; `d` drafts a case from the highlighted member (the
representative, unless another is chosen) and, once the case is saved, offers to mark the other open
members covered by it. Either says how many it changed, and `u` gives them back. The verdict touches the
members the question counted: if the group gained open members meanwhile, nothing is applied and the
question is asked again with the new count. Incidents are left open, to be reviewed one by one, and the
questions count them apart. While a verdict is being applied the screen stays (escape and `u` wait), so
its outcome is always said and its undo always kept.
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

from filon.miner.store.group_review import GroupVerdict, OpenMembers
from filon.miner.store.groups import FailureGroup, group_id
from filon.tui.confirm import ConfirmScreen
from filon.tui.prompt import PromptScreen
from filon.tui.queue import QueueScreen
from filon.tui.safe import line


class GroupScreen(QueueScreen):
    BINDINGS = [
        Binding("x", "dismiss_group", "Dismiss all", tooltip="Dismiss every open conversation of the group"),
        Binding(
            "d",
            "draft_group",
            "Draft for all",
            tooltip="Draft one case from the highlighted conversation; the others are then marked covered",
        ),
        Binding("u", "undo", "Undo", tooltip="Give back what the last verdict on this group changed"),
        # the queue's filters and escape stay (in the help); the footer's room goes to the verdicts
        Binding("escape", "back", "Back", tooltip="Back to the groups", show=False),
        Binding("slash", "filter_flag", "Flag", tooltip="Filter by flag", show=False),
        Binding("f", "cycle_status", "Status", tooltip="Filter by status", show=False),
    ]
    NOT_HERE = ("claim_next", "groups", "coverage")  # the whole queue's, not a group's

    @dataclass
    class Members(Message):
        members: OpenMembers
        generation: int

    @dataclass
    class Applied(Message):
        verdict: GroupVerdict
        detail: str  # the dismissal's reason, or the conversation the covering case was drafted from
        shown: OpenMembers  # the members the question counted

    @dataclass
    class CaseWritten(Message):
        source: str
        case_id: str | None

    @dataclass
    class Undone(Message):
        count: int

    @dataclass
    class StoreFailed(Message):
        what: str
        error: str
        verdict: bool = False  # the verdict's own write (or its undo) failed: it is no longer under way

    def __init__(self, group: FailureGroup) -> None:
        super().__init__(group.signature)
        self.failure = group
        self.shown = OpenMembers()  # the open members the reviewer was shown: what a verdict may touch
        self.drafting: tuple[str, datetime] | None = None  # the member a case is drafted from, and since
        self.pending = False  # a verdict is being applied

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(line(("group ", "bold"), self.failure.id, " · ", self.failure.signature), id="group")
        yield Static(id="filters")
        yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)
        yield Static(id="detail")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in self.NOT_HERE

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self.drafting is not None:
            self.written(*self.drafting)

    def load(self) -> Worker[None]:
        loading = super().load()
        self.members(self.generation)
        return loading

    @work(thread=True, exclusive=True, exit_on_error=False, group="members")
    def members(self, generation: int) -> None:
        """The open members this reviewer may act on, read when the page is: what a verdict is for."""
        try:
            found = self.review.store.reviews.open_members(
                self.failure.signature, self.review.reviewer, self.review.now()
            )
        except Exception as exc:  # said, never a crash
            self.post_message(self.StoreFailed("read the group", str(exc)))
            return
        self.post_message(self.Members(found, generation))

    @on(Members)
    def _members(self, message: Members) -> None:
        if message.generation != self.generation:
            return  # a later read is on its way
        self.shown = message.members
        incidents = f" ({len(message.members.incidents)} incident(s))" if message.members.incidents else ""
        self.query_one("#group", Static).update(
            line(
                ("group ", "bold"),
                self.failure.id,
                f" · {len(message.members.ids)} open{incidents} of {self.failure.size} · ",
                self.failure.signature,
            )
        )

    @on(StoreFailed)
    def _store_failed(self, message: StoreFailed) -> None:
        if message.verdict:  # a read failing meanwhile leaves a verdict under way as it is
            self.pending = False
        self.notify(f"could not {message.what}: {message.error}", severity="error", markup=False)

    def busy(self) -> bool:
        if self.pending:
            self.notify("a verdict on this group is being applied: a moment", severity="warning")
        return self.pending

    def action_dismiss_group(self) -> None:
        if self.busy():
            return
        shown = self.shown  # what the question counts is what the verdict touches
        if not shown.swept:
            self.notify("nothing open in this group but incidents", severity="warning")
            return

        def reason(value: str | None) -> None:
            if value and value.strip():
                self.ask(
                    f"Dismiss the {shown.swept} open conversation(s) of this group?",
                    value.strip(),
                    None,
                    shown,
                )

        self.app.push_screen(
            PromptScreen(f"Why are these {shown.swept} conversations not worth a case?"), reason
        )

    def ask(self, question: str, detail: str, case_id: str | None, shown: OpenMembers) -> None:
        def answered(yes: bool | None) -> None:
            if yes and not self.busy():
                self.pending = True
                self.apply(detail, case_id, shown)

        stay = f" {len(shown.incidents)} incident(s) stay open." if shown.incidents else ""
        self.app.push_screen(ConfirmScreen(f"{question}{stay} (y / n)"), answered)

    @work(thread=True, exclusive=True, exit_on_error=False, group="verdict")
    def apply(self, detail: str, case_id: str | None, shown: OpenMembers) -> None:
        store, who = self.review.store, self.review.reviewer
        try:
            if case_id is None:
                verdict = store.reviews.dismiss_group(self.failure.signature, who, detail, shown.ids)
            else:
                verdict = store.reviews.cover_group(self.failure.signature, who, case_id, shown.ids, detail)
        except Exception as exc:  # said, never a crash; nothing applied (one transaction)
            self.post_message(self.StoreFailed("apply the verdict", str(exc), verdict=True))
            return
        self.post_message(self.Applied(verdict, detail, shown))

    @on(Applied)
    def _applied(self, message: Applied) -> None:
        self.pending = False
        verdict = message.verdict
        if verdict.stale:  # new members since it was shown: nothing was applied; asked again, all counted
            shown = OpenMembers([*message.shown.ids, *verdict.new], set(message.shown.incidents))
            count = sum(
                1
                for i in shown.ids
                if i not in shown.incidents and (verdict.case_id is None or i != message.detail)
            )
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
        if self.busy():
            return
        source = self.selected()
        if source is None:
            self.notify("no conversation to draft from", severity="warning")
            return
        from filon.tui.conversation import ConversationScreen

        self.drafting = (source, datetime.now(UTC))  # the store's clock: a link written after this
        self.app.push_screen(ConversationScreen(source, draft=True))

    @work(thread=True, exclusive=True, exit_on_error=False, group="written")
    def written(self, source: str, since: datetime) -> None:
        try:
            case_id = self.review.store.reviews.case_of(source, since)
        except Exception as exc:  # said, never a crash
            self.post_message(self.StoreFailed("read the case written", str(exc)))
            return
        self.post_message(self.CaseWritten(source, case_id))

    @on(CaseWritten)
    def _case_written(self, message: CaseWritten) -> None:
        self.drafting = None
        if message.case_id is None:
            return  # the draft was left: nothing to apply
        shown = self.shown
        others = OpenMembers(
            [i for i in shown.ids if i != message.source], shown.incidents - {message.source}
        )
        if not others.swept:
            self.notify(f"case {message.case_id} written; no other open conversation in the group to cover")
            return
        self.ask(
            f"Case {message.case_id} was written from {message.source}. Mark the {others.swept} other open "
            "conversation(s) of the group covered by it?",
            message.source,
            message.case_id,
            others,
        )

    def action_undo(self) -> None:
        if self.busy():
            return
        last = self.review.last_group
        if last is None:
            self.notify("no group verdict to undo", severity="warning")
            return
        if last.signature != self.failure.signature:
            self.notify(
                f"the last group verdict was on group {group_id(last.signature)}: undo it from there",
                severity="warning",
            )
            return
        self.pending = True
        self.undo(last)

    @work(thread=True, exclusive=True, exit_on_error=False, group="verdict")
    def undo(self, verdict: GroupVerdict) -> None:
        try:
            count = self.review.store.reviews.undo_group(verdict, self.review.reviewer)
        except Exception as exc:  # said, never a crash
            self.post_message(self.StoreFailed("undo the verdict", str(exc), verdict=True))
            return
        self.post_message(self.Undone(count))

    @on(Undone)
    def _undone(self, message: Undone) -> None:
        self.pending = False
        self.review.last_group = None
        self.notify(f"{message.count} conversation(s) of group {self.failure.id} open again")
        self.cursors = [None]
        self.load()

    def action_back(self) -> None:
        if not self.busy():
            self.app.pop_screen()
