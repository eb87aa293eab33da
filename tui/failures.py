"""`F`: the failing cases of the last eval report, with what the agent did and the FAQ/CGV passages
closest to the question, and the seeds' first lesson as two answers: the case is wrong (`w`, opens it in
the editor) or the agent regressed (`g`, recorded with a note)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static

from goldens.review import Failure, draft_from_case, failures
from tui.base import ReviewScreen
from tui.prompt import PromptScreen
from tui.safe import line


class FailuresScreen(ReviewScreen):
    BINDINGS = [
        Binding("w", "case_wrong", "The case is wrong: edit it, with this answer as a good example"),
        Binding("g", "regression", "Agent regression: record it"),
        Binding("escape", "back", "Back"),
    ]

    @dataclass
    class Loaded(Message):
        failures: list[Failure]
        error: str | None

    def __init__(self, report: Path) -> None:
        super().__init__()
        self.report = report
        self.items: list[Failure] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"failures in {self.report}", id="status")
        table: DataTable[object] = DataTable(id="failures", cursor_type="row")
        yield table
        yield VerticalScroll(Static(id="detail"))
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, width in (("case", 12), ("category", 10), ("tools", 40), ("first gap", 50)):
            table.add_column(label, width=width)
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self) -> None:
        try:
            self.post_message(self.Loaded(failures(self.report), None))
        except (OSError, ValueError, KeyError) as exc:
            self.post_message(self.Loaded([], f"cannot read {self.report}: {exc}"))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.items = message.failures
        status = message.error or f"{len(self.items)} failing case(s) in {self.report}"
        self.query_one("#status", Static).update(Text(status))
        table = self.query_one(DataTable)
        for f in self.items:
            table.add_row(
                f.case_id,
                f.categorie,
                ", ".join(f.tools) or "-",
                line(f.gaps[0] if f.gaps else ""),
                key=f.case_id,
            )
        self._show()

    def current(self) -> Failure | None:
        row = self.query_one(DataTable).cursor_row
        return self.items[row] if 0 <= row < len(self.items) else None

    @on(DataTable.RowHighlighted)
    def _show(self) -> None:
        f = self.current()
        if f is None:
            return
        text = line(
            ("question: ", "bold"),
            " / ".join(f.question),
            "\n",
            ("the agent: ", "bold"),
            ", ".join(f.tools) or "no tool",
            "\n",
        )
        for answer in f.answers:
            text.append_text(line(("  > ", "green"), answer, "\n"))
        text.append_text(
            line(("gaps: ", "bold red"), "; ".join(f.gaps), "\n", ("closest FAQ/CGV:", "bold"), "\n")
        )
        for passage in f.passages:
            text.append_text(line("  • ", passage, "\n"))
        self.query_one("#detail", Static).update(text)

    def action_case_wrong(self) -> None:
        f = self.current()
        if f is None:
            return
        path = Path(self.review.goldens) / f"{f.case_id}.json"
        if not path.exists():
            self.notify(f"{path} not found", severity="error")
            return
        from tui.editor import EditorScreen

        self.app.push_screen(EditorScreen(draft_from_case(path, f), None, replacing=f.case_id))

    def action_regression(self) -> None:
        f = self.current()
        if f is None:
            return

        def noted(note: str | None) -> None:
            if note is not None:
                self.review.store.record_verdict(f.case_id, "agent regression", note, self.review.reviewer)
                self.notify(f"{f.case_id}: agent regression recorded")

        self.app.push_screen(PromptScreen(f"Agent regression on {f.case_id}: note"), noted)

    def action_back(self) -> None:
        self.app.pop_screen()
