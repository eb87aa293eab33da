"""`filon demo`: the seeds' story in under a minute, on the scripted stand-in model.

Live traffic on the default prompt; then a "deploy" of the shortened prompt (`court.md`) for part of the
traffic; spans go through the real pipeline (tail sampling, flags, redaction, store); then what a
reviewer would see first, and the next command to run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from filon.commands.common import console, err_console, invocation, say, spoken

if TYPE_CHECKING:
    from filon.miner.store import Store
    from filon.miner.store.groups import FailureGroup


def demo(
    conversations: Annotated[
        int, typer.Option("--conversations", "-n", help="Conversations before the deploy.")
    ] = 60,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            help="Seed of the simulated customers (default 1: the same story and figures on every machine).",
        ),
    ] = None,
) -> None:
    """Traffic on the default prompt, a deploy of the shortened one, and what filon caught.

    Run twice on one store, the second run adds the same customers again under other conversation ids
    (`demo2-…`) beside the first's, and says so; `FILON_DB=/tmp/demo.db filon demo` starts from an empty
    store.

    Example: filon demo --conversations 60
    """
    from filon.commands.traces_cmds import open_store

    store = open_store()
    before = store.stats().counts()
    seed = 1 if seed is None else seed
    label = _unused_label(store, seed)
    if before["conversations"]:
        held = {"conversations": before["conversations"], "turns": before["turns"]}
        console.print(
            say("cli.already_holds", **held, first=f"{label}-{seed}", second=f"{label}-{seed + 1}"),
            markup=False,
        )

    console.print(
        Panel(say("cli.demo_banner"), style="yellow"),
        soft_wrap=False,
    )
    _traffic(conversations, seed, label)
    _holdings(store, before)
    top = _queue(store)
    me = invocation()
    _worst_group(store, me)
    if top:
        console.print(say("cli.demo_next", me=me, id=top[0].conversation_id), markup=False, soft_wrap=True)
    console.print(say("cli.demo_then", me=me), markup=False)
    if me != "filon":
        console.print(say("cli.demo_path"), markup=False)


def _traffic(conversations: int, seed: int, label: str) -> None:
    """Live traffic on the default prompt, then the shortened one shipped."""
    from filon.commands.pipeline import TrafficRun, run_traffic_into_store

    console.rule(say("cli.demo_step_traffic"))
    lines = run_traffic_into_store(
        TrafficRun(conversations, "scripted", "system.md", seed, label=label), err_console, "system.md"
    )
    for line in lines:
        console.print(line, markup=False)
    console.rule(say("cli.demo_step_deploy"))
    after = max(10, conversations // 2)
    lines = run_traffic_into_store(
        TrafficRun(after, "scripted", "court.md", seed + 1, label=label), err_console, "court.md"
    )
    for line in lines:
        console.print(line, markup=False)


def _holdings(store: Store, before: dict[str, int]) -> None:
    """What the store holds now, and what this run added."""
    stats = store.stats()
    counts = stats.counts()
    console.rule(say("cli.demo_step_store"))
    flags = stats.flagged_by_kind
    new = {k: counts[k] - before[k] for k in ("conversations", "turns")}
    added = say("cli.demo_added", **new) if before["conversations"] else ""
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(flags.items())) or say("cli.none")
    held = {k: counts[k] for k in ("conversations", "turns", "spans")}
    console.print(say("cli.demo_holdings", **held, added=added, kinds=kinds), markup=False)


def _queue(store: Store) -> list[Any]:
    """The top of the review queue, as a table; its rows."""
    from filon.miner.core.untrusted import one_line

    top = store.traces.list_conversations(limit=5)
    wide = console.width >= 100  # under it, the tools (in `traces show`) give their room to the why
    table = Table(title=say("cli.demo_queue"))
    table.add_column("conversation", no_wrap=True)
    table.add_column("severity")
    table.add_column("flags", ratio=1)
    if wide:
        table.add_column(
            "tools", ratio=1, overflow="fold"
        )  # a name folded whole, never cut to « suivre_coli… »
    table.add_column("why", ratio=2)  # the one column that explains the row: the most room
    for row in top:
        tools = Text(one_line(", ".join(dict.fromkeys(row.tools)) or "-"))
        cells: list[Text | str] = [Text(one_line(row.conversation_id)), row.severity, ", ".join(row.flags)]
        table.add_row(*cells, *([tools] if wide else []), Text(one_line(row.reason)))
    console.print(table, soft_wrap=False)
    return top


def _worst_group(store: Store, me: str) -> None:
    """The deploy as failures: many conversations, one to review, one case to write."""
    from filon.miner.core.untrusted import one_line

    worst = next((g for g in store.groups.failure_groups(limit=5) if g.severity), None)
    if worst is None:
        return
    group = {"size": worst.size, "signature": one_line(worst.signature), "severity": worst.severity}
    console.print(say("cli.demo_one_failure", **group, me=me), markup=False, soft_wrap=True)
    written = _one_case_for_the_group(store, worst)
    one_case = say("cli.demo_one_case", me=me, id=one_line(worst.representative))
    console.print(written or one_case, markup=False, soft_wrap=True)
    console.print(say("cli.demo_tui", me=me), markup=False, soft_wrap=True)


def _one_case_for_the_group(store: Store, group: FailureGroup) -> str | None:
    """The deploy's worst group becomes one case, drafted from its representative and written apart from
    the set (the demo's `demo-cases/` in filon's home, never the set CI gates on), the group's other open
    conversations marked covered by it. What to print (why, when the case could not be written), or None
    when the store has no conversation to draft from."""
    from filon.goldens.drafting.naming import free_id, free_tel
    from filon.goldens.drafting.review import SaveError, make_draft, save_case
    from filon.goldens.set.caseset import goldens_dir
    from filon.miner.core.untrusted import one_line
    from filon.miner.settings import settings

    folder = settings().home_folder() / "demo-cases"
    folder.mkdir(parents=True, exist_ok=True)
    earlier = _earlier_case(store, group, folder)
    if earlier is not None:  # a second demo: the first's case covers the same failure, no copy of it
        others = store.reviews.open_members(group.signature, "demo").ids
        done = store.reviews.cover_group(group.signature, "demo", earlier.stem, others, group.representative)
        return say("cli.demo_case_already", path=earlier, n=len(done.changed))
    draft = make_draft(store, group.representative, "demo", folder=goldens_dir(None))
    if draft is None:
        return None
    case = draft.case()
    if (folder / f"{case['id']}.json").exists():  # an earlier demo's: an id free in both folders
        taken = {p.stem for p in folder.glob("*.json")} | {p.stem for p in goldens_dir(None).glob("*.json")}
        case["id"] = free_id(case["categorie"], taken)
    if case.get("tel"):  # a WhatsApp case: a number no case of either folder uses (one conversation each)
        used = {json.loads(p.read_text(encoding="utf-8")).get("tel") for p in folder.glob("*.json")}
        if case["tel"] in used:
            old, case["tel"] = case["tel"], free_tel(None, used | {case["tel"]})
            for client in (case.get("fixtures") or {}).get("clients", []):
                if client.get("tel") == old:
                    client["tel"] = case["tel"]
    try:
        path = save_case(store, case, "demo", folder)
    except (SaveError, OSError) as exc:
        return say("cli.demo_case_not_written", why=one_line(spoken(exc)))
    others = store.reviews.open_members(group.signature, "demo").ids
    done = store.reviews.cover_group(group.signature, "demo", case["id"], others, group.representative)
    left = say("cli.demo_incidents_left", n=done.incidents) if done.incidents else ""
    made = {"id": one_line(group.representative), "path": path, "n": len(done.changed)}
    return say("cli.demo_case_written", **made, left=left)


def _earlier_case(store: Store, group: FailureGroup, folder: Path) -> Path | None:
    """A case an earlier demo wrote for this failure: drafted from a conversation of the same group."""
    members = {
        r.conversation_id for r in store.traces.list_conversations(limit=10_000, group=group.signature)
    }
    for path in sorted(folder.glob("*.json")):
        try:
            source = json.loads(path.read_text(encoding="utf-8")).get("source") or {}
        except (OSError, ValueError):
            continue  # not one of the demo's: left alone
        if source.get("conversation_id") in members:
            return path
    return None


def _unused_label(store: Store, seed: int) -> str:
    """`traffic` on a new store; else `demo2`, `demo3`…, the first whose conversations of this seed (and
    of its deploy, seed + 1) the store does not hold: a second demo never adds turns to the first's."""
    label, n = "traffic", 1
    while store.traces.similar_ids(f"{label}-{seed}-") or store.traces.similar_ids(f"{label}-{seed + 1}-"):
        n += 1
        label = f"demo{n}"
    return label
