"""Labeling pieces shared by the solvers: preflow initialisation (He & Hong's Program 2),
He & Hong's global_relabel_cpu (its violation cancellation and reverse BFS are
maxflow_cli.steps', which the GPU kernels' twins take too), the stranding of excess that can
no longer reach the sink, and He & Hong's termination test.

Global relabeling (hi_pr's global update; He & Hong 2010, Program 4 lines 9-16; Gutiérrez
Mota 2012, alg. 4.6): the label of a vertex becomes its distance to the sink in the residual
graph, n where the sink cannot be reached.
"""

import numba
import numpy as np
from numba import prange

from maxflow_cli.atomics import atomic_add
from maxflow_cli.residual import scatter_capacities
from maxflow_cli.steps import cancel_violations, reverse_bfs


@numba.njit(cache=True)
def saturate_source_arcs(first, head, rev, res, excess, source):
    """Push each source arc's whole capacity (He & Hong 2010, Program 2; hi_pr init).

    Self-loops at the source carry nothing. Returns the total pushed (ExcessTotal); the
    source's excess becomes minus that total, so that excess = inflow - outflow everywhere.
    """
    total = 0
    for a in range(first[source], first[source + 1]):
        delta = _saturated(a, head, rev, res, source)
        excess[head[a]] += delta
        total += delta
    excess[source] -= total
    return total


@numba.njit(cache=True, parallel=True)
def saturate_source_arcs_parallel(first, head, rev, res, excess, source):
    """saturate_source_arcs with the source's arcs split among the threads (a vision grid's
    source reaches half of the vertices), the heads' excesses added to atomically (parallel
    arcs share a head): for graphs whose set-up is parallel anyway."""
    total = 0
    for a in prange(first[source], first[source + 1]):
        delta = _saturated(a, head, rev, res, source)
        if delta:
            atomic_add(excess, head[a], delta)
        total += delta
    excess[source] -= total
    return total


@numba.njit(cache=True, inline="always")
def _saturated(a, head, rev, res, source):
    """Source arc a's whole residual moved to its pair (none along a self-loop): the amount,
    which its head gains as excess."""
    delta = res[a]
    if head[a] == source or delta <= 0:
        return 0
    res[a] = 0
    res[rev[a]] += delta
    return delta


@numba.njit(cache=True, inline="always")
def lift_bucket(first_inactive, b_next, label, level):
    """hi_pr's gap relabeling of one bucket of inactive vertices (lists end at n): each is
    lifted to n and the bucket emptied. Returns how many were lifted."""
    n = label.shape[0]
    lifted = 0
    k = first_inactive[level]
    while k != n:
        label[k] = n
        lifted += 1
        k = b_next[k]
    first_inactive[level] = n
    return lifted


def initialize_preflow(graph, allocate=np.empty, res_type=np.int64):
    """He & Hong 2010, Program 2 (Hong's INIT, Alvino 2015 Algorithm 1 lines 1-16; Gutiérrez
    Mota 2012, alg. 4.2): residuals = capacities, labels 0 but the source's n, source arcs
    saturated. The arrays come from `allocate(length, dtype)` (np.empty, or a device's
    page-locked ``host_array``); the residuals are `res_type`s (int32 where they fit).
    Returns (res, excess, label, ExcessTotal)."""
    res = allocate(graph.head.shape[0], res_type)
    scatter_capacities(graph.caps, graph.arc_of_input, res)
    excess = allocate(graph.n, np.int64)
    excess[:] = 0
    label = allocate(graph.n, np.int32)
    label[:] = 0
    label[graph.source] = graph.n
    excess_total = saturate_source_arcs_parallel(graph.first, graph.head, graph.rev, res,
                                                 excess, graph.source)
    return res, excess, label, int(excess_total)


@numba.njit(cache=True)
def strand_and_count(label, excess, marked, source, sink):
    """Program 4 lines 10-16 after the reverse BFS, and aSize: the source keeps label n; each
    vertex that can no longer reach the sink is marked once and its excess (which never
    changes again: nothing pushes into a vertex labelled n) is returned, to come out of
    ExcessTotal, with the number of active vertices below n."""
    n = label.shape[0]
    label[source] = n
    stranded = 0
    active = 0
    for u in range(n):
        if u != source and u != sink:
            if label[u] < n:
                active += excess[u] > 0
            elif not marked[u]:
                marked[u] = True
                stranded += excess[u]
    return stranded, active


@numba.njit(cache=True)
def global_relabel_cpu(first, head, rev, res, excess, label, source, sink, marked, order):
    """He & Hong 2010, Program 4: violation cancellation, reverse BFS from the sink, and the
    excess of vertices that can no longer reach it taken out of ExcessTotal.

    The source keeps label n. `marked` flags the vertices already taken out (their excess
    never changes again: nothing pushes into a vertex labelled n). Returns (arcs cancelled,
    excess newly stranded, to subtract from ExcessTotal, active vertices left).
    """
    cancelled = cancel_violations(first, head, rev, res, excess, label, source)
    reverse_bfs(first, head, rev, res, sink, label, order)
    stranded, active = strand_and_count(label, excess, marked, source, sink)
    return cancelled, stranded, active


def unfinished(excess, source: int, sink: int, initial_total: int, excess_total: int,
               active: int | None = None, solver: str = "") -> bool:
    """He & Hong's loop condition e(s) + e(t) < ExcessTotal, e(s) being the flow returned to
    the source: its excess (inflow - outflow) plus the initial ExcessTotal. Given the active
    vertices a global relabel left, RuntimeError where none is left but the test still
    holds: the excess accounting is broken (a bug)."""
    left = bool(excess[source] + initial_total + excess[sink] < excess_total)
    if left and active == 0:
        raise RuntimeError(f"{solver + ': ' if solver else ''}no active vertex is left but "
                           "e(s) + e(t) != ExcessTotal: the excess accounting is broken (a bug)")
    return left
