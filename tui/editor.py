"""The case editor: the draft's checks, each toggleable and editable with its origin shown, live lint
(errors block saving), `t` to try the case against the agent, `ctrl+s` to save it atomically."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Header, Input, Label, SelectionList, Static
from textual.widgets.selection_list import Selection

from filon.goldens.case.schema import Example
from filon.goldens.drafting.check import ADDABLE, Check, Origin
from filon.goldens.drafting.draft import Draft
from filon.goldens.drafting.review import SaveError, label_answer, lint_draft, save_case, try_case
from filon.goldens.set.calibration import Trial, as_example, trials
from filon.goldens.set.caseset import CaseSet, Problem, load_set, parse_case
from filon.tui.base import ReviewScreen
from filon.tui.confirm import ConfirmScreen, ask
from filon.tui.editor_view import ORIGIN_STYLE, TriedView, examples_text
from filon.tui.prompt import PromptScreen
from filon.tui.safe import line, literal


class EditorScreen(ReviewScreen):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save"),
        Binding("e", "edit_check", "Edit check"),
        Binding("t", "try_case", "Try"),
        Binding("escape", "back", "Back"),
        Binding("q", "quit_app", "Quit"),
        # listed by ? and above the examples; the footer keeps room for save, q, ? and F
        Binding("b", "example('bon')", "The conversation's answer is a good example", show=False),
        Binding("m", "example('mauvais')", "The conversation's answer is a bad example", show=False),
        Binding("n", "new_example", "Write a new example", show=False),
        Binding("a", "add_check", "Add a check (field: value)", show=False),
        Binding("x", "drop_example", "Drop the last example", show=False),
        Binding("space", "toggle_check", "Toggle the highlighted check", show=False),
        Binding("j", "label", "Label the answer on screen for a judge criterion", show=False),
    ]

    @dataclass
    class Linted(Message):
        problems: list[Problem]
        trials: list[Trial]

    @dataclass
    class Tried(Message):
        text: str
        ok: bool
        answer: dict[str, Any] | None = None  # the agent's answer, as an example would hold it

    @dataclass
    class Saved(Message):
        path: str | None
        error: str | None

    def __init__(self, draft: Draft, conversation_id: str | None, replacing: str | None = None) -> None:
        super().__init__()
        self.draft = draft
        self.conversation_id = conversation_id
        self.replacing = replacing  # the id of the case being corrected: saved over, atomically
        self.existing: CaseSet | None = None
        self.problems: list[Problem] = []
        self.opened = ""
        self.on_screen: dict[str, Any] | None = draft.observed  # the answer `j` labels: the last tried one

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll():
            yield Label("case id")
            yield Input(value=self.draft.id, id="case-id", select_on_focus=False)  # tab must not wipe the id
            yield Static(self._summary(), id="summary")
            yield Label("checks (space toggles, e edits) — actions first, facts next, words last")
            yield SelectionList[int](*self._selections(), id="checks")
            yield Label("examples (b / m: the conversation's answer is good / bad, n: write one)")
            yield Static(id="examples")
            yield Static(id="lint")
            yield TriedView(id="tried")
        yield Footer()

    def _summary(self) -> Text:
        d = self.draft
        tel = f" · tel {d.tel}" if d.tel else ""
        out = line((f"{d.categorie} · {d.canal}{tel}\n", "bold"))
        for i, tour in enumerate(d.tours, 1):
            out.append_text(line((f"turn {i}: ", "cyan"), tour, "\n"))
        if d.notes:
            out.append_text(literal(d.notes, "italic"))
        return out

    def _selections(self) -> list[Selection[int]]:
        out = []
        for i, check in enumerate(self.draft.checks):
            prompt = line(
                (f"[{check.origin}] ", ORIGIN_STYLE[check.origin]),
                check.label(),
                (f"  — {check.why}" if check.why else "", "dim"),
            )
            out.append(Selection(prompt, i, check.enabled))
        return out

    def on_mount(self) -> None:
        self.opened = json.dumps(self.case(), sort_keys=True, ensure_ascii=False)  # to know what changed
        self.relint()

    def case(self) -> dict[str, Any]:
        self.draft.id = self.query_one("#case-id", Input).value.strip()
        return self.draft.case()

    @on(Input.Changed, "#case-id")
    def _id_changed(self) -> None:
        self.relint()

    @on(SelectionList.SelectedChanged)
    def _toggled(self, event: SelectionList.SelectedChanged[int]) -> None:
        chosen = set(event.selection_list.selected)
        for i, check in enumerate(self.draft.checks):
            check.enabled = i in chosen
        self.relint()

    def relint(self) -> None:
        self.lint(self.case())

    @work(thread=True, exclusive=True, exit_on_error=False, group="lint")
    def lint(self, case: dict[str, Any]) -> None:
        if self.existing is None:  # read once, in this worker; saving reads the folder afresh
            self.existing = load_set(self.review.goldens) if self.review.goldens.is_dir() else None
        problems = lint_draft(case, self.review.goldens, self.replacing, self.existing)
        parsed, _ = parse_case("draft.json", json.dumps(case, ensure_ascii=False))
        self.post_message(self.Linted(problems, trials(parsed) if parsed else []))

    @on(Linted)
    def _linted(self, message: Linted) -> None:
        self.problems = message.problems
        self.query_one("#examples", Static).update(examples_text(message.trials))
        if not message.problems:
            self.query_one("#lint", Static).update(Text("lint: clean", style="green"))
            return
        text = Text()
        for p in message.problems:
            text.append_text(
                line(
                    (f"{p.level}: ", "bold red" if p.level == "error" else "yellow"),
                    f"{p.field}: {p.message}\n",
                )
            )
        self.query_one("#lint", Static).update(text)

    def action_edit_check(self) -> None:
        checks = self.query_one("#checks", SelectionList)
        index = checks.highlighted
        if index is None or index >= len(self.draft.checks):
            return
        check = self.draft.checks[index]

        def edited(value: str | None) -> None:
            if value is None:
                return
            try:
                parsed: Any = json.loads(value)
            except ValueError:
                parsed = value
            check.value = parsed
            check.origin = Origin.EDITED
            checks.clear_options()
            checks.add_options(self._selections())
            checks.highlighted = index  # the list keeps its place: the next e edits the next check
            checks.focus()
            self.relint()

        self.app.push_screen(
            PromptScreen(f"New value for {check.field} (JSON):", json.dumps(check.value, ensure_ascii=False)),
            edited,
        )

    def action_example(self, verdict: str) -> None:
        wrong = self.draft.observed_wrong
        if verdict == "bon" and wrong is not None:  # a leak kept as a good example would teach the gate it
            self.notify(
                f"not a good example: {wrong} (m keeps it as a bad one)", severity="error", markup=False
            )
            return
        if not self.draft.add_observed(verdict):
            self.notify("no answer of the conversation to add", severity="warning")
            return
        self.relint()

    def action_new_example(self, typed: str = "bon: ") -> None:
        """A written example, `bon: …` or `mauvais: …` (`good:`/`bad:` too); asked again, kept, if unsaid."""
        verdicts = {"bon": "bon", "good": "bon", "mauvais": "mauvais", "bad": "mauvais"}

        def written(value: str | None) -> None:
            if not value or not value.strip():
                return
            word, sep, text = value.partition(":")
            verdict = verdicts.get(word.strip().lower())
            if not sep or verdict is None or not text.strip():
                self.notify("start with 'bon:' or 'mauvais:' (good:, bad:)", severity="error")
                self.action_new_example(value)
                return
            self.draft.exemples.append(
                Example.model_validate({"verdict": verdict, "reponse": text.strip(), "origine": "écrit"})
            )
            self.relint()

        question = "New example, 'bon: …' or 'mauvais: …' (tools: the case's own)"
        self.app.push_screen(PromptScreen(question, typed), written)

    def action_add_check(self) -> None:
        def added(value: str | None) -> None:
            if not value or not value.strip():
                return
            name, sep, raw = value.partition(":")
            field = next((f for f in ADDABLE if f == name.strip()), None)
            if not sep or field is None:
                self.notify("write 'field: value', e.g. ne_contient_pas: \"Martin\"", severity="error")
                return
            try:
                parsed: Any = json.loads(raw)
            except ValueError:
                parsed = raw.strip()
            self.draft.checks.append(Check(field, parsed, Origin.EDITED, "added by the reviewer"))
            checks = self.query_one("#checks", SelectionList)
            checks.clear_options()
            checks.add_options(self._selections())
            checks.highlighted = len(self.draft.checks) - 1
            self.relint()

        self.app.push_screen(
            PromptScreen(
                'New check, e.g. ne_contient_pas: "Martin" or outils_interdits: "consulter_commande"'
            ),
            added,
        )

    def action_drop_example(self) -> None:
        if not self.draft.exemples:
            self.notify("no example to drop", severity="warning")
            return
        dropped = self.draft.exemples.pop()
        self.notify(f"dropped the last example ({dropped.verdict})")
        self.relint()

    def action_toggle_check(self) -> None:
        checks = self.query_one("#checks", SelectionList)
        if checks.highlighted is not None:
            checks.toggle(checks.get_option_at_index(checks.highlighted).value)

    def action_try_case(self) -> None:
        tried = self.query_one("#tried", Static)
        tried.update(Text("trying the case against the agent…", style="italic"))
        tried.scroll_visible()  # below the checks on a small screen: brought into view, not left unseen
        self.attempt(self.case())

    @work(thread=True, exclusive=True, exit_on_error=False, group="try")
    def attempt(self, case: dict[str, Any]) -> None:
        try:
            tried = try_case(case, self.review.backend, self.review.prompt, folder=self.review.goldens)
        except Exception as exc:
            self.post_message(self.Tried(f"could not try it: {exc}", False))
            return
        result, ran_on = tried.attempt, tried.ran_on()
        answer = as_example(result.transcript)
        if result.not_runnable or result.error:  # said in the screen's language
            why = "not runnable" if result.not_runnable else "infrastructure error"
            said = result.say(result.not_runnable or result.error or "", "en")
            self.post_message(self.Tried(f"{ran_on}\n{why}: {said}", False))
        elif result.gaps:
            gaps = "\n".join(result.say(g, "en") for g in result.gaps)  # the screen's language
            said = f"{ran_on}\nfails:\n{gaps}\ntools: {', '.join(result.tools) or '-'}"
            self.post_message(self.Tried(said, False, answer))
        else:
            self.post_message(
                self.Tried(f"{ran_on}\npasses — tools: {', '.join(result.tools) or '-'}", True, answer)
            )

    @on(Tried)
    def _tried(self, message: Tried) -> None:
        if message.answer is not None:
            self.on_screen = message.answer
        self.query_one("#tried", TriedView).show(literal(message.text, "green" if message.ok else "red"))
        self.notify(
            "the case passes on this agent" if message.ok else "the case fails on this agent (below)",
            severity="information" if message.ok else "warning",
        )

    def action_label(self) -> None:
        answer = self.on_screen
        if answer is None:
            self.notify("no answer on screen: t tries the case", severity="warning")
            return

        def labelled(value: str | None) -> None:
            if not value or not value.strip():
                return
            critere, _, verdict = value.partition(":")
            try:
                said = label_answer(
                    self.draft,
                    answer,
                    critere.strip(),
                    verdict.strip(),
                    self.review.reviewer,
                    date.today(),
                    self.review.goldens,
                )
            except ValueError as exc:
                self.notify(str(exc), severity="error")
                return
            self.notify(said)
            self.relint()

        self.app.push_screen(
            PromptScreen("Label the answer on screen, 'criterion: bon' or 'criterion: mauvais'"), labelled
        )

    def action_save(self) -> None:
        errors = [p for p in self.problems if p.level == "error"]
        if errors:
            self.notify(
                f"lint errors block saving: {errors[0].field}: {errors[0].message} "
                "(a adds a check, e edits one, x drops the last example)",
                severity="error",
            )
            return
        refused = [p for p in self.problems if p.refused_by_ci and p.level == "warning"]
        if not refused:
            self.store_case(self.case())
            return
        case = self.case()

        def answered(yes: bool | None) -> None:
            if yes:
                self.store_case(case)

        why = "; ".join(p.message for p in refused)
        # the conversation's answer is offered as a good example only where it is not what the case refuses
        keys = (
            "n writes an example (bon: … or mauvais: …)"
            if self.draft.observed_wrong is not None
            else "b adds the conversation's answer as a good example, n writes one (bon: … or mauvais: …)"
        )
        self.app.push_screen(
            ConfirmScreen(
                f"CI (lint --strict) would refuse this case: {why}.\nBack in the editor, {keys}.\n"
                "Save it anyway? (y / n)"
            ),
            answered,
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="save")
    def store_case(self, case: dict[str, Any]) -> None:
        try:
            path = save_case(
                self.review.store, case, self.review.reviewer, self.review.goldens, self.replacing
            )
        except (SaveError, OSError) as exc:
            self.post_message(self.Saved(None, str(exc)))
            return
        self.post_message(self.Saved(str(path), None))

    @on(Saved)
    def _saved(self, message: Saved) -> None:
        if message.error:
            self.notify(f"not saved: {message.error}", severity="error")
            return
        short = [p.message for p in self.problems if p.field == "exemples" or "nearly repeats" in p.message]
        if short:  # saved, but the CI of the set (lint --strict) will ask for these
            self.notify(
                f"saved {message.path} — before CI's lint --strict: {'; '.join(short)}", severity="warning"
            )
        else:
            self.notify(f"saved {message.path}")
        self.app.pop_screen()
        if self.conversation_id and len(self.app.screen_stack) > 2:
            self.app.pop_screen()  # back to the queue: the conversation is done

    def _leave(self, question: str, then: Callable[[], object]) -> None:
        """`then` at once when the case has no edits, else only after a yes to `question`."""
        same = json.dumps(self.case(), sort_keys=True, ensure_ascii=False) == self.opened
        then() if same else ask(self.app, question, then)

    def action_quit_app(self) -> None:
        """q: the app's quit, asked first when the case has edits (it quit at once, the draft lost)."""
        quit_app = lambda: self.app.call_later(self.app.action_quit)  # noqa: E731 (the claims given back)
        self._leave("Quit and lose your edits to this case? (y / n)", quit_app)

    def action_back(self) -> None:
        self._leave("Discard your edits to this case? (y / n)", self.app.pop_screen)
