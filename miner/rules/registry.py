"""The detectors: one function per area of what can go wrong, registered where it is defined.

A detector (`@detector("promise", rank=80, causes=(UNBACKED_PROMISE,), gate=True)`) reads a conversation and
returns its flags; `causes` are the ones it may raise (`miner.core.causes`), `gate` whether the gate runs it
on every attempt too (`True`: the same function; a function `(conversation, config, allowed)`: the gate's
own way, as `grounding` takes the facts a case admits). `rank` is the order ingest runs them in, which is
the order of a conversation's flags and of the rulebook's rules: a new detector is one module of this
package, found with no list to edit. `detectors()` loads every module of the package once, and refuses
two detectors of one rank (their order would be left to chance).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING, TypeVar

from filon.miner.core.model import Conversation, Flag

if TYPE_CHECKING:
    from filon.miner.rules.config import FlagConfig

Find = Callable[[Conversation, "FlagConfig"], list[Flag]]
Grade = Callable[[Conversation, "FlagConfig", Sequence[str]], list[Flag]]
F = TypeVar("F", bound=Find)


@dataclass(frozen=True)
class Detector:
    name: str
    rank: int  # where it runs among the others: the order of a conversation's flags and of the rulebook
    find: Find
    causes: tuple[str, ...]
    grade: Grade | None = None  # how the gate runs it on an attempt; None: production only


_REGISTERED: dict[str, Detector] = {}


def detector(name: str, rank: int, causes: tuple[str, ...], gate: bool | Grade = False) -> Callable[[F], F]:
    """Register the decorated function as the detector `name`, raising `causes`, run at `rank`."""

    def register(find: F) -> F:
        grade: Grade | None = None
        if gate is True:
            grade = lambda conv, cfg, allowed: find(conv, cfg)  # noqa: E731
        elif callable(gate):
            grade = gate
        _REGISTERED[name] = Detector(name, rank, find, causes, grade)
        return find

    return register


@cache
def detectors() -> tuple[Detector, ...]:
    """Every detector, in `ORDER`, once every module of `miner.rules` is loaded."""
    package = importlib.import_module("filon.miner.rules")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"filon.miner.rules.{module.name}")
    found = sorted(_REGISTERED.values(), key=lambda d: d.rank)
    for a, b in pairwise(found):
        if a.rank == b.rank:
            raise RuntimeError(f"detectors {a.name!r} and {b.name!r} share rank {a.rank}: give each its own")
    return tuple(found)
