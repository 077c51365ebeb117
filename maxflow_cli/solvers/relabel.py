"""Labeling pieces shared by the solvers: reverse BFS from the sink, preflow initialisation,
and He & Hong's global_relabel_cpu (its violation cancellation is the twin of the GPU kernel,
in kernels/global_relabel_cpu.py).

Global relabeling (hi_pr's global update; He & Hong 2010, Program 4 lines 9-16; Gutiérrez
Mota 2012, alg. 4.6): the label of a vertex becomes its distance to the sink in the residual
graph, n where the sink cannot be reached.
"""

import numba
import numpy as np

from maxflow_cli.kernels.global_relabel_cpu import cancel_violations


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def saturate_source_arcs(first, head, rev, res, excess, source):
    """Push each source arc's whole capacity (He & Hong 2010, Program 2; hi_pr init).

    Self-loops at the source carry nothing. Returns the total pushed (ExcessTotal); the
    source's excess becomes minus that total, so that excess = inflow - outflow everywhere.
    """
    total = 0
    for a in range(first[source], first[source + 1]):
        v = head[a]
        if v != source and res[a] > 0:
            delta = res[a]
            res[a] = 0
            res[rev[a]] += delta
            excess[v] += delta
            total += delta
    excess[source] -= total
    return total


def sink_reaching(graph, res: np.ndarray) -> np.ndarray:
    """Boolean mask of the vertices that reach the sink in the residual graph."""
    label = np.empty(graph.n, np.int32)
    order = np.empty(graph.n, np.int32)
    reverse_bfs(graph.first, graph.head, graph.rev, res, graph.sink, label, order)
    return label < graph.n


@numba.njit(cache=True)
def global_relabel_cpu(first, head, rev, res, excess, label, source, sink, marked, order):
    """He & Hong 2010, Program 4: violation cancellation, reverse BFS from the sink, and the
    excess of vertices that can no longer reach it taken out of ExcessTotal.

    The source keeps label n. `marked` flags the vertices already taken out (their excess
    never changes again: nothing pushes into a vertex labelled n). Returns (arcs cancelled,
    excess newly stranded, to subtract from ExcessTotal, active vertices left).
    """
    n = label.shape[0]
    cancelled = cancel_violations(first, head, rev, res, excess, label)
    reverse_bfs(first, head, rev, res, sink, label, order)
    label[source] = n
    stranded = 0
    active = 0
    for u in range(n):
        if u == source or u == sink:
            continue
        if label[u] == n:
            if not marked[u]:
                marked[u] = True
                stranded += excess[u]
        elif excess[u] > 0:
            active += 1
    return cancelled, stranded, active
