"""Percentages over time drawn in the terminal (plotext), as plain text: no colour codes, so a pipe or a
CI log reads the same as a terminal. One drawing for `filon eval history` and `filon goldens coverage`."""

from __future__ import annotations

from collections.abc import Sequence


def percent_line(values: Sequence[float], labels: Sequence[str], title: str, width: int) -> str:
    """`values` (0 to 100), oldest left, a few of `labels` under them (never one on another)."""
    import plotext as plt

    plt.clear_figure()
    plt.plotsize(max(40, min(width, 120)), 14)
    plt.theme("clear")
    xs = list(range(1, len(values) + 1))
    plt.plot(xs, list(values), marker="dot")
    step = max(1, len(xs) // 6)
    plt.xticks(xs[::step], list(labels)[::step])
    plt.ylim(0, 100)
    plt.title(title)
    return str(plt.uncolorize(plt.build())).rstrip()
