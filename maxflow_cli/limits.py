"""The size limits every part of the tool shares, set by the integer types of the arrays.

Vertices are int32 (the kernels take them as C ints). Every input arc has two residual arcs,
indexed by int32 up to MAX_NARROW_ARCS input arcs and by int64 beyond (arc_index_type).
Capacities stay at or below 2^62, so that sums of a few still fit int64; excesses and flow
values are int64.
"""

import numpy as np

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
MAX_VERTICES = INT32_MAX - 1
MAX_NARROW_ARCS = 2**30 - 32
"""The most input arcs whose 2m residual arcs int32 indexes, with room past the last for the
32 lanes of a warp that step through a vertex's arcs together (gpu_sync.cu)."""
MAX_ARCS = 2**32 - 1
"""The most input arcs: the input checks sum capacities exactly in two int64 halves, each
taking up to 2^31 an arc (residual._summary, check.cut_capacity)."""
MAX_CAPACITY = 2**62


def int_type(largest: int) -> type:
    """The narrowest integer type that holds every value from 0 to `largest`: int32 where it
    can (capacities, gpu-sync's residuals: 4 bytes a value instead of 8), else int64."""
    return np.int32 if largest <= INT32_MAX else np.int64


def arc_index_type(m: int) -> type:
    """The index type of the residual arcs of m input arcs (first, rev, arc_of_input): int32
    where the 2m residual arcs fit it, else int64."""
    return np.int32 if m <= MAX_NARROW_ARCS else np.int64
