"""The detectors: one function per area of what can go wrong, registered where it is defined.

A detector (`@detector("promise", causes=(UNBACKED_PROMISE,), gate=True)`) reads a conversation and
returns its flags; `causes` are the ones it may raise (`miner.core.causes`), `gate` whether the gate runs it
on every attempt too (`True`: the same function; a function `(conversation, config, allowed)`: the gate's
own way, as `grounding` takes the facts a case admits). `ORDER` is the order ingest runs them in, which is
the order of a conversation's flags and of the rulebook's rules: a new detector is its module in this
package and its name here. `detectors()` loads every module of the package once, and says which detector
is registered but not ordered, or ordered but never registered.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, TypeVar

from filon.miner.core.model import Conversation, Flag

if TYPE_CHECKING:
    from filon.miner.rules.config import FlagConfig

Find = Callable[[Conversation, "FlagConfig"], list[Flag]]
Grade = Callable[[Conversation, "FlagConfig", Sequence[str]], list[Flag]]
F = TypeVar("F", bound=Find)

ORDER = (
    "security",
    "identity",
    "escalation",
    "error",
    "rate_limit",
    "tool_error",
    "loop",
    "promise",
    "grounding",
    "write",
    "latency",
    "feedback",
)


@dataclass(frozen=True)
class Detector:
    name: str
    find: Find
    causes: tuple[str, ...]
    grade: Grade | None = None  # how the gate runs it on an attempt; None: production only


_REGISTERED: dict[str, Detector] = {}


def detector(name: str, causes: tuple[str, ...], gate: bool | Grade = False) -> Callable[[F], F]:
    """Register the decorated function as the detector `name`, raising `causes`."""

    def register(find: F) -> F:
        grade: Grade | None = None
        if gate is True:
            grade = lambda conv, cfg, allowed: find(conv, cfg)  # noqa: E731
        elif callable(gate):
            grade = gate
        _REGISTERED[name] = Detector(name, find, causes, grade)
        return find

    return register


@cache
def detectors() -> tuple[Detector, ...]:
    """Every detector, in `ORDER`, once every module of `miner.rules` is loaded."""
    package = importlib.import_module("filon.miner.rules")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"filon.miner.rules.{module.name}")
    unordered = sorted(set(_REGISTERED) - set(ORDER))
    if unordered:
        raise RuntimeError(f"detector {unordered[0]!r} is not in miner.rules.registry.ORDER")
    missing = [n for n in ORDER if n not in _REGISTERED]
    if missing:
        raise RuntimeError(f"detector {missing[0]!r} of ORDER is registered by no module of miner.rules")
    return tuple(_REGISTERED[n] for n in ORDER)
