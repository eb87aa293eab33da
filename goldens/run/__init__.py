"""Replaying cases through a target: the runner (`run_cases`, one `Attempt` per case and repeat, each
with the transcript read from its spans), the targets (the reference agent, `python:`, `http:`), the
spending budget, and the simulated conversations kept in the store.
"""

from filon.goldens.run.runner import Attempt, RunOptions, RunOutput, run_cases
from filon.goldens.run.targets import Session, Target, parse_target

__all__ = ["Attempt", "RunOptions", "RunOutput", "Session", "Target", "parse_target", "run_cases"]
