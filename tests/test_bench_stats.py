"""bench.stats: median, unscaled MAD, min, max, the instability rule, geometric mean, noise,
times relative to the fastest, and the Mann–Whitney U test (checked against values worked out
by hand: scipy is not a dependency)."""

import math

import pytest

from maxflow_cli.bench.stats import (
    can_reach,
    geometric_mean,
    mann_whitney,
    relative_to_fastest,
    significance_rule,
    summarize,
    within_noise,
)


def test_summary_of_known_samples():
    stats = summarize([3.0, 1.0, 4.0, 2.0, 100.0])
    assert (stats.runs, stats.median, stats.mad, stats.minimum, stats.maximum) == (
        5, 3.0, 1.0, 1.0, 100.0)


def test_steady_runs_are_stable():
    assert not summarize([1.00, 1.01, 0.99, 1.00, 1.02]).unstable


def test_a_wide_spread_is_unstable():
    # MAD 0.1 is 10% of the median 1.0
    assert summarize([0.9, 1.0, 1.1, 1.2, 0.8]).unstable


def test_a_slow_tenth_is_unstable_even_with_a_small_mad():
    samples = [1.0] * 8 + [2.0] * 2
    stats = summarize(samples)
    assert stats.mad == 0 and stats.unstable


def test_one_preempted_run_among_many_is_not_unstable():
    assert not summarize([1.0] * 99 + [10.0]).unstable


def test_geometric_mean():
    assert geometric_mean([2.0, 8.0]) == pytest.approx(4.0)
    assert geometric_mean([0.5, 2.0]) == pytest.approx(1.0)
    assert math.isnan(geometric_mean([]))


def test_noise_is_three_times_the_larger_mad():
    assert within_noise(1.0, 0.01, 1.029, 0.005)
    assert not within_noise(1.0, 0.01, 1.031, 0.005)
    assert within_noise(1.0, 0.0, 1.0, 0.0)


def test_relative_times_are_over_the_fastest_and_a_failure_stays_one():
    ratios = relative_to_fastest({"a": 2.0, "b": 4.7, "c": math.nan, "d": 2.0})
    assert ratios["a"] == ratios["d"] == 1.0 and ratios["b"] == pytest.approx(2.35)
    assert math.isnan(ratios["c"])
    assert all(math.isnan(r) for r in relative_to_fastest({"a": math.nan}).values())
    zero = relative_to_fastest({"a": 0.0, "b": 1.0})  # below the clock's resolution
    assert zero["a"] == 1.0 and math.isnan(zero["b"])


@pytest.mark.parametrize("x, y, u, p", [
    # exact, no ties: all C(n1+n2, n1) orderings equally likely; p = 2 P(U >= max(U, n1 n2 - U))
    ([1, 2, 3], [4, 5, 6], 0, 2 / 20),
    ([1, 2, 4], [3, 5, 6], 1, 2 * 2 / 20),  # U of 3x3: counts 1,1,2,3,3,3,3,2,1,1 over 20
    ([3, 5, 6], [1, 2, 4], 8, 2 * 2 / 20),
    ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10], 0, 2 / 252),
    ([1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12], 0, 2 / 924),
    ([1], [2], 0, 1.0),  # 2 x 1/2, capped at 1
])
def test_mann_whitney_exact(x, y, u, p):
    test = mann_whitney(x, y)
    assert (test.u, test.method) == (u, "exact") and test.p == pytest.approx(p, rel=1e-12)


def test_mann_whitney_normal_with_ties():
    # ranks 1.5 1.5 4 4 7 of x: U = 18 - 15 = 3; ties 2, 3, 3, 2 give sum(t^3 - t) = 60;
    # sigma^2 = 25/12 (11 - 60/90); z = (22 - 12.5 - 0.5) / sigma; p = erfc(z / sqrt 2)
    test = mann_whitney([1, 1, 2, 2, 3], [2, 3, 3, 4, 4])
    sigma = math.sqrt(25 / 12 * (11 - 60 / 90))
    assert (test.u, test.method) == (3, "normal")
    assert test.p == pytest.approx(math.erfc(9 / sigma / math.sqrt(2)), rel=1e-12)
    assert test.p == pytest.approx(0.05241, abs=1e-5)


def test_mann_whitney_normal_for_large_samples():
    # 10 + 10 separated: U = 0, z = (100 - 50 - 0.5) / sqrt(100 * 21 / 12)
    test = mann_whitney(range(10), range(10, 20))
    assert (test.u, test.method) == (0, "normal")
    assert test.p == pytest.approx(math.erfc(49.5 / math.sqrt(175) / math.sqrt(2)), rel=1e-12)
    assert test.p == pytest.approx(1.8267e-4, rel=1e-3)


def test_mann_whitney_of_equal_or_missing_samples():
    assert mann_whitney([1.0] * 4, [1.0] * 5).p == 1.0
    assert math.isnan(mann_whitney([], [1.0]).p)


def test_the_significance_rule_names_alpha():
    assert "p < 0.01" in significance_rule(0.01) and "beyond noise" in significance_rule()


def test_can_reach_tells_whether_any_p_falls_below_alpha():
    """2 / C(6, 3) = 0.1: three runs a side can never give p < 0.05; four can (2/70)."""
    assert not can_reach(3, 3, 0.05)
    assert can_reach(4, 4, 0.05)
    assert can_reach(3, 3, 0.2)
    assert not can_reach(0, 5, 0.05)
