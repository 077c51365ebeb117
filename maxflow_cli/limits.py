"""The size limits every part of the tool shares, set by the integer types of the arrays.

Vertices and arc indices are int32 (the kernels take them as C ints); every input arc has two
residual arcs, so at most 2^30 - 1 input arcs. Capacities stay at or below 2^62, so that sums
of a few still fit int64; excesses and flow values are int64.
"""

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
MAX_VERTICES = INT32_MAX - 1
MAX_ARCS = 2**30 - 1  # two residual arcs each, indexed by int32
MAX_CAPACITY = 2**62
