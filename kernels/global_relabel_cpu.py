"""Numba twins of global_relabel.cu: Gutiérrez Mota 2012, alg. 4.5, 4.6 and 4.8, on the CPU.

The same per-vertex steps on the same arrays, the vertices taken in order. Violation
cancellation is also the CPU code of He & Hong's global_relabel_cpu (pushrelabel/relabel.py).
"""

import numba

from maxflow_cli.atomics import atomic_add
from maxflow_cli.kernels.declarations import PREFLOW_COUNTS

CANCELLED = PREFLOW_COUNTS.slot("violations_cancelled")


@numba.njit(cache=True)
def cancel_violations(first, head, rev, res, excess, label, source):
    """Twin of cancel_violations_kernel: push along every residual arc (u, v) with
    label(u) > label(v) + 1 (He & Hong 2010, Program 4 lines 1-8; Gutiérrez Mota 2012,
    alg. 4.5).

    The seeds push the arc's whole residual, which leaves u with a deficit (negative excess)
    when u has already sent its excess elsewhere, and a deficit no push repays adds to the
    sink's flow value. So u pushes at most the excess it had before the pass (the source,
    the whole residual): the outcome does not depend on the order of the vertices, so the
    parallel twin gives the same. An arc left violating is harmless, the global relabel that
    follows computes exact labels. Returns the number of arcs pushed along.
    """
    budget = excess.copy()
    cancelled = 0
    for u in range(label.shape[0]):
        cancelled += cancel_at(u, first, head, rev, res, excess, label, source, budget[u])
    return cancelled


@numba.njit(cache=True, inline="always")
def cancel_at(u, first, head, rev, res, excess, label, source, budget):
    """Cancel the violations on u's arcs, pushing at most `budget` in all unless u is the
    source; returns how many arcs were pushed along. Adds to excess[head] atomically (the
    parallel twin runs vertices at once); only u's own call lowers excess[u]."""
    arcs = 0
    for a in range(first[u], first[u + 1]):
        delta = res[a] if u == source else min(res[a], max(budget, 0))
        if delta > 0 and label[u] > label[head[a]] + 1:
            budget -= delta
            res[a] -= delta
            res[rev[a]] += delta
            atomic_add(excess, u, -delta)
            atomic_add(excess, head[a], delta)
            arcs += 1
    return arcs


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
