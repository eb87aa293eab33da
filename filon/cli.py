"""The `filon` command line: a thin face over the rooms below. Slow imports wait inside each command."""

from __future__ import annotations

import inspect

import typer

from filon.commands import (
    agent_cmds,
    common,
    coverage_cmd,
    demo,
    doctor_cmds,
    eval_cmds,
    goldens_cmds,
    ingest_cmds,
    judge_cmds,
    model_cmds,
    review_cmds,
    serve_cmds,
    traces_cmds,
    trust_cmd,
)

app = typer.Typer(
    name="filon",
    help="Mine a support agent's traces into a golden set, and gate CI on it. Start with: filon demo",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.callback()(common.each_command)
app.command("demo")(demo.demo)
app.command("ask")(agent_cmds.ask)
app.command("chat")(agent_cmds.chat)
app.add_typer(model_cmds.app, name="model")
goldens_cmds.app.command("coverage")(coverage_cmd.coverage)
goldens_cmds.app.command("trust")(trust_cmd.trust_command)
app.add_typer(goldens_cmds.app, name="goldens")
app.command("traffic")(traces_cmds.traffic)
app.command("ingest")(ingest_cmds.ingest)
traces_cmds.traces_app.command("doctor")(doctor_cmds.doctor)
app.add_typer(traces_cmds.traces_app, name="traces")
app.add_typer(traces_cmds.incident_app, name="incident")
app.command("draft")(review_cmds.draft)
app.command("review")(review_cmds.review)
app.command("serve")(serve_cmds.serve)
app.add_typer(serve_cmds.db_app, name="db")
app.add_typer(eval_cmds.app, name="eval")
app.add_typer(judge_cmds.app, name="judge")


def _paragraphs(doc: str) -> str:
    """A docstring as the terminal should wrap it: the lines of a paragraph joined, an `Example:` line or a
    list item kept on its own (this typer keeps every line break of a paragraph, so a help written at 110
    columns read at 80 broke each line in two)."""
    lines = inspect.cleandoc(doc).split("\n")
    out: list[str] = []
    for line in lines:
        starts_own = not line.strip() or line.lstrip().startswith(("Example", "- ", "• ", "then:"))
        if out and out[-1].strip() and not starts_own and not out[-1].lstrip().startswith("Example"):
            out[-1] = f"{out[-1]} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def _unwrap(typer_app: typer.Typer) -> None:
    for info in typer_app.registered_commands:
        if info.callback is not None and info.callback.__doc__:
            info.callback.__doc__ = _paragraphs(info.callback.__doc__)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            callback = group.typer_instance.registered_callback
            if callback is not None and callback.callback is not None and callback.callback.__doc__:
                callback.callback.__doc__ = _paragraphs(callback.callback.__doc__)
            _unwrap(group.typer_instance)


_unwrap(app)


def _reader_left(was_pipe: bool) -> bool:
    """Whether an exit 1 is the help's console (rich's, typer's) or click finding the pipe's reader gone
    (`filon --help | head`): stdout, a pipe when filon started, now points at /dev/null or is wrapped
    by click, and none of filon's consoles saw it (they go on to the command's own exit code)."""
    import os
    import sys

    from filon.commands.common import SafeConsole

    if not was_pipe or SafeConsole.reader_left:
        return False
    if type(sys.stdout).__name__ == "PacifyFlushWrapper":
        return True
    try:
        return os.path.samestat(os.fstat(1), os.stat(os.devnull))
    except OSError:
        return False


def main() -> None:
    import os
    import stat

    from filon.miner.core.errors import StoreError
    from filon.miner.rules.config_values import ConfigError
    from filon.miner.settings import SettingsError

    try:
        was_pipe = stat.S_ISFIFO(os.fstat(1).st_mode)
    except OSError:
        was_pipe = False
    try:
        app()
    except SystemExit as exc:
        if exc.code == 1 and _reader_left(was_pipe):  # `filon --help | head`: head read what it wanted
            raise SystemExit(0) from None
        raise
    except (SettingsError, StoreError, ConfigError) as exc:  # a FILON_* variable or a filon.toml that
        # does not parse (2, bad input), a store that cannot be opened (1, as every command that opens
        # one says it): one line
        from rich.markup import escape

        from filon.commands.common import err_console, spoken

        err_console.print(f"[bold red]error:[/] {escape(spoken(exc))}", markup=True, soft_wrap=True)
        raise SystemExit(1 if isinstance(exc, StoreError) else 2) from None


if __name__ == "__main__":
    main()
