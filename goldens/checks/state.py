"""The checks of what a conversation leaves behind: the shop afterwards (`etat_final`, read from the
target's shop into the transcript by the runner) and a simulated customer's objective (`simulation`)."""

from __future__ import annotations

from goldens.checks.base import Cost, Gap
from goldens.final_state import final_state_gaps
from goldens.schema import Case
from goldens.simulator import simulation_gaps
from miner.transcript import Transcript


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
