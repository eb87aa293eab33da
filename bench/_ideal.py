"""The ideal wall time of a replay, from nominal figures and the calls the run needed (not its timings).

Two bounds, the larger wins: the calls spread over the workers (calls × latency / concurrency), and the
longest chain of calls one attempt must make one after the other (its agent calls, turn by turn, then its
similarity, judge and simulated-customer calls) × latency: no number of workers makes a five-turn
conversation shorter than its turns.
"""

from __future__ import annotations

from filon.goldens.run.attempt import Attempt
from filon.goldens.verdict.report_model import EvalReport


def serial_calls(t: Attempt) -> int:
    """One agent call per tool called plus one answer per turn; then the checks that ask a model; a
    simulated customer's call after each turn."""
    agent = len(t.tools) + len(t.answers)
    simulator = len(t.answers) if t.objective_reached is not None else 0
    return agent + len(t.judges) + (1 if t.similarities else 0) + simulator


def ideal_seconds(report: EvalReport, calls: int, latency_ms: float, concurrency: int) -> float:
    spread = calls * latency_ms / 1000 / concurrency
    longest = max((serial_calls(t) for c in report.cases for t in c.attempts), default=0)
    return max(spread, longest * latency_ms / 1000)
