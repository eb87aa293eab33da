"""Attributes flattened by index (`llm.input_messages.N.…`, `gen_ai.prompt.N.…`), as OpenInference and
OpenLLMetry write a list of messages: how many there are, found in a few lookups."""

from __future__ import annotations

from collections.abc import Callable


def count(has: Callable[[int], bool]) -> int:
    """The first index `i` for which `has(i)` is false, when every index before it has one: by doubling
    then halving, a few lookups instead of a pass over every attribute."""
    if not has(0):
        return 0
    low, high = 0, 1
    while has(high):
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if has(middle) else (low, middle)
    return high
