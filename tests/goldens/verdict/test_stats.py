"""The statistics of `filon eval compare`, against tables worked out by hand and an independent implementation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from filon.goldens.verdict import stats


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (0, 0, 1.0),  # all concordant: nothing to test
        (1, 0, 1.0),  # one discordant pair: 2 × 1/2
        (0, 6, 0.03125),  # 2 × 1/64
        (1, 9, 0.021484375),  # 2 × (1 + 10) / 1024
        (2, 8, 0.109375),  # 2 × (1 + 10 + 45) / 1024
        (3, 3, 1.0),
        (5, 0, 0.0625),  # 2 × 1/32: five regressions are not enough at 5%
    ],
)
def test_mcnemar_exact_on_tables_worked_out_by_hand(b: int, c: int, p: float) -> None:
    assert stats.mcnemar_exact(b, c) == pytest.approx(p, abs=1e-12)


@given(st.integers(0, 400), st.integers(0, 400))
def test_mcnemar_exact_agrees_with_scipys_binomial_test(b: int, c: int) -> None:
    expected = 1.0 if b + c == 0 else binomtest(min(b, c), b + c, 0.5).pvalue
    assert stats.mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_the_smallest_detectable_drop() -> None:
    assert stats.fewest_discordant() == 6  # 2 / 2**6 < 0.05 <= 2 / 2**5
    assert stats.cases_needed(0.05) == 120 and stats.cases_needed(0.10) == 60


def test_paired_interval_worked_out_by_hand() -> None:
    # b=1, c=5, n=40 → with 0.5 added per cell: d = 4/42, se = sqrt(7 − 16/42)/42
    low, high = stats.paired_interval(1, 5, 40)
    d, se = 4 / 42, math.sqrt(7 - 16 / 42) / 42
    assert (low, high) == pytest.approx((d - 1.959964 * se, d + 1.959964 * se), abs=1e-6)
    zero_low, zero_high = stats.paired_interval(0, 0, 32)  # no change: an interval around 0, not a point
    assert zero_low < 0 < zero_high and zero_low == pytest.approx(-zero_high)


def test_bootstrap_interval_is_deterministic_and_brackets_the_mean() -> None:
    deltas = [0.0] * 20 + [-1 / 3] * 5 + [1 / 3] * 2
    low, high = stats.bootstrap_interval(deltas)
    assert (low, high) == stats.bootstrap_interval(deltas)
    assert low < sum(deltas) / len(deltas) < high
    assert stats.bootstrap_interval([0.0, 0.0]) == (0.0, 0.0)
