"""Mutants of a good example's trajectory: its calls with one thing turned wrong, its answers untouched.

An argument moved to another order number (« LL-10587 » → « LL-10588 »: a return registered on the wrong
order), two calls of a turn swapped (the action before the lookup), a call dropped (the ownership check
skipped), a call moved to the turn before (an answer given before the customer identified). Each is one
edit, by rule; the checks that read arguments, order and turns should reject it. Only examples that give
their calls are mutated (a text-only example's tools are the case's own).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from filon.goldens.case.schema import Example

_ORDER = re.compile(r"^([A-Z]{1,4}-\d*?)(\d)$")  # an order number, whose last digit a mutant changes


def _plain(call: Any) -> Any:
    return call if isinstance(call, str) else call.model_dump(exclude_none=True)


def _name(call: Any) -> str:
    return call if isinstance(call, str) else str(call["outil"])


def _other_order(value: Any) -> str | None:
    """Another order number next to this one: its last digit moved by one."""
    match = _ORDER.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    return f"{match.group(1)}{(int(match.group(2)) + 1) % 10}"


def call_edits(example: Example) -> Iterator[tuple[str, str, list[Any]]]:
    """(kind, change, the example's calls edited) for every one-edit mutant of its trajectory."""
    if not example.outils:
        return
    per_turn = example.per_turn
    turns: list[list[Any]] = (
        [[_plain(c) for c in t] for t in example.outils if isinstance(t, list)]
        if per_turn
        else [[_plain(c) for c in example.outils if not isinstance(c, list)]]
    )

    def shaped(edited: list[list[Any]]) -> list[Any]:
        return edited if per_turn else edited[0]

    for t, calls in enumerate(turns):
        for j, call in enumerate(calls):
            dropped = [list(x) for x in turns]
            del dropped[t][j]
            yield "appel", f"« {_name(call)} » retiré", shaped(dropped)
            for key, value in (call.get("args") or {}).items() if isinstance(call, dict) else ():
                other = _other_order(value)
                if other is not None:
                    moved = [list(x) for x in turns]
                    moved[t][j] = {**call, "args": {**call["args"], key: other}}
                    yield "argument", f"« {key}={value} » → « {key}={other} »", shaped(moved)
            if j + 1 < len(calls) and _name(calls[j + 1]) != _name(call):
                swapped = [list(x) for x in turns]
                swapped[t][j], swapped[t][j + 1] = swapped[t][j + 1], swapped[t][j]
                yield "ordre", f"« {_name(call)} » ↔ « {_name(calls[j + 1])} »", shaped(swapped)
        if per_turn and t > 0 and calls:
            early = [list(x) for x in turns]
            early[t - 1].append(early[t].pop(0))
            yield "tour", f"« {_name(calls[0])} » au tour {t}", shaped(early)
