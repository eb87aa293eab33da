"""Actions, the first thing a case checks: the tools expected (with their arguments and how many
times), the tools forbidden, the escalation. The same rules serve the whole conversation (the case's
`outils`, `outils_interdits`, `escalade`) and one turn (a `par_tour` block): `scope_gaps`.
"""

from __future__ import annotations

from dataclasses import dataclass

from filon.goldens.case.schema import Case
from filon.goldens.case.tool_spec import Tool, ToolGroup, ToolSpec, as_group, tool_name, tool_said
from filon.goldens.checks.base import Cost, Gap, check_kind
from filon.goldens.checks.matching import case_data, matches, wrong_arguments
from filon.miner.core.messages import Said, one_of, said
from filon.miner.core.model import ToolCall
from filon.miner.core.transcript import Transcript


def not_recorded(tool: Tool) -> Said:
    """What a check says when the stack's spans carry no arguments: it cannot decide (infrastructure)."""
    return said("gap.not_recorded", tool=tool_name(tool))


@dataclass(frozen=True)
class Scope:
    """Where checks read calls: the whole conversation (turn None) or one turn."""

    calls: list[ToolCall]
    escalated: bool
    from_spans: bool
    data: dict[str, str]
    prefix: str = ""  # the field path's prefix: "" or "par_tour[1]."
    turn: int | None = None


def expected_gaps(scope: Scope, groups: list[ToolGroup]) -> list[Gap]:
    out: list[Gap] = []
    for i, group in enumerate(groups):
        options = as_group(group)
        where = f"{scope.prefix}outils[{i}]"
        gap = _group_gap(scope, options, where)
        if gap is not None:
            out.append(gap)
    return out


def _group_gap(scope: Scope, options: list[Tool], where: str) -> Gap | None:
    """None when one option is satisfied; else the gap of the closest miss (wrong arguments before
    missing, since the tool was at least called)."""
    unknown: Gap | None = None
    wrong: Gap | None = None
    for option in options:
        verdicts = [matches(option, c, scope.data) for c in scope.calls]
        hits = verdicts.count(True)
        if None in verdicts and scope.from_spans and not hits:
            unknown = Gap("infrastructure", where, not_recorded(option), scope.turn)
            continue
        if hits or (None in verdicts and not scope.from_spans):
            limit = option.max if isinstance(option, ToolSpec) else None
            if limit is not None and hits > limit:
                message = said("gap.too_many_calls", tool=tool_said(option), hits=hits, limit=limit)
                wrong = wrong or Gap("appels_en_trop", where, message, scope.turn)
                continue
            return None
        if isinstance(option, ToolSpec) and any(c.name == option.outil for c in scope.calls):
            seen = wrong_arguments(option, scope.calls, scope.data)
            message = said("gap.arguments", expected=option.said(), seen=seen)
            wrong = wrong or Gap("arguments", where, message, scope.turn)
    if wrong is not None:
        return wrong
    if unknown is not None:
        return unknown
    tools = one_of([tool_said(o) for o in options])
    return Gap("outil_manquant", where, said("gap.missing_tool", tools=tools), scope.turn)


def forbidden_gaps(scope: Scope, forbidden: list[Tool]) -> list[Gap]:
    out: list[Gap] = []
    for i, tool in enumerate(forbidden):
        where = f"{scope.prefix}outils_interdits[{i}]"
        verdicts = [matches(tool, c, scope.data) for c in scope.calls]
        if True in verdicts:
            out.append(
                Gap("outil_interdit", where, said("gap.forbidden_tool", tool=tool_said(tool)), scope.turn)
            )
        elif None in verdicts and scope.from_spans:
            out.append(Gap("infrastructure", where, not_recorded(tool), scope.turn))
    return out


def escalation_gaps(scope: Scope, expected: bool | None) -> list[Gap]:
    if expected is None or bool(expected) == scope.escalated:
        return []
    message = said("gap.escalation", expected=expected, got=scope.escalated)
    return [Gap("escalade", f"{scope.prefix}escalade", message, scope.turn)]


def whole(case: Case, transcript: Transcript) -> Scope:
    return Scope(transcript.calls, transcript.escalated, transcript.from_spans, case_data(case))


@check_kind(rank=10)
class Tools:
    """The case's `outils` and `outils_interdits`, over the whole conversation."""

    name = "outils"
    cost = Cost.DETERMINISTIC

    def applies(self, case: Case) -> bool:
        return bool(case.outils or case.outils_interdits)

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        scope = whole(case, transcript)
        return [*expected_gaps(scope, case.outils), *forbidden_gaps(scope, case.outils_interdits)]


@check_kind(rank=20)
class Escalation:
    """The case's `escalade`: true, false, or null for either."""

    name = "escalade"
    cost = Cost.DETERMINISTIC

    def applies(self, case: Case) -> bool:
        return case.escalade is not None

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        return escalation_gaps(whole(case, transcript), case.escalade)
