"""`par_tour`: checks of one customer turn, on that turn alone (turn 1 asks for the e-mail and looks
nothing up; turn 2, once it is given, answers). The case's own checks still hold over the whole
conversation. Two kinds, so that a reviewer's example that gives no tool calls still proves the words.

An example whose tools are given flat (not a list per turn) cannot tell which turn called what: the
per-turn action checks say so as a gap of their own kind only in a replay, never on such an example.
"""

from __future__ import annotations

from filon.goldens.case.schema import Case
from filon.goldens.checks.actions import Scope, escalation_gaps, expected_gaps, forbidden_gaps
from filon.goldens.checks.base import Cost, Gap, check_kind
from filon.goldens.checks.matching import case_data
from filon.goldens.checks.texts import text_gaps
from filon.miner.core.transcript import Transcript


@check_kind(rank=40)
class TurnActions:
    name = "actions par tour"
    cost = Cost.DETERMINISTIC

    def applies(self, case: Case) -> bool:
        return any(b.has_action_check() for b in case.par_tour)

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        if not transcript.per_turn:
            return []
        data, out = case_data(case), []
        for i, block in enumerate(case.par_tour):
            if i >= len(transcript.turns):
                break  # the conversation ended before (an infrastructure error is said elsewhere)
            turn = transcript.turns[i]
            scope = Scope(turn.tools, turn.escalated, transcript.from_spans, data, f"par_tour[{i}].", i + 1)
            out += expected_gaps(scope, block.outils)
            out += forbidden_gaps(scope, block.outils_interdits)
            out += escalation_gaps(scope, block.escalade)
        return out


@check_kind(rank=60)
class TurnTexts:
    name = "textes par tour"
    cost = Cost.DETERMINISTIC

    def applies(self, case: Case) -> bool:
        return any(b.has_text_check() for b in case.par_tour)

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        out: list[Gap] = []
        for i, block in enumerate(case.par_tour):
            if i >= len(transcript.turns):
                break
            answer = transcript.turns[i].agent
            out += text_gaps(answer, block.contient, block.ne_contient_pas, f"par_tour[{i}].", i + 1)
        return out
