"""The run-to-run spread of a ratio, measured in the run that reports it.

Each round times both sides of a ratio one after the other, so a round's own ratio is a pair measured
under the same machine load. The best of each side over the rounds (the headline figures) can pair a
quiet moment of one with a busy moment of the other; the rounds' own ratios, sorted, show how far one
ratio moves within a run, and their median is the figure a goal is read on when it sits inside that
spread.
"""

from __future__ import annotations

import statistics


def rounds(top: list[float], bottom: list[float]) -> list[float]:
    """Each round's ratio `top / bottom`, sorted."""
    return sorted(round(a / b, 3) for a, b in zip(top, bottom, strict=True))


def spread(prefix: str, top: list[float], bottom: list[float]) -> dict[str, object]:
    """`{prefix}_rounds` (each round's ratio, sorted) and `{prefix}_median`."""
    each = rounds(top, bottom)
    return {f"{prefix}_rounds": each, f"{prefix}_median": round(statistics.median(each), 3)}
