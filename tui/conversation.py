"""A conversation turn by turn: messages, tool calls (collapsible), escalation, flags, latency, tokens.

Opening it claims it for this reviewer (atomic, 5 minutes, renewed every minute by the app); another reviewer's claim makes it read-only.
`d` drafts a case from it, `x` dismisses it as not worth a case, with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.markup import escape
from textual.message import Message
from textual.widgets import Collapsible, Footer, Header, Static
from textual.worker import Worker, WorkerState

from filon.goldens.drafting.draft import Draft
from filon.goldens.drafting.review import load_conversation, make_draft
from filon.miner.core import render
from filon.miner.core.messages import Said
from filon.miner.core.model import Conversation, Flag
from filon.miner.rules.config import FlagConfig
from filon.miner.rules.flags import not_evaluated
from filon.miner.store.reviews import ClaimResult
from filon.tui.base import ReviewScreen
from filon.tui.prompt import PromptScreen
from filon.tui.safe import line


class ConversationScreen(ReviewScreen):
    BINDINGS = [
        # short labels: at 80 columns the footer holds them all with the app's (tooltips say the rest)
        Binding("d", "draft", "Draft", tooltip="Draft a case from this conversation"),
        Binding(
            "s", "draft_simulation", "Draft a simulation case (a simulated customer replays it)", show=False
        ),
        Binding("x", "dismiss_conversation", "Dismiss", tooltip="Dismiss: not worth a case"),
        Binding("escape", "back", "Back", tooltip="Back to the queue"),
    ]

    @dataclass
    class Loaded(Message):
        conversation: Conversation | None
        flags: list[Flag]
        claim: ClaimResult
        not_evaluated: list[tuple[int, str, Said]]  # (turn, rule, why): a turn production could not judge

    @dataclass
    class Drafted(Message):
        draft: Draft | None

    @dataclass
    class Done(Message):
        ok: bool
        text: str

    def __init__(self, conversation_id: str, draft: bool = False) -> None:
        super().__init__()
        self.conversation_id = conversation_id
        self.draft_on_open = draft  # drafting in one key from a group or the coverage screen
        self.claim: ClaimResult | None = None
        self.load_error: str | None = None  # why the conversation could not be loaded, when it could not

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(line(("conversation ", "bold"), self.conversation_id), id="title")
        yield VerticalScroll(id="body")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    @property
    def mine(self) -> bool:
        return bool(self.claim and self.claim.ok)

    @work(thread=True, exclusive=True, exit_on_error=False, group="conversation", name="load")
    def load(self) -> None:
        store = self.review.store
        claim = store.reviews.claim(self.conversation_id, self.review.reviewer)
        if claim.ok:
            self.review.held.add(self.conversation_id)
        loaded = load_conversation(store, self.conversation_id)
        conv, flags = loaded if loaded else (None, [])
        unknown = not_evaluated(conv.turns, FlagConfig.load()) if conv else []
        self.post_message(self.Loaded(conv, flags, claim, unknown))

    @on(Worker.StateChanged)
    def _load_failed(self, event: Worker.StateChanged) -> None:
        if event.worker.name == "load" and event.state == WorkerState.ERROR:
            self.load_error = str(event.worker.error)
            self.notify(f"could not load the conversation: {self.load_error}", severity="error", markup=False)

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.claim = message.claim
        self.refresh_bindings()  # d and x leave the footer when there is nothing to act on
        body = self.query_one("#body", VerticalScroll)
        conv = message.conversation
        if conv is None:
            body.mount(Static(line("no conversation ", repr(self.conversation_id), " in the store")))
            return
        holder = (
            ""
            if message.claim.ok
            else f" · read-only: held by {message.claim.holder} ({message.claim.status})"
        )
        self.query_one("#title", Static).update(render.title(conv.id, conv.channel, len(conv.turns), holder))
        widgets: list[Static | Collapsible] = [
            Static(render.flag_line(f.kind, f.cause, f.severity, f.turn, f.reason), classes="flag")
            for f in message.flags
        ]
        for i, turn in enumerate(conv.turns, 1):
            head = render.turn_head(i, turn.latency_ms, turn.input_tokens, turn.output_tokens)
            widgets.append(Static(Text(head, style="bold"), classes="turn-head"))
            if turn.captured:
                widgets.append(Static(render.client(turn.user), classes="user"))
            else:
                widgets.append(Static(render.not_captured(), classes="notice"))
            for call in turn.tools:
                # a Collapsible's title is markup: the tool's name (from the trace) is escaped for it
                title = escape(render.tool_title(call))
                widgets.append(Collapsible(Static(render.tool_detail(call)), title=title, collapsed=True))
            if turn.captured:
                widgets.append(Static(render.agent(turn.agent), classes="agent"))
            if turn.escalated:
                widgets.append(Static(render.escalated()))
            for _, rule, why in (u for u in message.not_evaluated if u[0] == i - 1):
                widgets.append(Static(render.not_evaluated(rule, why.render("en")), classes="notice"))
        body.mount_all(widgets)
        if self.draft_on_open:  # asked from a group or the coverage screen: held by another, it says so
            self.draft_on_open = False
            self.action_draft()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Drafting and dismissing are not offered for a conversation the store does not hold."""
        return not (action in ("draft", "draft_simulation", "dismiss_conversation") and self.missing)

    @property
    def missing(self) -> bool:
        return self.claim is not None and self.claim.status == "missing"

    def may_act(self) -> bool:
        """Whether this reviewer may draft or dismiss: the claim has come back (a key pressed while the
        conversation loads is not someone else's hold) and it is theirs."""
        if self.load_error is not None:
            self.notify(f"could not load the conversation: {self.load_error}", severity="error", markup=False)
            return False
        if self.claim is None:
            self.notify("the conversation is still loading: try again in a moment", severity="warning")
            return False
        if self.missing:
            self.notify("no such conversation in the store: nothing to draft or dismiss", severity="warning")
            return False
        if self.claim.held_by_another:
            holder = self.claim.holder or "another reviewer"
            self.notify(f"{holder} holds this conversation", severity="warning", markup=False)
            return False
        if not self.claim.ok:  # done or dismissed: a further case is the reviewer's call, said
            self.notify(
                f"already {self.claim.status} by {self.claim.holder or 'a reviewer'}: drafting anyway"
            )
        return True

    def action_draft(self) -> None:
        if self.may_act():
            self.make()

    def action_draft_simulation(self) -> None:
        if self.may_act():
            self.make(simulation=True)

    @work(thread=True, exclusive=True, exit_on_error=False, group="conversation")
    def make(self, simulation: bool = False) -> None:
        draft = make_draft(
            self.review.store,
            self.conversation_id,
            self.review.reviewer,
            folder=self.review.goldens,
            simulation=simulation,
        )
        self.post_message(self.Drafted(draft))

    @on(Drafted)
    def _drafted(self, message: Drafted) -> None:
        if message.draft is None:
            self.notify("nothing to draft", severity="error")
            return
        from filon.tui.editor import EditorScreen

        self.app.push_screen(EditorScreen(message.draft, self.conversation_id))

    def action_dismiss_conversation(self) -> None:
        if not self.may_act():
            return

        def reason(value: str | None) -> None:
            if value and value.strip():
                self.dismiss_with(value.strip())

        self.app.push_screen(PromptScreen("Why is it not worth a case?"), reason)

    @work(thread=True, exclusive=True, exit_on_error=False, group="conversation")
    def dismiss_with(self, reason: str) -> None:
        ok = self.review.store.reviews.dismiss(self.conversation_id, self.review.reviewer, reason)
        self.post_message(self.Done(ok, "dismissed" if ok else "could not dismiss: held by someone else"))

    @on(Done)
    def _done(self, message: Done) -> None:
        self.notify(message.text, severity="information" if message.ok else "error")
        if message.ok:
            self.app.pop_screen()

    def action_back(self) -> None:
        if self.mine:
            self.review.release(self.conversation_id)  # the app's worker: this screen is going away
        self.app.pop_screen()
