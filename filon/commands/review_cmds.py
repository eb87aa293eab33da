"""`filon draft` and `filon review`: from a flagged conversation to a reference case."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from filon.commands.common import (
    BackendOpt,
    ConversationArg,
    Exit,
    PromptOpt,
    console,
    err_console,
    fail,
    say,
)
from filon.commands.common import conversation_id as typed_id


def draft(
    conversation_id: ConversationArg,
    case_id: Annotated[
        str | None, typer.Option("--id", help="Case id (default: a free <prefix>-NN).")
    ] = None,
    write: Annotated[
        bool, typer.Option("--write", help="Save it in FILON_GOLDENS (lint first, never over an id).")
    ] = False,
    reviewer: Annotated[
        str, typer.Option("--reviewer", help="Who validates it (recorded in source).")
    ] = "cli",
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="With --write: write it even while another reviewer holds the conversation."
        ),
    ] = False,
    proposed: Annotated[
        bool,
        typer.Option(
            "--proposed",
            help="Turn on the checks proposed off (marked off): what a conversation that changed nothing "
            "read, its hand-over, the facts it told.",
        ),
    ] = False,
) -> None:
    """Draft a golden case from a conversation: actions first, facts next, words last. With --write, the
    draft takes the conversation's claim as a reviewer in the TUI does (refused while another holds it,
    unless --force), and the case is linked to its source, which `filon db prune` then never deletes.

    Example: filon draft web:traffic-2-25 --id adv-06 --write
    """
    from rich.markup import escape

    from filon.commands.traces_cmds import no_conversation, open_store
    from filon.goldens.case.schema import id_problem
    from filon.goldens.drafting.review import SaveError, lint_draft, make_draft, save_case

    if case_id is not None and (wrong := id_problem(case_id)) is not None:
        fail(say("cli.option_problem", option="--id", problem=wrong))
    store = open_store()
    made = make_draft(store, conversation_id, reviewer, case_id)
    if made is None:
        no_conversation(store, conversation_id)
    if proposed:
        made.checks = [replace(c, enabled=True) for c in made.checks]
    case = made.case()
    for check in made.checks:
        off = "" if check.enabled else say("cli.check_off")
        why = f"  ({check.why})" if check.why else ""
        err_console.print(
            say("cli.draft_check", origin=check.origin, label=check.label(), why=why, off=off), markup=False
        )
    for line in example_lines(case):
        err_console.print(line, markup=False)
    if not write:
        console.print_json(json.dumps(case, ensure_ascii=False))
        return
    claim = store.reviews.claim(
        conversation_id, reviewer
    )  # done or dismissed already: a further case is the reviewer's call
    if claim.held_by_another and not force:
        holder = escape(claim.holder or say("cli.another_reviewer"))
        fail(
            say("cli.held_by", holder=holder, id=escape(repr(conversation_id)), status=claim.status),
            Exit.FAILED,
        )
    try:
        path = save_case(store, case, reviewer)
    except SaveError as exc:
        if claim.ok:  # nothing written: the claim goes back, others may take the conversation
            store.reviews.release(conversation_id, reviewer)
        fail(exc, Exit.FAILED)
    for problem in lint_draft(case, replacing=case["id"]):
        if problem.level == "warning":
            err_console.print(problem.line(), markup=False)
    console.print(say("cli.wrote", path=path), markup=False)


def agreement(agrees: bool, verdict: str) -> str:
    """Whether a case's checks agree with one of its examples, in lint's words (docs/cases.md): « ok »,
    « trop strict » (they fail a good answer) or « trop lâche » (they pass a bad one)."""
    return "ok" if agrees else ("trop strict" if verdict == "bon" else "trop lâche")


def example_lines(case: dict[str, Any]) -> list[str]:
    """Each example of a draft, and whether the checks agree with its verdict."""
    from filon.goldens.set.calibration import trials
    from filon.goldens.set.caseset import parse_case

    parsed, _ = parse_case(f"{case.get('id')}.json", json.dumps(case, ensure_ascii=False))
    if parsed is None:
        return []
    out = []
    for t in trials(parsed):
        agrees = agreement(t.agrees, t.example.verdict)
        text = " / ".join(t.example.answers())
        out.append(
            say(
                "cli.draft_example",
                verdict=t.example.verdict,
                origin=t.example.origine,
                agrees=agrees,
                text=text[:100],
            )
        )
    return out


def review(
    conversation: Annotated[
        str | None,
        typer.Option("--conversation", help="Open this conversation directly.", callback=typed_id),
    ] = None,
    reviewer: Annotated[str | None, typer.Option("--reviewer", help="Your name (default: $USER).")] = None,
    backend: BackendOpt = "gemini",
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Eval report read by the failures screen (F) (default FILON_HOME/eval-rapport.json).",
        ),
    ] = None,
    prompt: PromptOpt = None,
) -> None:
    """The review TUI: the queue of flagged conversations, a conversation, the case editor, failures.

    `t` in the editor tries the case with --prompt (default agent/prompts/system.md) and says which
    prompt, model and target it ran: show a case reproduces an incident (fails on court.md) and that the
    fix holds (passes on system.md) without leaving the TUI.

    Example: filon review --reviewer alice --backend scripted
    Example: filon review --backend scripted --prompt agent/prompts/court.md
    """
    import getpass
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):  # a script, nohup, CI: no one to type
        fail(say("cli.needs_terminal"))
    from filon.commands.traces_cmds import open_store
    from filon.tui.app import ReviewApp

    store = open_store()
    name = reviewer or getpass.getuser() or "reviewer"
    if prompt is not None:
        from filon.agent.prompts import load_prompt

        try:
            load_prompt(prompt)
        except FileNotFoundError as exc:
            fail(say("cli.option_problem", option="--prompt", problem=exc))
    app = ReviewApp(
        store, reviewer=name, backend=backend, report=report, conversation=conversation, prompt=prompt
    )
    try:
        app.run()
    finally:  # however the app ended (a crash, a signal), its claims go back to the queue
        app.release_all()
