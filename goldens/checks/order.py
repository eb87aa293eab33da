"""`ordre`: tools that must come in that relative order, other calls allowed in between (the common
"look the order up before acting on it"); `ordre_exact`: the whole sequence of calls, nothing else.

A tool of the order that was never called is a missing tool; one called, but not after the one before
it, is a wrong order: two different gaps, each named in the report.
"""

from __future__ import annotations

from filon.goldens.case.schema import Case
from filon.goldens.case.tool_spec import tool_said
from filon.goldens.checks.actions import not_recorded
from filon.goldens.checks.base import Cost, Gap, check_kind
from filon.goldens.checks.matching import case_data, matches
from filon.miner.core.messages import said
from filon.miner.core.transcript import Transcript


@check_kind(rank=30)
class Order:
    name = "ordre"
    cost = Cost.DETERMINISTIC

    def applies(self, case: Case) -> bool:
        return bool(case.ordre)

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        data, calls = case_data(case), transcript.calls
        lenient = not transcript.from_spans  # an example's call without args: checked by name

        def hit(i: int, j: int) -> bool:
            found = matches(case.ordre[i], calls[j], data)
            return found is True or (found is None and lenient)

        out: list[Gap] = []
        present: list[int] = []
        for i, spec in enumerate(case.ordre):
            verdicts = [matches(spec, c, data) for c in calls]
            if any(hit(i, j) for j in range(len(calls))):
                present.append(i)
            elif None in verdicts:
                out.append(Gap("infrastructure", f"ordre[{i}]", not_recorded(spec)))
            else:
                out.append(
                    Gap("outil_manquant", f"ordre[{i}]", said("gap.missing_tool_order", tool=tool_said(spec)))
                )
        if case.ordre_exact:
            exact = len(calls) == len(case.ordre) and all(hit(i, i) for i in range(len(calls)))
            if not exact and not out:
                wanted = [tool_said(t) for t in case.ordre]
                seen = ", ".join(c.name for c in calls) or said("tool.no_call")
                out.append(Gap("ordre", "ordre_exact", said("gap.exact_order", wanted=wanted, seen=seen)))
            return out
        position, previous = -1, None
        for i in present:
            after = next((j for j in range(position + 1, len(calls)) if hit(i, j)), None)
            if after is None:
                before = tool_said(case.ordre[previous]) if previous is not None else said("tool.start")
                message = said("gap.order", tool=tool_said(case.ordre[i]), before=before)
                out.append(Gap("ordre", f"ordre[{i}]", message))
                break
            position, previous = after, i
        return out
