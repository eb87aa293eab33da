"""How the runner reads a target's shop after a conversation, for `etat_final` (the check itself,
`goldens.checks.state.final_state_gaps`, is a pure function over what is read here)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from filon.goldens.run.targets import ReportsState, Session, Target


def state_reader(target: Target) -> Callable[[Session], dict[str, Any]] | None:
    """How to read the target's shop after a conversation: the reference agent's own, a Python target's
    `etat()`; None for a target that cannot say (HTTP)."""
    if isinstance(target, ReportsState) and target.reports_state():
        return target.final_state
    return None
