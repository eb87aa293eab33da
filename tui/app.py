"""`ReviewApp`: the review TUI. Screens push and pop; the store is shared, every query runs in a worker."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path

from textual.app import App
from textual.binding import Binding

from filon.goldens.set.caseset import goldens_dir
from filon.miner.settings import settings
from filon.miner.store import Store
from filon.miner.store.group_review import GroupVerdict
from filon.miner.store.reviews import HEARTBEAT
from filon.tui.base import shown_path
from filon.tui.queue import QueueScreen


class ReviewApp(App[None]):
    TITLE = "filon review"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),  # what a terminal user expects
        Binding("question_mark", "help", "Help"),
        Binding("F", "failures", "Failures"),  # of the last eval report
    ]
    CSS = """
    .flag { color: $error; }
    .turn-head { margin-top: 1; }
    #filters, #status, #lint, #tried, #detail { padding: 0 1; }
    #detail { height: auto; max-height: 3; color: $text-muted; }  /* the highlighted row, whole */
    #queue, #groups { height: 1fr; }  /* the detail line under them stays on screen */
    #checks { max-height: 12; }  /* scrolls: the examples, lint and t's result stay within reach */
    """

    def __init__(
        self,
        store: Store,
        reviewer: str = "reviewer",
        backend: str = "gemini",
        report: Path | None = None,
        conversation: str | None = None,
        goldens: Path | None = None,
        now: Callable[[], datetime] | None = None,
        prompt: str | None = None,
    ) -> None:
        super().__init__()
        self.prompt = prompt  # the system prompt `t` tries cases with (default agent/prompts/system.md)
        self.store = store
        self.reviewer = reviewer
        self.backend = backend
        self.report = report or settings().report_path()
        self.start_conversation = conversation
        self.goldens = goldens_dir(goldens)
        self.now = now or (lambda: datetime.now(UTC))
        # the prompt first: at 80 columns the end of the line is cut, and a path is the least to lose
        self.sub_title = (
            f"prompt {prompt} · " if prompt else ""
        ) + f"reviewer {reviewer} · cases in {shown_path(self.goldens)}"
        self.held: set[str] = set()  # conversations this app claimed: released on every way out
        self.last_group: GroupVerdict | None = None  # the last verdict applied to a group, for its undo

    def release_all(self) -> None:
        """Give back every claim this app holds (quit, ctrl+c, a crash): another reviewer can take them."""
        for conversation_id in list(self.held):
            self.held.discard(conversation_id)
            with suppress(Exception):  # the store is gone: the claim expires on its own (5 minutes)
                self.store.reviews.release(conversation_id, self.reviewer)

    def _heartbeat(self) -> None:
        self.run_worker(self.renew_claims, thread=True, group="heartbeat", exit_on_error=False)

    def renew_claims(self) -> list[str]:
        """Renew every claim this app holds (its claim again, by the same reviewer: five more minutes);
        the conversations whose claim is no longer this reviewer's leave `held`."""
        lost = []
        for conversation_id in list(self.held):
            if not self.store.reviews.claim(conversation_id, self.reviewer).ok:
                self.held.discard(conversation_id)
                lost.append(conversation_id)
        return lost

    def release(self, conversation_id: str) -> None:
        """Give one claim back, off the UI thread."""
        self.held.discard(conversation_id)

        def give_back() -> None:
            self.store.reviews.release(conversation_id, self.reviewer)

        self.run_worker(give_back, thread=True, group="release", exit_on_error=False)

    async def action_quit(self) -> None:
        self.release_all()
        self.exit()

    def on_mount(self) -> None:
        # the claims this app holds are renewed while it runs; killed, it stops, and they expire
        self.set_interval(HEARTBEAT.total_seconds(), self._heartbeat)
        self.run_worker(self.relink, thread=True, group="relink", exit_on_error=False)
        self.push_screen(QueueScreen())
        if self.start_conversation:
            self.open_conversation(self.start_conversation)

    def relink(self) -> list[str]:
        """Cases a killed save wrote without their link to the conversation: linked on start."""
        from filon.goldens.drafting.review import relink_written

        linked = relink_written(self.store, self.reviewer, self.goldens)
        if linked:
            said = f"linked {len(linked)} case(s) a stopped save had left unlinked: {', '.join(linked)}"
            self.call_from_thread(self.notify, said, markup=False)
        return linked

    def open_conversation(self, conversation_id: str) -> None:
        from filon.tui.conversation import ConversationScreen

        self.push_screen(ConversationScreen(conversation_id))

    def action_help(self) -> None:
        from filon.tui.help import HelpScreen

        self.push_screen(HelpScreen(self.screen))

    def action_failures(self) -> None:
        from filon.tui.failures import FailuresScreen

        self.push_screen(FailuresScreen(self.report))
