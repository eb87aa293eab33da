"""`filon eval show CASE`: one attempt of the last eval, turn by turn, from its report: what the five
worst attempts' commands open."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from filon.commands.common import console, console_language, fail, say

if TYPE_CHECKING:
    from collections.abc import Callable

    from filon.goldens.run.attempt import Attempt
    from filon.goldens.verdict.report_model import EvalReport
    from filon.miner.core.messages import Said


def show(
    case_id: Annotated[str, typer.Argument(help="The case id, as the report lists it.")],
    attempt: Annotated[
        int | None,
        typer.Option("--tentative", "--attempt", help="Which attempt (with --repeat); default the last."),
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option("--report", help="The eval report (default FILON_HOME/eval-rapport.json)."),
    ] = None,
    lang: Annotated[
        str | None, typer.Option("--lang", help="fr (default) or en: how the report's sentences are said.")
    ] = None,
) -> None:
    """Show one attempt of an eval run: its status, gaps and blocking rules, then each turn, the
    customer's message, the tool calls with their arguments and results, the answer.

    Example: filon eval show adv-01 --tentative 2
    Example: filon eval show adv-01 --lang en
    """
    from difflib import get_close_matches

    from filon.goldens.verdict.report_model import EvalReport
    from filon.miner.core.messages import render, said
    from filon.miner.settings import settings

    path = report or settings().report_path()
    try:
        document = EvalReport.read(path)
    except ValueError as exc:
        fail(exc)
    cases = document.by_id()
    if case_id not in cases:
        near = get_close_matches(case_id, list(cases), n=3)
        fail(
            say("cli.no_case_in_report", id=repr(case_id), path=path, held=_held(document), hint=_hint(near))
        )
    case = cases[case_id]
    tries = {a.attempt: a for a in case.attempts}
    chosen = tries.get(attempt if attempt is not None else max(tries))
    if chosen is None:
        fail(say("cli.attempts_held", attempt=attempt, id=case_id, held=sorted(tries), path=path))

    language = console_language(lang)  # the report's French, said in the console's language

    def tell(line: str | Said) -> None:
        console.print(render(line, language), markup=False, soft_wrap=True)

    def kept(text: str) -> str | Said:  # a sentence of the report, through the code it keeps beside it
        return document.codes.get(text, text)

    status = said(f"show.status.{chosen.status}")
    tell(
        said(
            "show.head",
            case=case.id,
            category=case.category,
            attempt=chosen.attempt,
            total=case.total,
            status=status,
        )
    )
    for code, items in (
        ("show.blocking_rule", chosen.blocking_rules),
        ("show.gap", chosen.gaps),
        ("show.note", chosen.notes),
    ):
        for item in items:
            tell(said(code, item=kept(item)))
    if chosen.error or chosen.not_runnable:
        tell(said("show.error", item=kept(chosen.error or chosen.not_runnable or "")))
    _turns(chosen, tell)


def _turns(chosen: Attempt, tell: Callable[[str | Said], None]) -> None:
    """Each turn: the customer's message, each call with its arguments and result, the answer."""
    from filon.miner.core.messages import said

    for n, turn in enumerate(chosen.turns, 1):
        tell(said("show.turn", turn=n))
        tell(said("show.customer", text=turn.user))
        for call in turn.tools:
            args = (
                said("show.no_arguments") if call.args is None else json.dumps(call.args, ensure_ascii=False)
            )
            outcome = (call.error or "") if call.failed else json.dumps(call.result, ensure_ascii=False)
            if len(outcome) > 300:
                outcome = outcome[:300] + say("cli.more_characters", n=len(outcome) - 300)
            shown = said("show.call_error", error=outcome) if call.failed else outcome
            tell(said("show.call", tool=call.name, args=args, outcome=shown))
        handed = said("show.handed_over") if turn.escalated else ""
        tell(said("show.agent", text=turn.agent, handed=handed))
    if not chosen.turns:  # a report written before transcripts were kept: its answers, at least
        for answer in chosen.answers:
            tell(said("show.agent", text=answer, handed=""))


def _held(document: EvalReport) -> str:
    """Which run a report holds: how many cases, when it started."""
    return say(
        "cli.report_holds", n=len(document.cases), started=document.execution.started[:16].replace("T", " ")
    )


def _hint(near: list[str]) -> str:
    return say("cli.near_cases", ids=near) if near else say("cli.report_replaced")
