"""`F`: the failing cases of the last eval report, with what the agent did and the FAQ/CGV passages
closest to the question, and the seeds' first lesson as two answers: the case is wrong (`w`, opens it in
the editor) or the agent regressed (`g`, recorded with a note)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static

from filon.goldens.drafting.review import Failure, ReportMissing, draft_from_case, failures, keep_regression
from filon.tui.base import ReviewScreen
from filon.tui.prompt import PromptScreen
from filon.tui.safe import line


class FailuresScreen(ReviewScreen):
    BINDINGS = [
        Binding(
            "w",
            "case_wrong",
            "Case wrong",
            tooltip="The case is wrong: edit it, this answer as a good example",
        ),
        Binding("g", "regression", "Agent regressed", tooltip="The agent regressed: record it with a note"),
        Binding("escape", "back", "Back"),
    ]

    @dataclass
    class Loaded(Message):
        failures: list[Failure]
        error: str | None
        header: str = ""
        verdicts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def __init__(self, report: Path) -> None:
        super().__init__()
        self.report = report
        self.items: list[Failure] = []
        self.verdicts: dict[str, list[dict[str, Any]]] = {}
        self.wide = True

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"failures in {self.report}", id="status")
        table: DataTable[object] = DataTable(id="failures", cursor_type="row")
        yield table
        yield VerticalScroll(Static(id="detail"))
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        wide = self.app.size.width >= 120  # at 80 columns the gap matters more than the tools (in the detail)
        self.wide = wide
        columns = (
            [("case", 12), ("category", 10)]
            + ([("tools", 40)] if wide else [])
            + [("first gap", 50 if wide else 52)]
        )
        for label, width in columns:
            table.add_column(label, width=width)
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self) -> None:
        try:
            header, items = failures(self.report)
        except ReportMissing as exc:
            self.post_message(self.Loaded([], str(exc)))
            return
        except (OSError, ValueError, KeyError) as exc:
            self.post_message(self.Loaded([], f"cannot read {self.report}: {exc}"))
            return
        verdicts = {f.case_id: self.review.store.reviews.verdicts(f.case_id) for f in items}
        self.post_message(self.Loaded(items, None, header, verdicts))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.items = message.failures
        self.verdicts = message.verdicts
        status = message.error or f"{len(self.items)} failing case(s) in {self.report} · {message.header}"
        self.query_one("#status", Static).update(Text(status))
        table = self.query_one(DataTable)
        for f in self.items:
            table.add_row(
                f.case_id,
                f.categorie,
                *([", ".join(f.tools) or "-"] if self.wide else []),
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
        text.append_text(line(("gaps: ", "bold red"), "; ".join(f.gaps), "\n"))
        if f.forbidden:  # a blocking case: what it must never say or do, not policy passages
            text.append_text(line(("forbidden by the case:", "bold"), "\n"))
            for item in f.forbidden:
                text.append_text(line("  • ", item, "\n"))
        else:
            text.append_text(line(("closest FAQ/CGV:", "bold"), "\n"))
            for passage in f.passages:
                text.append_text(line("  • ", passage, "\n"))
        for v in self.verdicts.get(f.case_id, []):
            text.append_text(
                line(
                    ("verdict: ", "bold"), f"{v.get('verdict')} — {v.get('note')} ({v.get('reviewer')})", "\n"
                )
            )
        self.query_one("#detail", Static).update(text)

    def action_case_wrong(self) -> None:
        f = self.current()
        if f is None:
            return
        path = Path(self.review.goldens) / f"{f.case_id}.json"
        if not path.exists():
            self.notify(f"{path} not found", severity="error")
            return
        from filon.tui.editor import EditorScreen

        self.app.push_screen(EditorScreen(draft_from_case(path, f), None, replacing=f.case_id))

    def action_regression(self) -> None:
        f = self.current()
        if f is None:
            return

        def noted(note: str | None) -> None:
            if note is not None:
                self.record_verdict(f, note)

        self.app.push_screen(PromptScreen(f"Agent regression on {f.case_id}: note"), noted)

    @dataclass
    class Recorded(Message):
        case_id: str
        verdict: dict[str, Any]
        error: str | None = None
        kept: str = ""  # what became of the answer as an example of the case

    @work(thread=True, exclusive=False, exit_on_error=False, group="verdict")
    def record_verdict(self, failure: Failure, note: str) -> None:
        case_id = failure.case_id
        verdict = {"verdict": "agent regression", "note": note, "reviewer": self.review.reviewer}
        try:
            self.review.store.reviews.record_verdict(case_id, "agent regression", note, self.review.reviewer)
        except Exception as exc:  # the store is down: say so, keep the screen
            self.post_message(self.Recorded(case_id, verdict, str(exc)))
            return
        kept = keep_regression(Path(self.review.goldens), failure, note, self.review.reviewer)
        self.post_message(self.Recorded(case_id, verdict, kept=kept))

    @on(Recorded)
    def _recorded(self, message: Recorded) -> None:
        if message.error:
            self.notify(f"{message.case_id}: not recorded: {message.error}", severity="error")
            return
        self.verdicts.setdefault(message.case_id, []).append(message.verdict)
        self.notify(f"{message.case_id}: agent regression recorded; {message.kept}")
        self._show()

    def action_back(self) -> None:
        self.app.pop_screen()
