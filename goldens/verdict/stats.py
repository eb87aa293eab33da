"""The statistics of a paired comparison of two runs of one golden set: pure functions, standard library only.

Two runs of the same cases are paired observations, so the test is McNemar's, exact: only the discordant
cases (passed on one run, failed on the other) carry information, and under "no difference" each of them
is a fair coin. The interval on the difference of pass rates is Agresti and Min's adjusted Wald interval
for paired proportions (it stays sensible with zero discordant cases); when repeats make rates rather
than pass/fail outcomes, a paired bootstrap over cases.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

Z95 = 1.959963984540054
ALPHA = 0.05


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact p-value: b cases passed on A only, c on B only."""
    if b < 0 or c < 0:
        raise RuntimeError("counts cannot be negative")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / (1 << n))  # integers divided once: exact for any n


def paired_interval(b: int, c: int, n: int) -> tuple[float, float]:
    """95% interval of (B's pass rate − A's) over n paired cases (Agresti–Min: 0.5 added to each cell)."""
    if n <= 0:
        raise RuntimeError("no paired case")
    b2, c2, n2 = b + 0.5, c + 0.5, n + 2
    diff = (c2 - b2) / n2
    se = math.sqrt(max(0.0, (b2 + c2) - (c2 - b2) ** 2 / n2)) / n2
    return max(-1.0, diff - Z95 * se), min(1.0, diff + Z95 * se)


def bootstrap_interval(
    deltas: Sequence[float], resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile interval of the mean per-case difference, cases resampled with replacement."""
    if not deltas:
        raise RuntimeError("no paired case")
    rng = random.Random(seed)
    n = len(deltas)
    means = sorted(sum(rng.choices(deltas, k=n)) / n for _ in range(resamples))
    return means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))]


def fewest_discordant(alpha: float = ALPHA) -> int:
    """The fewest discordant cases, all one way, that the exact test can call significant."""
    k = 1
    while mcnemar_exact(0, k) >= alpha:
        k += 1
    return k


def cases_needed(margin: float, alpha: float = ALPHA) -> int:
    """Cases a set needs before a drop of `margin` can be significant at best (every change one way)."""
    return math.ceil(fewest_discordant(alpha) / margin)
