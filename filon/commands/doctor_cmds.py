"""`filon traces doctor FILE…`: what filon understands of an agent's export, before anything is stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from filon.commands.common import EscalationOpt, Exit, console, fail, say
from filon.miner.rules.config import FlagConfig


def doctor(
    paths: Annotated[list[Path], typer.Argument(help="OTLP files: .pb, .json, .jsonl, optionally .gz.")],
    escalation_tool: EscalationOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list, one object per file.")] = False,
) -> None:
    """Say what filon reads in an export: the stacks detected; the share of turns with a conversation id,
    the customer's text, an answer, tool arguments and results (the tool's own, not a framework's
    wrapper), tokens; and, for what is missing, the setting or the line of code that adds it for that
    stack (the SDK's attribute limit where it cut spans); with no write_tools in filon.toml, the tools
    that change the world proposed from their names. Stores nothing. Exit 1 when a file cannot be read.

    Example: filon traces doctor my-agent-export.pb
    """
    from filon.commands.ingest_cmds import read_or_say
    from filon.tracing.doctor import diagnose, lines

    try:  # the escalation names and conversation keys ingest would use (filon.toml, then the options)
        config = FlagConfig.load(escalation_tools=escalation_tool)
    except ValueError as exc:
        fail(exc)
    for path in paths:
        if not path.exists():
            fail(say("cli.no_file", path=path), Exit.USAGE)
    docs: list[dict[str, Any]] = []
    bad = 0
    for path in paths:
        records = read_or_say(path)
        if not records:
            bad += 1
            continue
        found = diagnose(
            records,
            list(config.escalation_tools),
            config.conversation_keys,
            config.write_tools,
            config.sources,
        )
        if as_json:
            docs.append({"file": str(path), **found.as_json()})
            continue
        console.print(say("cli.file_heading", path=path), style="bold", markup=False)
        for line in lines(found):
            console.print(say("cli.indented", line=line), markup=False, soft_wrap=True)
    if as_json:
        console.print_json(json.dumps(docs, ensure_ascii=False))
    if bad:
        raise typer.Exit(int(Exit.FAILED))
