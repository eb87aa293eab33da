"""What every command shares: exit codes, the one-line error, backend options."""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from filon.goldens.exits import Exit as Exit  # re-exported: the exit codes of every command
from filon.miner.core.messages import Said
from filon.miner.core.untrusted import clean
from filon.miner.rules.config import ESCALATION


class SafeConsole(Console):
    """Every command prints through one of these two: a string is cleaned of control and escape
    characters (`miner.core.untrusted.clean`: made visible, never sent raw) before it reaches the terminal,
    whichever command put trace text in it; a `Text` built from trace text without `literal` is too."""

    reader_left = False  # set when one of them found its pipe closed (`filon.cli.main` reads it)

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(_safe(o) for o in objects), **kwargs)

    def on_broken_pipe(self) -> None:
        """`filon eval | head`: the reader left. What is left to print goes nowhere (quiet, and the
        descriptor pointed at /dev/null so that the exit's flush cannot fail again) and the command goes
        on to its own exit code: rich's default, exit 1, made a passing gate piped into `head` a failed one."""
        self.quiet = True
        SafeConsole.reader_left = True  # the exit code that follows is the command's own
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, (sys.stderr if self.stderr else sys.stdout).fileno())
        except (OSError, ValueError):  # no descriptor (a test's captured stream): quiet is enough
            pass
        finally:
            os.close(null)

    @property
    def size(self) -> ConsoleDimensions:
        """The terminal's size as `COLUMNS` says now, not as it said when the module was imported: one
        process may run many commands (a test session, a shell's `filon` function), each in its own width."""
        columns = os.environ.get("COLUMNS", "")
        self._width = int(columns) if columns.isdigit() and int(columns) > 0 else None
        return super().size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size


def _safe(value: Any) -> Any:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, Text) and clean(value.plain) != value.plain:
        return Text(clean(value.plain), style=value.style, overflow=value.overflow)
    return value


console = SafeConsole(highlight=False, soft_wrap=True)
err_console = SafeConsole(stderr=True, highlight=False, soft_wrap=True)


def console_language(lang: str | None) -> str:
    """The console's language (`--lang`, else FILON_LANG): fr or en, in which the catalogue's sentences
    are said (`miner.core.messages`); a value that is neither is one line and exit 2."""
    from filon.goldens.verdict import lang as language

    if lang is not None:
        if lang not in language.LANGS:
            fail(say("cli.gate_lang", value=repr(lang)))
        os.environ[language.ENV] = lang
    try:
        language.current()
    except language.UnknownLanguage as exc:
        fail(exc)  # FILON_LANG, or another FILON_* setting that does not parse: named
    return language.current()


def progress_bar(label: str, on: Console | None = None, elapsed: bool = False) -> Progress:
    """A long job's bar (`label`, done/total, the time spent with `elapsed`), on standard error unless `on`
    says otherwise; gone when done; none where the console is not a terminal (rich's bar, stopped there,
    printed a blank line around a one-line error)."""
    shown = on or err_console
    columns: list[Any] = [TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn()]
    if elapsed:
        columns.append(TimeElapsedColumn())
    return Progress(*columns, console=shown, transient=True, disable=not shown.is_interactive)


_named: set[str] = set()


def name_store(url: str, new: bool) -> None:
    """Say once per command, on stderr, which store it reads or writes (absolute), and when it is new."""
    from filon.miner.places import where

    if url in _named:
        return
    _named.add(url)
    said = f"store: {where(url)}" + (" (new: made just now)" if new else "")
    err_console.print(said, markup=False, highlight=False, soft_wrap=True)


def each_command(ctx: typer.Context) -> None:
    """Before every command: the store it opens will be named once, while it runs."""
    from filon.miner.places import store_opened

    _named.clear()
    if name_store not in store_opened:
        store_opened.append(name_store)
        ctx.call_on_close(lambda: store_opened.remove(name_store))


CLI_LANG = "en"  # the language of filon's own commands (the gate's console has its own: `console_language`)


def spoken(exc: BaseException) -> str:
    """An error's message in the CLI's language: its sentence of the catalogue, else its text."""
    from filon.miner.core.messages import render, why

    return render(why(exc), CLI_LANG)


def told(sentence: Said) -> str:
    """A sentence made elsewhere (a banner, an outcome) in the CLI's language, escaped for markup."""
    return escape(sentence.render(CLI_LANG))


def say(code: str, /, **params: Any) -> str:
    """A line of the catalogue (`miner/core/messages.toml`) as filon's commands say it: one code with its
    values, its French beside it in the catalogue."""
    from filon.miner.core.messages import said

    return said(code, **params).render(CLI_LANG)


def fail(message: str | Said | BaseException, code: Exit = Exit.USAGE) -> NoReturn:
    """A clear one-line error on stderr, then the exit code. A string is markup whose values its maker
    escaped (`say`'s lines); a sentence of the catalogue, or an error (`messages.SaidError`: a refusal, a
    target's or a model's error; any other error's text), is said in the CLI's language, escaped here."""
    if isinstance(message, BaseException):
        message = escape(spoken(message))
    elif not isinstance(message, str):
        message = told(message)
    err_console.print(f"[bold red]error:[/] {message}", markup=True, soft_wrap=True)
    raise typer.Exit(int(code))


EscalationOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--escalation-tool",
        help="A tool name or shell-style pattern that means escalation, added to the defaults "
        f"({', '.join(ESCALATION)}, case-insensitive; filon.toml's escalation_tools replaces them). "
        "Repeatable.",
    ),
]
BackendOpt = Annotated[
    str,
    typer.Option(
        "--backend",
        help="gemini (the real model, needs GEMINI_API_KEY/GOOGLE_API_KEY or Vertex AI settings) or scripted.",
    ),
]
ModelOpt = Annotated[
    str | None, typer.Option("--model", help="Model name (default: FILON_MODEL or the agent's).")
]
ModelUrlOpt = Annotated[
    str | None,
    typer.Option("--model-url", help="URL of a running `filon model serve` (scripted backend only)."),
]
PromptOpt = Annotated[
    str | None,
    typer.Option("--prompt", help="System prompt file (default agent/prompts/system.md)."),
]


def invocation() -> str:
    """How to call filon again, as this process was called: `filon` when it is on the PATH, else its path
    (`.venv/bin/filon` after `make demo`), so that a printed next step runs as shown."""
    import os
    import shutil
    import sys

    called = sys.argv[0] if sys.argv else ""
    if os.path.basename(called) != "filon":
        return "filon"
    found = shutil.which("filon")
    if found and os.path.realpath(found) == os.path.realpath(called):
        return "filon"
    return os.path.relpath(called) if not os.path.isabs(called) or called.startswith(os.getcwd()) else called


def duration(text: str, option: str, what: str = "cli.a_duration", zero: bool = True) -> timedelta:
    """`30d`, `12h`, `90m` as a span of time (`0d` too, unless `zero` is False); one line naming the
    option otherwise (exit 2), `what` the catalogue's name for it."""
    import re

    match = re.fullmatch(r"(\d+)([dhm])", text.strip())
    if not match or (not zero and int(match.group(1)) == 0):
        fail(say("cli.not_a_duration", option=option, value=repr(text), what=say(what)))
    n, unit = int(match.group(1)), match.group(2)
    return {"d": timedelta(days=n), "h": timedelta(hours=n), "m": timedelta(minutes=n)}[unit]


def conversation_id(value: str | None) -> str | None:
    """An id as `traces list` showed it (escapes for control characters) back as stored."""
    from filon.miner.core.untrusted import as_typed

    return None if value is None else as_typed(value)


ConversationArg = Annotated[
    str,
    typer.Argument(
        help="Conversation id, as filon traces list shows it.", callback=conversation_id, show_default=False
    ),
]
