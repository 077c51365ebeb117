"""Statistics of a cell's measured runs, and the rules that call runs unstable or a change noise.

Robust statistics, as hyperfine and pyperf report them: the median, the median absolute
deviation (MAD, *unscaled*: median(|x - median|), not multiplied by 1.4826), the minimum and
the maximum. Speedups are ratios of medians from the same run, summarised per family by
their geometric mean (the mean that treats 2x faster and 2x slower symmetrically). Two runs'
samples of a cell are compared by the MAD rule and by the Mann–Whitney U test, implemented
here (numpy only): a change is significant when both say so.
"""

import math
from dataclasses import dataclass

import numpy as np

UNSTABLE_MAD = 0.05
UNSTABLE_SPREAD = 1.5
UNSTABLE_RULE = (
    f"unstable: MAD > {UNSTABLE_MAD:.0%} of the median, or the slowest tenth of the runs "
    f"(90th percentile) > {UNSTABLE_SPREAD} x the fastest"
)
NOISE_MADS = 3.0
NOISE_RULE = f"within noise: the medians differ by at most {NOISE_MADS:g} x the larger MAD"
ALPHA = 0.05


def significance_rule(alpha: float = ALPHA) -> str:
    """When `bench compare` calls a change significant, in words."""
    return (f"significant: beyond noise and the samples differ by the Mann-Whitney U test "
            f"(two-sided p < {alpha:g}; by the noise rule alone where the samples are too few "
            f"for p to fall that low, as with fewer than 4 runs a side at 0.05)")


@dataclass(frozen=True)
class Stats:
    runs: int
    median: float
    mad: float
    minimum: float
    maximum: float
    unstable: bool


def summarize(samples) -> Stats:
    """Median, unscaled MAD, min, max of ``samples`` (seconds), and whether they are unstable.

    The spread test uses the 90th percentile, not the maximum, so that one preempted run
    among thousands does not condemn a cell; with 10 runs or fewer it is close to the maximum.
    No samples (an external program that failed) give NaN statistics.
    """
    if len(samples) == 0:
        return Stats(0, math.nan, math.nan, math.nan, math.nan, False)
    values = np.asarray(samples, dtype=np.float64)
    median = float(np.median(values))
    mad = float(np.median(np.abs(values - median)))
    minimum = float(values.min())
    unstable = (mad > UNSTABLE_MAD * median
                or float(np.percentile(values, 90)) > UNSTABLE_SPREAD * minimum)
    return Stats(len(values), median, mad, minimum, float(values.max()), unstable)


def geometric_mean(values) -> float:
    """exp(mean(log x)) of positive values; nan for none."""
    values = [value for value in values if value > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def within_noise(old_median: float, old_mad: float, new_median: float, new_mad: float) -> bool:
    """Whether two medians differ by no more than NOISE_MADS times the larger MAD."""
    return abs(new_median - old_median) <= NOISE_MADS * max(old_mad, new_mad)


def relative_to_fastest(times: dict) -> dict:
    """Each time over the fastest (least) of them, as Jensen et al. (TPAMI 2023) tabulate: 1.0
    for the fastest, NaN for a NaN time (a failed cell). Where the fastest is 0 s (below the
    clock's resolution), 1.0 for it and NaN for the others."""
    finite = [time for time in times.values() if not math.isnan(time)]
    best = min(finite, default=math.nan)
    return {key: math.nan if math.isnan(time) else
            1.0 if time == best else time / best if best > 0 else math.nan
            for key, time in times.items()}


EXACT_LIMIT = 8
"""The Mann–Whitney test is exact when one sample has at most this many values and no value is
tied (scipy's rule); else normal with a tie correction."""


@dataclass(frozen=True)
class MannWhitney:
    u: float  # U of the first sample: how many (x, y) pairs have x > y, ties counted 1/2
    p: float  # two-sided
    method: str  # "exact" or "normal"


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, tied values given the mean of their ranks."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(values)]
    ranks = np.empty(len(values))
    ranks[order] = np.repeat((starts + ends + 1) / 2, ends - starts)
    return ranks


def _exact_sf(u: int, n1: int, n2: int) -> float:
    """P(U >= u) under the null hypothesis, no ties: counts of U over the C(n1 + n2, n1)
    orderings, the coefficients of the Gaussian binomial [n1 + n2, n1]_q."""
    counts = [1] + [0] * (n1 * n2)
    for i in range(1, n1 + 1):  # multiply by (1 - q^(n2 + i)), divide by (1 - q^i)
        for k in range(len(counts) - 1, n2 + i - 1, -1):
            counts[k] -= counts[k - n2 - i]
        for k in range(i, len(counts)):
            counts[k] += counts[k - i]
    return sum(counts[u:]) / sum(counts)


def can_reach(n1: int, n2: int, alpha: float) -> bool:
    """Whether samples of n1 and n2 values can give a two-sided p below alpha at all: the
    smallest is 2 / C(n1 + n2, n1), with one sample wholly above the other."""
    return n1 > 0 and n2 > 0 and 2 / math.comb(n1 + n2, n1) < alpha


def mann_whitney(x, y) -> MannWhitney:
    """The two-sided Mann–Whitney U test of samples ``x`` and ``y``: exact without ties when one
    has at most EXACT_LIMIT values, else the normal approximation with tie correction and
    continuity correction (as scipy.stats.mannwhitneyu, method "auto"). NaN for an empty
    sample."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        return MannWhitney(math.nan, math.nan, "none")
    values = np.concatenate([x, y])
    u1 = float(_ranks(values)[:n1].sum() - n1 * (n1 + 1) / 2)
    larger = max(u1, n1 * n2 - u1)
    _, ties = np.unique(values, return_counts=True)
    if min(n1, n2) <= EXACT_LIMIT and ties.max() == 1:
        return MannWhitney(u1, min(1.0, 2 * _exact_sf(round(larger), n1, n2)), "exact")
    n = n1 + n2
    tie_term = float((ties ** 3 - ties).sum()) / (n * (n - 1))
    sigma = math.sqrt(n1 * n2 / 12 * (n + 1 - tie_term))
    if sigma == 0:  # every value the same
        return MannWhitney(u1, 1.0, "normal")
    z = (larger - n1 * n2 / 2 - 0.5) / sigma
    return MannWhitney(u1, min(1.0, math.erfc(z / math.sqrt(2))), "normal")
