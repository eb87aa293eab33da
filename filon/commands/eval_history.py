"""`filon eval history [ID]`: the set's or one case's trend over recorded runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from filon.commands.common import console, fail, say

if TYPE_CHECKING:
    from filon.miner.store import HistoryRow


def history(
    case_id: Annotated[str | None, typer.Argument(help="A case id: its result in each run.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="How many runs, newest first.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
    plot: Annotated[
        bool, typer.Option("--plot/--no-plot", help="Draw the score over the runs below the table.")
    ] = True,
) -> None:
    """Show recorded eval runs, newest first: score, decision, model, prompt; then the score over the
    runs as a plot in the terminal (the set's score, or with a case id the case's pass rate), oldest left.

    Example: filon eval history cmd-04 --limit 10
    """
    from rich import box
    from rich.table import Table

    from filon.commands.traces_cmds import open_store

    if limit < 1:
        fail(say("cli.limit_at_least_one"))
    store = open_store()
    rows = store.eval_history(case_id, limit)
    if as_json:
        console.print_json(json.dumps([r.as_json() for r in rows]))
        return
    if not rows:
        if case_id and store.eval_history(None, 1):  # runs there are, none with this case: a wrong id
            fail(say("cli.no_run_of_case", id=repr(case_id)))
        console.print(say("cli.no_run", which=say("cli.replayed", id=case_id) if case_id else ""))
        return
    # what must stay whole at 80 columns (ids, dates, prompt, score) does not wrap; names may fold
    table = Table(
        title=say("cli.history_title", of=say("cli.of_case", id=case_id) if case_id else ""),
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    for column, whole in (
        ("run", True),
        ("started", True),
        ("model", False),
        ("prompt", True),
        ("score", True),
        ("decision", False),
        *([("case", True)] if case_id else []),
    ):
        table.add_column(column, overflow="fold", no_wrap=whole, min_width=None if whole else 9)
    for r in rows:
        score = f"{r.score:.0%} {r.passed}/{r.valid}" if r.score is not None else "-"
        cells = [
            r.run_id,
            r.started_at.strftime("%m-%d %H:%M"),
            r.model if r.backend in r.model else f"{r.model} ({_backend(r.backend)})",
            Path(r.prompt_path).name or r.prompt_sha256[:10],
            score,
            r.decision + (f"\n{_short(r.compared)}" if r.compared else ""),
        ]
        table.add_row(*cells, *([r.case_status or "-"] if case_id else []))
    console.print(table)
    drawn = trend(rows, case_id, console.width) if plot else None
    if drawn:
        console.print(drawn, markup=False, highlight=False, soft_wrap=True)
    if case_id:  # what reviewers said of this case on the failures screen (g)
        for v in store.reviews.verdicts(case_id):
            said = {"verdict": v.get("verdict"), "note": v.get("note"), "reviewer": v.get("reviewer")}
            console.print(say("cli.verdict_on", id=case_id, **said), markup=False)


def _backend(name: str) -> str:
    """The report's « cible » (a run through a target, not a model filon drove) said in English."""
    return "target" if name == "cible" else name


def trend(rows: list[HistoryRow], case_id: str | None, width: int) -> str | None:
    """The score (or the case's pass rate) of each run, oldest left, as plain text: no colour codes, so
    that it reads the same in a pipe or a CI log. None under two runs with a figure."""
    newest = rows[0] if rows else None
    # the set's score: one prompt on one set (a case's pass rate is read across prompts: when did it break)
    same = [r for r in rows if case_id or (newest is not None and _line_of(r) == _line_of(newest))]
    points = [(r, v) for r in reversed(same) if (v := _rate(r, case_id)) is not None]
    if len(points) < 2:
        return None
    from filon.commands.plots import percent_line

    what = say("cli.plot_case", id=case_id) if case_id else say("cli.plot_score")
    assert newest is not None
    prompt = Path(newest.prompt_path).name or newest.prompt_sha256[:10]
    which = "" if case_id else say("cli.plot_which", prompt=prompt, attempts=_line_of(newest)[1])
    return percent_line(
        [v for _, v in points],
        [r.started_at.strftime("%m-%d %H:%M") for r, _ in points],
        say("cli.plot_history", what=what, n=len(points), which=which),
        width,
    )


def _line_of(row: HistoryRow) -> tuple[str, int]:
    """What makes runs comparable on one line: the same prompt, the same number of attempts (the set's
    size times its repeats). Another prompt or another set is another line, not a dip."""
    return row.prompt_sha256, row.valid + row.errors


def _rate(row: HistoryRow, case_id: str | None) -> float | None:
    if case_id is None:
        return None if row.score is None else row.score * 100
    passed, _, valid = (row.case_status or "").partition("/")
    if not (passed.isdigit() and valid.isdigit()) or int(valid) == 0:
        return None
    return int(passed) / int(valid) * 100


def _short(compared: str) -> str:
    """Each "vs RUNID: verdict" with the id cut to six characters, one per line: they fit under the
    decision."""
    lines = []
    for one in compared.split("; "):
        run, _, verdict = one.removeprefix("vs ").partition(": ")
        lines.append(say("cli.compared_with", run=run[:6], verdict=verdict))
    return "\n".join(lines)
