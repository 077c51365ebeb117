"""Numba steps on the residual graph that both the CPU solvers (maxflow_cli.pushrelabel) and
the kernels' twins (maxflow_cli.kernels) take: they live below both, so that neither layer
imports the other's twins.

- ``reverse_bfs``: hi_pr's global update, exact distances to the sink (He & Hong 2010,
  Program 4 lines 9-16; Gutiérrez Mota 2012, alg. 4.6);
- ``lowest_neighbour``: He & Hong 2010, Program 3 lines 7-13;
- ``cancel_violations``, ``cancel_at``: violation cancellation (He & Hong 2010, Program 4
  lines 1-8; Gutiérrez Mota 2012, alg. 4.5).
"""

import numba

from maxflow_cli.atomics import atomic_add, atomic_load
from maxflow_cli.limits import INT32_MAX


@numba.njit(cache=True, nogil=True)
def reverse_bfs(first, head, rev, res, sink, label, order):
    """Exact distances to `sink` over residual arcs into `label` (n if unreachable).

    `order` receives the reached vertices in BFS order; returns how many were reached.
    """
    n = label.shape[0]
    label[:] = n
    label[sink] = 0
    order[0] = sink
    tail = 1
    position = 0
    while position < tail:
        u = order[position]
        position += 1
        next_label = label[u] + 1
        for a in range(first[u], first[u + 1]):
            v = head[a]
            if label[v] == n and res[rev[a]] > 0:
                label[v] = next_label
                order[tail] = v
                tail += 1
    return tail


@numba.njit(cache=True, inline="always")
def lowest_neighbour(u, first, head, res, label):
    """He & Hong 2010, Program 3 lines 7-13: the residual arc out of u (self-loops carry
    nothing) whose head has the lowest label, and that label; (-1, INT32_MAX) where u has
    none. The loads are atomic (relaxed), for the threads of lockfree that write res and
    label meanwhile; alone, they are plain loads."""
    lowest_label = INT32_MAX
    lowest_arc = -1
    for a in range(first[u], first[u + 1]):
        v = head[a]
        if v != u and atomic_load(res, a) > 0:
            h_v = atomic_load(label, v)
            if h_v < lowest_label:
                lowest_label = h_v
                lowest_arc = a
    return lowest_arc, lowest_label


@numba.njit(cache=True)
def cancel_violations(first, head, rev, res, excess, label, source):
    """global_relabel.cu's cancel_violations_kernel: push along every residual arc (u, v) with
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
