"""The answer certificate: proves a solver's flow value is the maximum.

Computed from the input arcs (each one's forward arc and the paired one) and the final
residuals alone, never from a solver's own excess or labels: (a) every input arc carries 0 <=
flow <= capacity, and each residual pair sums to its capacity; (b) excess = inflow - outflow is
>= 0 at every vertex but the source (a preflow), and 0 when a flow is claimed; the sink's
excess is the flow value; (c) the source cannot reach the sink in the residual graph, so S =
the vertices that cannot reach it holds the source and not the sink, and no residual arc leaves
S; (d) the capacity of the cut (S, V \\ S) equals the flow value. A feasible preflow of value
e(t) and a cut of the same capacity prove optimality. Every pass runs on all threads: the
arc checks and the cut's sum over the input arcs, and (c)'s search a level at a time.
"""

from dataclasses import dataclass

import numba
import numpy as np
from numba import prange

from maxflow_cli.atomics import atomic_add, atomic_cas
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


@dataclass
class Certificate:
    ok: bool
    problems: list[str]
    source_side: np.ndarray  # bool[n]: S, the source side of a minimum cut
    cut_capacity: int


FLUSH = 1024
"""Vertices a thread of the search finds before it appends them to the next level at once
(one atomic add on the level's end per FLUSH vertices)."""

SMALL_LEVEL = 8192
"""The certificate's search scans a level of fewer vertices on one thread: on one thread it
takes about as long as starting the others (tens of microseconds), more on a loaded machine."""


def min_cut_source_side(graph: ResidualGraph, res: np.ndarray) -> np.ndarray:
    """S: the vertices that cannot reach the sink in the residual graph."""
    label = np.empty(graph.n, np.int32)
    order = np.empty(graph.n, np.int32)
    sink_distances(graph.first, graph.head, graph.rev, res, graph.sink, label, order,
                   numba.get_num_threads(), SMALL_LEVEL)
    return label == graph.n


@numba.njit(cache=True)
def _scan(first, head, rev, res, label, order, low, high, level, end, shared):
    """Label level + 1 the unlabeled vertices that reach order[low:high] (of level `level`)
    by a residual arc, and append them to `order` at end[0] (advanced atomically, FLUSH
    vertices at a time). Where other threads scan the same level (`shared`), each vertex is
    claimed by one of them (compare-and-swap)."""
    n = label.shape[0]
    found = np.empty(FLUSH, np.int32)
    count = 0
    for j in range(low, high):
        u = order[j]
        for a in range(first[u], first[u + 1]):
            v = head[a]
            if label[v] == n and res[rev[a]] > 0 and \
                    (not shared or atomic_cas(label, v, n, level + 1) == n):
                label[v] = level + 1
                found[count] = v
                count += 1
                if count == FLUSH:
                    at = atomic_add(end, 0, count)
                    order[at:at + count] = found
                    count = 0
    at = atomic_add(end, 0, count)
    order[at:at + count] = found[:count]


@numba.njit(cache=True, parallel=True)
def sink_distances(first, head, rev, res, sink, label, order, threads, small):
    """Exact distances to `sink` over residual arcs into `label` (n where it cannot be
    reached), as steps.reverse_bfs gives them, a level at a time, each level of `small`
    vertices or more split in up to 8 parts per thread (`threads`). `order` receives the
    reached vertices level by level (within a level in no fixed order); returns how many
    were reached."""
    n = label.shape[0]
    label[:] = n
    label[sink] = 0
    order[0] = sink
    end = np.ones(1, np.int64)
    low, high, level = 0, 1, 0
    while low < high:
        if high - low < small:
            _scan(first, head, rev, res, label, order, low, high, level, end, False)
        else:
            parts = min((high - low) // small, 8 * threads)
            for part in prange(parts):
                _scan(first, head, rev, res, label, order, low + (high - low) * part // parts,
                      low + (high - low) * (part + 1) // parts, level, end, True)
        low, high, level = high, end[0], level + 1
    return high


def check_answer(graph: ResidualGraph, result: SolveResult) -> Certificate:
    res = result.res
    problems = _preflow_problems(graph, result)
    source_side = min_cut_source_side(graph, res)
    if not source_side[graph.source]:
        problems.append("the source still reaches the sink in the residual graph: the preflow "
                        "is not maximum")
    high, low = _cut_sums(graph.head, graph.rev, graph.caps, graph.arc_of_input, source_side)
    cut_capacity = (int(high) << 31) + int(low)
    if cut_capacity != result.flow_value:
        problems.append(f"the cut's capacity {cut_capacity} differs from the flow value "
                        f"{result.flow_value}")
    return Certificate(not problems, problems, source_side, cut_capacity)


def _preflow_problems(graph: ResidualGraph, result: SolveResult) -> list[str]:
    """(a) and (b): what breaks the capacities, the pairs, the preflow or the flow, and a
    sink excess other than the flow value. The excesses are freed on return, before the
    search allocates its arrays."""
    problems = []
    broken, unpaired, excess = _arc_checks(graph.head, graph.rev, graph.caps,
                                           graph.arc_of_input, result.res, graph.n)
    if broken:
        problems.append(f"{broken} arcs break 0 <= flow <= capacity")
    if unpaired:
        problems.append("residual capacities of a pair of arcs do not add up to the capacity")
    negative, nonzero = _vertex_checks(excess, graph.source, graph.sink)
    if negative:
        problems.append(f"{negative} vertices send out more than they receive")
    if result.is_flow and nonzero:
        problems.append(f"flow conservation fails at {nonzero} vertices")
    if int(excess[graph.sink]) != result.flow_value:
        problems.append(f"the sink receives {int(excess[graph.sink])}, not the flow value "
                        f"{result.flow_value}")
    return problems


@numba.njit(cache=True, parallel=True)
def _vertex_checks(excess, source, sink):
    """How many vertices but the source and the sink have a negative excess, and how many a
    nonzero one."""
    negative = nonzero = 0
    for v in prange(excess.shape[0]):
        if v != source and v != sink:
            negative += excess[v] < 0
            nonzero += excess[v] != 0
    return negative, nonzero


@numba.njit(cache=True, parallel=True)
def _arc_checks(head, rev, caps, arc_of_input, res, n):
    """One pass over the input arcs, read from their forward arcs and the paired ones, with no
    array of the arcs' size: how many break 0 <= flow <= capacity, how many pairs' residuals do
    not add up to the capacity, and each vertex's excess (inflow - outflow; self-loops carry
    nothing)."""
    excess = np.zeros(n, np.int64)
    broken = unpaired = 0
    for i in prange(arc_of_input.shape[0]):
        forward = arc_of_input[i]
        backward = rev[forward]
        flow = np.int64(caps[i]) - res[forward]
        broken += res[forward] < 0 or flow < 0
        unpaired += np.int64(res[forward]) + res[backward] != caps[i]
        tail, to = head[backward], head[forward]
        if tail != to:
            atomic_add(excess, to, flow)
            atomic_add(excess, tail, -flow)
    return broken, unpaired, excess


@numba.njit(cache=True, parallel=True)
def _cut_sums(head, rev, caps, arc_of_input, source_side):
    """The capacities of the input arcs from S to V \\ S, summed exactly in two int64 halves
    (bits 31 and up, bits 0-30): capacities are at most 2^62 and arcs at most
    limits.MAX_ARCS."""
    high = low = 0
    for i in prange(arc_of_input.shape[0]):
        forward = arc_of_input[i]
        if source_side[head[rev[forward]]] and not source_side[head[forward]]:
            high += np.int64(caps[i]) >> 31
            low += np.int64(caps[i]) & (2**31 - 1)
    return high, low
