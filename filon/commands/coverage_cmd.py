"""`filon goldens coverage`: the share of production's traffic the golden set covers, by failure group,
the groups it does not cover largest first (each ready to draft), and the cases nothing matched."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from filon.commands.common import Exit, console, duration, fail, say
from filon.miner.rules.config import FlagConfig

if TYPE_CHECKING:
    from filon.goldens.case.schema import Case
    from filon.miner.store import Store


def coverage(
    folder: Annotated[
        Path | None, typer.Argument(help="Folder of cases (default FILON_GOLDENS or goldens/cases).")
    ] = None,
    since: Annotated[str, typer.Option("--since", help="The window of traffic: 7d, 12h, 90m.")] = "7d",
    limit: Annotated[int, typer.Option("--limit", help="How many uncovered groups to show.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    plot: Annotated[
        bool, typer.Option("--plot/--no-plot", help="Draw the coverage day by day (hour by hour) below.")
    ] = True,
) -> None:
    """What share of production's conversations the golden set covers, by failure group (cause, channel,
    tools in order): the groups it does not cover, largest first, each with a conversation to draft a
    case from; the cases no conversation of the window matched.

    Example: filon goldens coverage --since 7d
    Example: filon goldens coverage goldens/cases --since 24h --json
    """
    from filon.commands.traces_cmds import open_store
    from filon.goldens.set.caseset import load_set, missing_set
    from filon.goldens.set.coverage import coverage as measure
    from filon.goldens.set.coverage import percent, sources_of
    from filon.miner.core.untrusted import one_line

    window = duration(since, "--since", "cli.a_window", zero=False)
    if limit < 1:
        fail(say("cli.limit_at_least_one"))
    absent = missing_set(folder, option=None)
    if absent is not None:
        fail(absent, Exit.USAGE)
    try:
        caseset = load_set(folder)
        escalation = frozenset(FlagConfig.load().escalation_tools)
    except ValueError as exc:
        fail(exc, Exit.USAGE)
    if caseset.errors:
        fail(say("cli.set_has_errors", folder=caseset.folder), Exit.INVALID_SET)
    store = open_store()
    start = datetime.now(UTC) - window
    groups = store.groups.failure_groups(limit=None, since=start)
    if not groups:
        fail(
            say("cli.nothing_since", start=f"{start:%Y-%m-%d %H:%M}", since=since, store=store.name),
            Exit.FAILED,
        )
    sources = sources_of(store, caseset.cases)
    found = measure(caseset.cases, groups, escalation, sources)
    if as_json:
        console.print_json(json.dumps({"since": start.isoformat(), **found.as_json()}, ensure_ascii=False))
        return
    share = found.share or 0.0
    figures = {"cases": len(caseset.cases), "share": percent(share), "conversations": found.conversations}
    figures |= {"start": f"{start:%Y-%m-%d %H:%M}", "since": since, "covered": found.covered}
    console.print(say("cli.coverage", **figures), markup=False)
    if found.uncovered:
        console.print(say("cli.not_covered", n=len(found.uncovered)), markup=False)
        for g in found.uncovered[:limit]:
            console.print(
                say("cli.group_size", size=g.size, signature=one_line(g.signature)),
                markup=False,
                soft_wrap=True,
            )
            console.print(say("cli.draft_it", id=one_line(g.representative)), markup=False, soft_wrap=True)
    if found.unseen_cases:
        unseen = say("cli.unseen_cases", n=len(found.unseen_cases), ids=list(found.unseen_cases))
        console.print(unseen, markup=False, soft_wrap=True)
    if plot:
        drawn = _over_time(store, caseset.cases, escalation, sources, start, window, console.width)
        if drawn:
            console.print(drawn, markup=False, highlight=False, soft_wrap=True)
        else:
            unit = say("cli.day" if window >= timedelta(days=2) else "cli.hour")
            console.print(say("cli.no_plot", unit=unit), markup=False)


def _over_time(
    store: Store,
    cases: list[Case],
    escalation: frozenset[str],
    sources: dict[str, str],
    start: datetime,
    window: timedelta,
    width: int,
) -> str | None:
    """The coverage of each day (or hour) of the window as plain text, oldest left; None under two
    periods with traffic."""
    from filon.goldens.set.coverage import over_time

    points, daily = over_time(store, cases, escalation, sources, start, window)
    if len(points) < 2:
        return None
    from filon.commands.plots import percent_line

    label, unit = ("%m-%d", say("cli.day")) if daily else ("%d %Hh", say("cli.hour"))
    return percent_line(
        [v for _, v in points],
        [when.strftime(label) for when, _ in points],
        say("cli.plot_coverage", unit=unit),
        width,
    )
