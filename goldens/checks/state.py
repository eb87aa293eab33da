"""The checks of what a conversation leaves behind: the shop afterwards (`etat_final`, read from the
target's shop into the transcript by the runner) and a simulated customer's objective (`simulation`).

An action the agent only says it did is not done: a return is registered when the shop has it, whatever
the answer claims. Pure functions over what the runner read, so they are tested on built inputs."""

from __future__ import annotations

from typing import Any

from filon.goldens.case.schema import Case, FinalStateSpec
from filon.goldens.checks.base import Cost, Gap, check_kind
from filon.miner.core.messages import Said, said
from filon.miner.core.transcript import Transcript
from filon.miner.reading.text import norm


@check_kind(rank=70)
class FinalState:
    name = "état final"
    cost = Cost.STATE

    def applies(self, case: Case) -> bool:
        return case.etat_final is not None

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        assert case.etat_final is not None
        if transcript.final_state is None:
            return []  # an example, or a target that cannot say: the runner reports it as not runnable
        return [
            Gap("etat_final", "etat_final", g)
            for g in final_state_gaps(case.etat_final, transcript.final_state)
        ]


@check_kind(rank=80)
class Simulated:
    name = "simulation"
    cost = Cost.STATE

    def applies(self, case: Case) -> bool:
        return case.simulation is not None

    def grade(self, case: Case, transcript: Transcript) -> list[Gap]:
        assert case.simulation is not None
        if not transcript.from_spans:
            return []  # an example has no simulated customer
        gaps = simulation_gaps(case.simulation.max_tours, transcript.objective_reached, transcript.answers)
        return [Gap("simulation", "simulation", g) for g in gaps]


def final_state_gaps(expected: FinalStateSpec, state: dict[str, Any]) -> list[Said]:
    gaps: list[Said] = []
    returns = [r for r in state.get("retours") or [] if isinstance(r, dict)]
    registered = {str(r.get("commande")) for r in returns}
    if expected.retours is not None:
        if not expected.retours and registered:
            gaps.append(said("gap.unexpected_return", orders=", ".join(sorted(registered))))
        for wanted in expected.retours:
            if wanted.commande not in registered:
                gaps.append(said("gap.no_return", order=wanted.commande))
    orders = {
        str(o.get("numero")): str(o.get("statut"))
        for o in state.get("commandes") or []
        if isinstance(o, dict)
    }
    for order in expected.commandes:
        found = orders.get(order.numero)
        if found is None:
            gaps.append(said("gap.order_missing", order=order.numero))
        elif norm(found) != norm(order.statut):
            gaps.append(said("gap.order_status", order=order.numero, found=found, expected=order.statut))
    return gaps


def simulation_gaps(max_tours: int, reached: bool | None, answers: list[str]) -> list[Said]:
    """A simulation's own gaps: the objective not reached in its turns, and the agent going round in
    circles (the same answer twice in a row)."""
    gaps = []
    if not reached:
        gaps.append(said("gap.objective", turns=max_tours))
    folded = [norm(a) for a in answers]
    loops = [i + 2 for i in range(len(folded) - 1) if folded[i] and folded[i] == folded[i + 1]]
    if loops:
        gaps.append(said("gap.loop", turn=loops[0]))
    return gaps
