"""Statistics of a cell's measured runs, and the rules that call runs unstable or a change noise.

Robust statistics, as hyperfine and pyperf report them: the median, the median absolute
deviation (MAD, *unscaled*: median(|x - median|), not multiplied by 1.4826), the minimum and
the maximum. Speedups are ratios of medians from the same run, summarised per family by
their geometric mean (the mean that treats 2x faster and 2x slower symmetrically).
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
