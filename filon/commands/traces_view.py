"""How `filon traces list` shows its rows: the table at any width, and the csv and jsonl exports. Text
from traces is untrusted: shown literally in the table, kept data (never a formula) in the csv."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rich import box
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from filon.commands.common import say
from filon.miner.core.untrusted import one_line

if TYPE_CHECKING:
    from filon.miner.store.groups import FailureGroup
    from filon.miner.store.traces import ConversationSummary


def _csv(rows: list[ConversationSummary]) -> None:
    """One row per conversation; text from traces stays data (a leading = + - @ is quoted for
    spreadsheets, which would run it as a formula)."""
    import csv
    import sys

    def cell(value: object) -> str:
        text = str(value)
        return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text

    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(
        [
            "conversation_id",
            "channel",
            "turns",
            "severity",
            "flags",
            "reason",
            "tools",
            "status",
            "started_at",
        ]
    )
    for r in rows:
        flags, tools = ";".join(r.flags), ";".join(dict.fromkeys(r.tools))
        values = [r.conversation_id, r.channel, r.turns, r.severity, flags, r.reason, tools, r.status]
        out.writerow([cell(v) for v in values] + [r.started_at.isoformat()])


def _jsonl(rows: list[ConversationSummary]) -> None:
    import sys

    for r in rows:
        sys.stdout.write(json.dumps(r.as_json(), ensure_ascii=False) + "\n")


EXPORTS = {"csv": _csv, "jsonl": _jsonl}


def queue_table(rows: list[ConversationSummary], width: int, title: str | None = None) -> RenderableType:
    """One conversation per row, at any width: the id is what people copy, whole. From `WIDE` columns
    the reason takes what the flag kinds and (from 160) the tools leave; narrower, each row's reason has
    a line of its own under it, indented and wrapped, never cut (a 31-column cell at 80 columns had cut
    every reason mid-word)."""
    title = title or f"{len(rows)} conversation(s)"
    ages = {r.conversation_id: _age(r.started_at) for r in rows}
    fixed = {  # as wide as their header or their widest value, no wider: the reason gets the rest
        "conversation": max([12, *(len(one_line(r.conversation_id)) for r in rows)]),  # as shown, whole
        "severity": 8,
        "status": max([6, *(len(r.status) for r in rows)]),
        "age": max([3, *(len(a) for a in ages.values())]),
    }
    if width < WIDE:  # the fixed columns on a line, the reason on the lines under it
        return _stacked(rows, title, list(fixed.items()), ages, width)
    shown = ["why", "flags", *(["tools"] if width >= 160 else [])]
    gaps = 3 * (len(fixed) + len(shown) - 1) + 2  # padding and a separator between columns, an edge each side
    budget = max(16, width - sum(fixed.values()) - gaps)
    widths = {c: budget // 5 for c in shown if c != "why"}
    widths["why"] = max(8, budget - sum(widths.values()))
    order = ["conversation", "severity", *shown, "status", "age"]
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    for column in order:
        size = fixed.get(column) or widths[column]
        table.add_column(column, no_wrap=True, overflow="ellipsis", min_width=size, max_width=size)
    for r in rows:
        cells = {
            "conversation": Text(one_line(r.conversation_id)),
            "severity": Text(r.severity or "-", style=SEVERITY_STYLE.get(r.severity, "")),
            "why": Text(one_line(r.reason or "-")),
            "flags": Text(", ".join(r.flags) or "-"),
            "tools": Text(one_line(", ".join(dict.fromkeys(r.tools)) or "-")),
            "status": Text(r.status),
            "age": Text(ages[r.conversation_id]),
        }
        for column in ("why", "flags", "tools"):
            cells[column].truncate(widths.get(column, 0), overflow="ellipsis")
        table.add_row(*(cells[c] for c in order))
    return table


def _stacked(
    rows: list[ConversationSummary],
    title: str,
    columns: list[tuple[str, int]],
    ages: dict[str, str],
    width: int,
) -> RenderableType:
    """Under `WIDE` columns: a line of the fixed columns per conversation, its reason on the lines under
    it, indented and wrapped between words."""
    import textwrap

    def line(values: list[tuple[str, str]]) -> Text:
        out = Text(" ")
        for (_, size), (value, style) in zip(columns, values, strict=True):
            out.append(value.ljust(size), style=style).append("   ")
        out.rstrip()
        return out

    lines: list[RenderableType] = [
        Text(title, style="italic"),
        line([(name, "bold") for name, _ in columns]),
        Text(" " + "─" * min(width - 2, sum(size + 3 for _, size in columns) - 3)),
    ]
    for r in rows:
        values = {
            "conversation": (one_line(r.conversation_id), ""),
            "severity": (r.severity or "-", SEVERITY_STYLE.get(r.severity, "")),
            "status": (r.status, ""),
            "age": (ages[r.conversation_id], ""),
        }
        lines.append(line([values[name] for name, _ in columns]))
        wrapped = textwrap.wrap(one_line(r.reason or "-"), width=max(20, width - 6), break_long_words=True)
        lines += [Text("     " + part, style="dim" if not r.reason else "") for part in wrapped]
    return Group(*lines)


WIDE = 120  # from this width each group is one line; narrower, its signature goes on a line of its own


def groups_table(groups: list[FailureGroup], width: int) -> RenderableType:
    """One line per failure group: its id (what `--group` takes), worst severity, size, when it was first
    and last seen, its representative conversation (whole: people copy it), then its signature, whole.
    Under `WIDE` columns the signature has a line of its own, indented, wrapped between its parts (a
    20-column cell had cut tool names mid-word at 80 columns)."""
    title = say("cli.groups_title", n=len(groups))
    reps = max([14, *(len(one_line(g.representative)) for g in groups)])
    stacked = width < WIDE
    table = Table(title=None if stacked else title, box=box.SIMPLE_HEAD, pad_edge=False)
    fixed = [("group", 8), ("severity", 8), ("size", 5), ("first", 9), ("last", 9), ("representative", reps)]
    for name, size in fixed:
        table.add_column(
            name, no_wrap=True, min_width=size, max_width=size, justify="right" if name == "size" else "left"
        )
    if not stacked:
        budget = max(20, width - sum(size for _, size in fixed) - 3 * 6 - 2)
        table.add_column("failure", overflow="fold", min_width=budget, max_width=budget)
    rows: list[RenderableType] = []
    for g in groups:
        label = ("incident · " if g.priority == 0 else "") + one_line(
            g.signature or "(stored before signatures)"
        )
        cells: list[RenderableType] = [
            g.id,
            Text(g.severity or "-", style=SEVERITY_STYLE.get(g.severity, "")),
            str(g.size),
            _age(g.first_seen),
            _age(g.last_seen),
            Text(one_line(g.representative)),
        ]
        if not stacked:
            table.add_row(*cells, Text(label))
            continue
        one = Table(box=None, show_header=not rows, pad_edge=False)
        for name, size in fixed:
            one.add_column(name, no_wrap=True, min_width=size, max_width=size)
        one.add_row(*cells)
        rows += [one, Padding(Text(label, overflow="fold"), (0, 0, 0, 4))]
    return table if not stacked else Group(Text(title, style="italic"), *rows)


SEVERITY_STYLE = {"critical": "bold red", "high": "red", "medium": "yellow", "low": "dim"}


def _age(when: datetime) -> str:
    seconds = (datetime.now(UTC) - (when if when.tzinfo else when.replace(tzinfo=UTC))).total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return "now"
