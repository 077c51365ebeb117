"""`bk`: Boykov & Kolmogorov's search trees, the vision codes' classic; the core is
maxflow_cli.bk.search_trees."""

import numpy as np

from maxflow_cli.bk.search_trees import COUNTER_NAMES, bk_max_flow, net_inflows
from maxflow_cli.pushrelabel.highest_label import solve_by_preflow
from maxflow_cli.registry import SolveOptions, register_compiled
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def bk_preflow(graph: ResidualGraph, res: np.ndarray, params, stop) -> tuple[np.ndarray, dict]:
    """The maximum flow in `res` (a flow is a preflow: stage 2 has nothing to return), the
    vertices' net inflows as excesses, and the counters."""
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    bk_max_flow(graph.first, graph.head, graph.rev, res, graph.source, graph.sink, counters,
                np.zeros(1, np.uint8) if stop is None else stop)
    return net_inflows(graph.first, graph.cap, res), dict(zip(COUNTER_NAMES, counters.tolist()))


def solve_bk(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    return solve_by_preflow("bk", bk_preflow, graph, options)


register_compiled(
    "bk", "Boykov-Kolmogorov: two search trees kept between augmentations, orphans adopted",
    "Boykov & Kolmogorov, IEEE TPAMI 26(9), 2004", solve_bk, (), stoppable=True,
    in_default_bench=False)  # made for vision grids, which the default (quick) suite lacks
