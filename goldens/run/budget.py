"""`filon eval --budget`: what a run would cost, said before it starts, and the run stopped before it goes
over (the attempts under way finish; the others are not started, and the report says how many).

An estimate from nominal figures, not from the run it judges: per model call, the prompt's and the
rubric's length in tokens plus a fixed allowance for the tool declarations and the history; per turn,
two agent calls (a tool, then the answer). Spending is counted from the tokens each finished attempt
actually used, priced from `goldens/prices.json`; an attempt starts only if what was spent, what the
attempts under way are expected to spend, and its own estimate fit in the budget.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from filon.goldens.case.schema import Case
from filon.goldens.models.model_checks import ModelChecks
from filon.miner.core.messages import Said, said

if TYPE_CHECKING:  # the runner imports this module: its Attempt is a name for the checker only
    from filon.goldens.run.runner import Attempt

CALLS_PER_TURN = 2  # a tool call, then the answer
TOOLS_AND_HISTORY = 900  # tokens: the tool declarations and a turn or two of history
ANSWER = 120  # tokens an agent call writes, at most in the common case
JUDGE_OUT, SIMULATOR_IN, SIMULATOR_OUT = 40, 500, 60


def price(prices: dict[str, dict[str, float]], model: str, tokens_in: int, tokens_out: int) -> float:
    """The cost in the table's currency; a model the table does not know costs nothing it can say (0)."""
    p = prices.get(model)
    if p is None:
        return 0.0
    return tokens_in / 1e6 * p["input_per_million"] + tokens_out / 1e6 * p["output_per_million"]


@dataclass
class Budget:
    limit: float
    prices: dict[str, dict[str, float]]
    agent_model: str
    prompt_tokens: int
    checks: ModelChecks | None = None
    estimated: float = 0.0  # the whole run's, before it starts
    spent: float = 0.0
    reserved: float = 0.0
    skipped: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def estimate(self, case: Case) -> float:
        turns = case.simulation.max_tours if case.simulation is not None else len(case.tours)
        per_call_in = self.prompt_tokens + TOOLS_AND_HISTORY
        cost = price(
            self.prices,
            self.agent_model,
            turns * CALLS_PER_TURN * per_call_in,
            turns * CALLS_PER_TURN * ANSWER,
        )
        checks = self.checks
        if checks is not None and checks.judge is not None:
            for name in case.criteria():
                rubric = checks.rubrics.get(name)
                tokens_in = (len(rubric.text) // 4 if rubric else 300) + 400 + turns * ANSWER
                cost += price(self.prices, checks.judge.model, tokens_in, JUDGE_OUT)
        if checks is not None and checks.simulator is not None and case.simulation is not None:
            cost += price(self.prices, checks.simulator.model, turns * SIMULATOR_IN, turns * SIMULATOR_OUT)
        return cost

    def total(self, cases: list[Case], repeat: int) -> float:
        return sum(self.estimate(c) for c in cases) * repeat

    def start(self, case: Case) -> float | None:
        """The estimate reserved for this attempt, or None (and counted as skipped) if it would go over."""
        expected = self.estimate(case)
        with self._lock:
            if self.spent + self.reserved + expected > self.limit:
                self.skipped += 1
                return None
            self.reserved += expected
            return expected

    def finish(self, reserved: float, actual: float) -> None:
        with self._lock:
            self.reserved -= reserved
            self.spent += actual

    def actual(
        self,
        input_tokens: int,
        output_tokens: int,
        judge: tuple[int, int],
        simulator: tuple[int, int],
        embedding_tokens: int = 0,
    ) -> float:
        """What a finished attempt cost: the agent's tokens, the judge's, the simulated customer's and the
        embeddings its texts needed."""
        cost = price(self.prices, self.agent_model, input_tokens, output_tokens)
        if self.checks is not None and self.checks.embedder is not None:
            cost += price(self.prices, self.checks.embedder.model, embedding_tokens, 0)
        if self.checks is not None and self.checks.judge is not None:
            cost += price(self.prices, self.checks.judge.model, *judge)
        if self.checks is not None and self.checks.simulator is not None:
            cost += price(self.prices, self.checks.simulator.model, *simulator)
        return cost

    def announce(self) -> Said:
        code = "banner.budget_over" if self.estimated > self.limit else "banner.budget"
        return said(code, limit=f"{self.limit:g}", estimated=self.estimated)

    def unpriced(self, agent_priced: bool) -> list[str]:
        """The models in use the price table does not know: a budget would count them as free."""
        models = [self.agent_model] if agent_priced else []
        checks = self.checks
        if checks is not None:
            models += [m.model for m in (checks.judge, checks.embedder, checks.simulator) if m is not None]
        return [m for m in dict.fromkeys(models) if m not in self.prices]

    def nothing_fits(self, cases: list[Case]) -> Said | None:
        """Why nothing would run, said before the run (the cheapest attempt is over the budget); None if
        something fits."""
        cheapest = min((self.estimate(c) for c in cases), default=0.0)
        if cheapest <= self.limit:
            return None
        return said("err.eval.over_budget", limit=f"{self.limit:g}", cheapest=cheapest, whole=self.estimated)

    @property
    def stopped(self) -> bool:
        return self.skipped > 0


def within_budget(budget: Budget | None, case: Case, attempt: Callable[[], Attempt]) -> Attempt | None:
    """The attempt, if `--budget` leaves room for its estimate (None: not started); what it really cost
    then replaces the estimate it had reserved."""
    if budget is None:
        return attempt()
    reserved = budget.start(case)
    if reserved is None:
        return None
    done = attempt()
    mc = done.model_checks
    budget.finish(reserved, budget.actual(
        done.input_tokens,
        done.output_tokens,
        (mc.judge_input_tokens, mc.judge_output_tokens),
        (done.simulator_input_tokens, done.simulator_output_tokens),
        mc.embedding_tokens,
    ))  # fmt: skip
    return done
