"""The answer certificate: proves a solver's flow value is the maximum.

Computed from the original network and the final residuals alone, never from a solver's own
excess or labels: (a) every input arc carries 0 <= flow <= capacity, and each residual pair
sums to its capacity; (b) excess = inflow - outflow is >= 0 at every vertex but the source
(a preflow), and 0 when a flow is claimed; the sink's excess is the flow value; (c) the source
cannot reach the sink in the residual graph, so S = the vertices that cannot reach it holds the
source and not the sink, and no residual arc leaves S; (d) the capacity of the cut (S, V \\ S)
equals the flow value. A feasible preflow of value e(t) and a cut of the same capacity
prove optimality.
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
    network = graph.network
    res = result.res
    problems = []
    forward = graph.arc_of_input
    backward = graph.rev[forward]
    flow = network.caps - res[forward]
    if np.any(res[forward] < 0) or np.any(flow < 0):
        problems.append(f"{int(np.sum((res[forward] < 0) | (flow < 0)))} arcs break 0 <= flow "
                        "<= capacity")
    if np.any(res[forward] + res[backward] != network.caps):
        problems.append("residual capacities of a pair of arcs do not add up to the capacity")
    excess = _net_inflow(graph.n, network.tails, network.heads, flow)
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
    crossing = source_side[network.tails] & ~source_side[network.heads]
    cut_capacity = _exact_sum(network.caps[crossing])
    if cut_capacity != result.flow_value:
        problems.append(f"the cut's capacity {cut_capacity} differs from the flow value "
                        f"{result.flow_value}")
    return Certificate(not problems, problems, source_side, cut_capacity)


@numba.njit(cache=True)
def _net_inflow(n, tails, heads, flow):
    excess = np.zeros(n, np.int64)
    for i in range(tails.shape[0]):
        if tails[i] != heads[i]:
            excess[heads[i]] += flow[i]
            excess[tails[i]] -= flow[i]
    return excess


def _exact_sum(values: np.ndarray) -> int:
    """Sum of values in 0..2^62 as a Python int, exact for up to 2^32 of them."""
    high = int(np.sum(values >> 31, dtype=np.int64))
    low = int(np.sum(values & (2**31 - 1), dtype=np.int64))
    return (high << 31) + low
