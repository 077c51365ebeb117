"""The answer certificate: proves a solver's flow value is the maximum.

Computed from the input arcs (each one's forward arc and the paired one) and the final
residuals alone, never from a solver's own excess or labels: (a) every input arc carries 0 <=
flow <= capacity, and each residual pair sums to its capacity; (b) excess = inflow - outflow is
>= 0 at every vertex but the source (a preflow), and 0 when a flow is claimed; the sink's
excess is the flow value; (c) the source cannot reach the sink in the residual graph, so S =
the vertices that cannot reach it holds the source and not the sink, and no residual arc leaves
S; (d) the capacity of the cut (S, V \\ S) equals the flow value. A feasible preflow of value
e(t) and a cut of the same capacity prove optimality.
"""

from dataclasses import dataclass

import numba
import numpy as np

from maxflow_cli.pushrelabel.relabel import sink_reaching
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


@dataclass
class Certificate:
    ok: bool
    problems: list[str]
    source_side: np.ndarray  # bool[n]: S, the source side of a minimum cut
    cut_capacity: int


def min_cut_source_side(graph: ResidualGraph, res: np.ndarray) -> np.ndarray:
    """S: the vertices that cannot reach the sink in the residual graph."""
    return ~sink_reaching(graph, res)


def check_answer(graph: ResidualGraph, result: SolveResult) -> Certificate:
    res = result.res
    problems = []
    broken, unpaired, excess = _arc_checks(graph.head, graph.rev, graph.cap,
                                           graph.arc_of_input, res, graph.n)
    if broken:
        problems.append(f"{broken} arcs break 0 <= flow <= capacity")
    if unpaired:
        problems.append("residual capacities of a pair of arcs do not add up to the capacity")
    others = np.ones(graph.n, bool)
    others[[graph.source, graph.sink]] = False
    if np.any(excess[others] < 0):
        problems.append(f"{int(np.sum(excess[others] < 0))} vertices send out more than they "
                        "receive")
    if result.is_flow and np.any(excess[others] != 0):
        problems.append(f"flow conservation fails at {int(np.sum(excess[others] != 0))} "
                        "vertices")
    if int(excess[graph.sink]) != result.flow_value:
        problems.append(f"the sink receives {int(excess[graph.sink])}, not the flow value "
                        f"{result.flow_value}")
    source_side = min_cut_source_side(graph, res)
    if not source_side[graph.source]:
        problems.append("the source still reaches the sink in the residual graph: the preflow "
                        "is not maximum")
    high, low = _cut_sums(graph.head, graph.rev, graph.cap, graph.arc_of_input, source_side)
    cut_capacity = (int(high) << 31) + int(low)
    if cut_capacity != result.flow_value:
        problems.append(f"the cut's capacity {cut_capacity} differs from the flow value "
                        f"{result.flow_value}")
    return Certificate(not problems, problems, source_side, cut_capacity)


@numba.njit(cache=True)
def _arc_checks(head, rev, cap, arc_of_input, res, n):
    """One pass over the input arcs, read from their forward arcs and the paired ones, with no
    array of the arcs' size: how many break 0 <= flow <= capacity, how many pairs' residuals do
    not add up to the capacity, and each vertex's excess (inflow - outflow; self-loops carry
    nothing)."""
    excess = np.zeros(n, np.int64)
    broken = unpaired = 0
    for i in range(arc_of_input.shape[0]):
        forward = arc_of_input[i]
        backward = rev[forward]
        flow = cap[forward] - res[forward]
        broken += res[forward] < 0 or flow < 0
        unpaired += res[forward] + res[backward] != cap[forward]
        tail, to = head[backward], head[forward]
        if tail != to:
            excess[to] += flow
            excess[tail] -= flow
    return broken, unpaired, excess


@numba.njit(cache=True)
def _cut_sums(head, rev, cap, arc_of_input, source_side):
    """The capacities of the input arcs from S to V \\ S, summed exactly in two int64 halves
    (bits 31 and up, bits 0-30): capacities are at most 2^62 and at most 2^30 arcs."""
    high = low = 0
    for i in range(arc_of_input.shape[0]):
        forward = arc_of_input[i]
        if source_side[head[rev[forward]]] and not source_side[head[forward]]:
            high += cap[forward] >> 31
            low += cap[forward] & (2**31 - 1)
    return high, low
