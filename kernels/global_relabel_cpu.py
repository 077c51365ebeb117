"""Numba twins of global_relabel.cu: Gutiérrez Mota 2012, alg. 4.5, 4.6 and 4.8, on the CPU.

The same per-vertex steps on the same arrays, the vertices taken in order. Violation
cancellation is maxflow_cli.steps', which He & Hong's global_relabel_cpu
(pushrelabel/relabel.py) takes too.
"""

import numba

from maxflow_cli.kernels.declarations import PREFLOW_COUNTS
from maxflow_cli.steps import cancel_violations

CANCELLED = PREFLOW_COUNTS.slot("violations_cancelled")


@numba.njit(cache=True)
def cancel_violations_kernel(n, source, first, head, rev, res, excess, label, counts):
    """Twin of cancel_violations_kernel: cancel_violations, its count added to
    counts[CANCELLED]."""
    counts[CANCELLED] += cancel_violations(first, head, rev, res, excess, label, source)


@numba.njit(cache=True)
def reset_labels_kernel(n, source, sink, unreached, label):
    """Twin of reset_labels_kernel (alg. 4.6)."""
    label[:] = unreached
    label[source] = n
    label[sink] = 0


@numba.njit(cache=True)
def bfs_level_kernel(n, level, unreached, first, head, rev, res, label, changed):
    """Twin of bfs_level_kernel (alg. 4.8): label level + 1 the unreached vertices with a
    residual arc into a vertex at `level`; sets changed[0] when it labelled one."""
    for u in range(n):
        if label[u] != level:
            continue
        for a in range(first[u], first[u + 1]):
            v = head[a]
            if label[v] == unreached and res[rev[a]] > 0:
                label[v] = level + 1
                changed[0] = 1
