"""What part of production's traffic the golden set covers, by failure signature (`miner.store.signature`).

A set that does not grow with the traffic ages. Over a window of stored conversations, each failure
group (cause, channel, tools in order; an unflagged one also by its masked question) is covered when some
case of the set replays that situation:
- a security failure (a leak, an obeyed injection, a record shown or returned to the wrong person) by a
  case on its channel that forbids a tool the conversation called, or a `securite` case expecting those
  tools;
- a hand-over to a human (`transferred`) by a case on its channel that expects escalation and the other
  tools called;
- anything else (flagged or not) by a case on its channel whose expected tools are exactly the ones
  called (each of its groups met by one call, no call outside them).
A case drafted from a conversation (`source.conversation_id`) covers that conversation's group too,
whatever its checks say: it was written for that situation.
The figure is the share of conversations in covered groups; the uncovered groups come largest first,
each with a representative to draft from; the cases no conversation of the window matched are listed
too (their situation no longer appears, or the traffic has not come yet).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from filon.goldens.case.schema import Case, canal_of
from filon.goldens.case.tool_spec import as_group, tool_name
from filon.miner.store.groups import FailureGroup
from filon.miner.store.signature import OK

if TYPE_CHECKING:
    from filon.miner.store import Store

SECURITY = frozenset(("leak", "injection_obeyed", "exposure", "unverified_record", "injection_refused"))


@dataclass(frozen=True)
class Shape:
    """A signature read back: its cause ("" when no rule flagged), channel and tool names in order."""

    cause: str
    channel: str
    tools: tuple[str, ...]

    @classmethod
    def of(cls, signature: str) -> Shape:
        parts = signature.split(" · ")
        cause = parts[0] if parts and parts[0] != OK else ""
        channel = parts[1] if len(parts) > 1 else ""
        calls = parts[2].split(" > ") if len(parts) > 2 and parts[2] != "-" else []
        return cls(cause, channel, tuple(c.split("(", 1)[0] for c in calls))


def covers(case: Case, shape: Shape, escalation: frozenset[str]) -> bool:
    """Whether `case` replays the situation of conversations of this shape (see the module's rules)."""
    if case.canal != canal_of(shape.channel):  # the channel as a draft writes it (`unknown` is web)
        return False
    called = set(shape.tools)
    groups = [{tool_name(t) for t in as_group(g)} for g in case.outils]
    allowed = set().union(*groups) if groups else set()
    forbidden = {tool_name(t) for t in case.outils_interdits}
    if shape.cause in SECURITY:
        expected = case.categorie == "securite" and bool(called) and called <= allowed | forbidden
        return bool(forbidden & called) or expected
    if shape.cause == "transferred":
        rest = called - escalation
        return (
            case.escalade is True
            and all(g & called for g in groups if not g <= escalation)
            and (rest <= allowed)
        )
    return all(g & called for g in groups) and called <= allowed


@dataclass
class Coverage:
    conversations: int = 0
    covered: int = 0
    uncovered: list[FailureGroup] = field(default_factory=list)  # largest first
    unseen_cases: list[str] = field(default_factory=list)
    covering: dict[str, list[str]] = field(default_factory=dict)  # a covered group's signature → its cases
    groups: list[FailureGroup] = field(default_factory=list)  # every group of the window, largest first

    @property
    def share(self) -> float | None:
        return self.covered / self.conversations if self.conversations else None

    def as_json(self) -> dict[str, Any]:
        return {
            "conversations": self.conversations,
            "covered": self.covered,
            "share": None if self.share is None else round(self.share, 4),
            "uncovered": [g.as_json() for g in self.uncovered],
            "unseen_cases": self.unseen_cases,
        }


def percent(part: float) -> str:
    """A share as a reader may trust it: never « 100% » while something is left out, nor « 0% » while
    something is in (200,059 of 200,079 is « 99.99% », not « 100% »)."""
    figure = part * 100
    if 0 < part < 1 and (figure >= 99.5 or figure < 0.5):
        shown = math.floor(figure * 100) / 100 if figure >= 99.5 else math.ceil(figure * 100) / 100
        return f"{shown:.2f}%"
    return f"{figure:.0f}%"


def coverage(
    cases: list[Case],
    groups: list[FailureGroup],
    escalation: frozenset[str],
    sources: dict[str, str] | None = None,
) -> Coverage:
    """The set's coverage of the groups (every group of the window: their sizes are the traffic);
    `sources`: the signature of each case's source conversation, by case id (`sources_of`)."""
    out = Coverage()
    seen: set[str] = set()
    drafted = sources or {}
    for group in groups:
        shape = Shape.of(group.signature)
        covering = [
            c.id
            for c in cases
            if group.signature and (drafted.get(c.id) == group.signature or covers(c, shape, escalation))
        ]
        out.conversations += group.size
        if covering:
            out.covered += group.size
            seen.update(covering)
            out.covering[group.signature] = covering
        else:
            out.uncovered.append(group)
    out.uncovered.sort(key=lambda g: (-g.size, g.priority, g.signature))
    out.groups = sorted(groups, key=lambda g: (-g.size, g.priority, g.signature))
    out.unseen_cases = sorted(c.id for c in cases if c.id not in seen)
    return out


WEEK = 7  # days: the window `filon eval` reports the set's coverage of


def sources_of(store: Store, cases: list[Case]) -> dict[str, str]:
    """The signature of each case's source conversation the store still holds, by case id."""
    linked = {
        c.id: str(c.source["conversation_id"]) for c in cases if c.source and c.source.get("conversation_id")
    }
    found = store.traces.signatures_of(list(linked.values()))
    return {case_id: found[cid] for case_id, cid in linked.items() if cid in found}


def last_week(cases: list[Case], escalation: frozenset[str]) -> Coverage | None:
    """The set's coverage of the last week of production's traffic in the store; None when the store
    holds none (or cannot be opened: the gate never depends on the store)."""
    from filon.miner.core.errors import StoreError
    from filon.miner.store import Store

    try:
        store = Store.open()
        try:
            groups = store.groups.failure_groups(limit=None, since=datetime.now(UTC) - timedelta(days=WEEK))
            sources = sources_of(store, cases) if groups else {}
        finally:
            store.close()
    except StoreError:
        return None
    return coverage(cases, groups, escalation, sources) if groups else None


def over_time(
    store: Store,
    cases: list[Case],
    escalation: frozenset[str],
    sources: dict[str, str],
    start: datetime,
    window: timedelta,
    now: datetime | None = None,
) -> tuple[list[tuple[datetime, float]], bool]:
    """The coverage (%) of each day of the window, by the day conversations started (each hour, when the
    window is under two days), oldest first; and whether the periods are days. `sources`: as `coverage`
    takes them, read once by the caller (`sources_of`). Days are read from the
    groups' counts by day, with no scan of the conversations; hours are counted from the conversations."""
    daily = window >= timedelta(days=2)
    if daily:
        first = datetime.combine(start.date(), datetime.min.time(), UTC)
        bounds = [
            first + timedelta(days=i) for i in range(min(((now or datetime.now(UTC)) - first).days + 2, 63))
        ]
    else:
        bounds = [start + timedelta(hours=i) for i in range(int(window / timedelta(hours=1)) + 1)]
    points: list[tuple[datetime, float]] = []
    for since, until in itertools.pairwise(bounds):
        groups = store.groups.failure_groups(limit=None, since=since, until=until, exact=not daily)
        found = coverage(cases, groups, escalation, sources)
        if found.share is not None:
            points.append((since, found.share * 100))
    return points, daily
