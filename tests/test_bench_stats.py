"""bench.stats: median, unscaled MAD, min, max, the instability rule, geometric mean, noise."""

import math

import pytest

from maxflow_cli.bench.stats import geometric_mean, summarize, within_noise


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
