"""Numba twin of single_loop.cu: Alvino 2015, Algorithm 12, on the CPU.

The same discharge on the same arrays. A launch over a vertex range discharges its vertices
one after the other, in order, each to the end of its loop: one of the interleavings the
lock-free algorithm allows, in which a vertex that receives excess after its turn ended keeps
it until the next launch, as on the GPU.
"""

import numba

from maxflow_cli.kernels.declarations import PREFLOW_COUNTS
from maxflow_cli.limits import INT32_MAX

PUSHES, RELABELS = PREFLOW_COUNTS.slot("pushes"), PREFLOW_COUNTS.slot("relabels")


@numba.njit(cache=True)
def discharge(u, n, first, head, rev, res, excess, label, counts):
    """Algorithm 12 for vertex u: push to every residual neighbour with a lower label and find,
    in the same loop, the lowest label among the arcs that stay residual; relabel to it + 1
    while excess is left, stop when that label is n or more. Returns 1 if u was active when
    its thread looked, else 0."""
    looked = 0
    while True:
        e = excess[u]
        h = label[u]
        if e <= 0 or h >= n:
            return looked
        looked = 1
        lowest = INT32_MAX
        for a in range(first[u], first[u + 1]):
            v = head[a]
            r = res[a]
            if v == u or r <= 0:  # self-loops carry nothing
                continue
            h_v = label[v]
            if h_v < h and e > 0:
                delta = min(e, r)
                res[rev[a]] += delta
                res[a] -= delta
                excess[v] += delta
                excess[u] -= delta
                e -= delta
                r -= delta
                counts[PUSHES] += 1
            if r > 0 and h_v < lowest:
                lowest = h_v
        if e <= 0:
            continue
        if lowest >= n:
            return 1
        label[u] = lowest + 1
        counts[RELABELS] += 1


@numba.njit(cache=True)
def single_loop_kernel(n, source, sink, begin, end, first, head, rev, res, excess, label,
                       counts, active_count):
    """Twin of single_loop_kernel on the vertices of [begin, end) but the source and the sink;
    adds the pushes and relabels to their counts, and the vertices found active to
    active_count[0]."""
    for u in range(begin, end):
        if u != source and u != sink:
            active_count[0] += discharge(u, n, first, head, rev, res, excess, label, counts)
