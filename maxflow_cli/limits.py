"""The size limits every part of the tool shares, set by the integer types of the arrays.

Vertices and arc indices are int32 (the kernels take them as C ints); every input arc has two
residual arcs, so at most 2^30 - 1 input arcs. Capacities stay at or below 2^62, so that sums
of a few still fit int64; excesses and flow values are int64.
"""

import numpy as np

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
MAX_VERTICES = INT32_MAX - 1
MAX_ARCS = 2**30 - 1  # two residual arcs each, indexed by int32
MAX_CAPACITY = 2**62


def int_type(largest: int) -> type:
    """The narrowest integer type that holds every value from 0 to `largest`: int32 where it
    can (capacities, gpu-sync's residuals: 4 bytes a value instead of 8), else int64."""
    return np.int32 if largest <= INT32_MAX else np.int64
