"""`eibfs`: Goldberg, Hed, Kaplan, Kohli, Tarjan & Werneck's EIBFS (ESA 2015), and with
`--variant ibfs` their IBFS (ESA 2011); the core is maxflow_cli.ibfs.eibfs."""

import time

import numpy as np

from maxflow_cli.ibfs.eibfs import COUNTER_NAMES, eibfs_max_preflow
from maxflow_cli.pushrelabel.highest_label import timed_stage_two
from maxflow_cli.registry import Parameter, SolveOptions, register_compiled
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult

VARIANT = Parameter("variant", str, "eibfs",
                    "'eibfs' augments by the bridge's capacity, imbalances left in the trees "
                    "(ESA 2015); 'ibfs' by the whole path's bottleneck (ESA 2011)",
                    choices=("eibfs", "ibfs"))


def solve_eibfs(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Stage 1: the search, left as a maximum preflow; stage 2 (hi_pr's) when a flow is
    asked for."""
    res = graph.initial_residuals()
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    started = time.perf_counter()
    excess, flow_value = eibfs_max_preflow(
        graph.first, graph.head, graph.rev, graph.cap, res, graph.source, graph.sink,
        graph.arc_of_input, options.params["variant"] == "eibfs", counters)
    times = {"stage1": time.perf_counter() - started}
    if options.want_flow:
        timed_stage_two(graph, res, excess, times)
    return SolveResult("eibfs", int(flow_value), res, options.want_flow, times,
                       dict(zip(COUNTER_NAMES, counters.tolist())))


register_compiled(
    "eibfs", "excesses incremental breadth-first search: two BFS trees grown from the "
    "excesses and the deficits (IBFS with --variant ibfs)",
    "Goldberg, Hed, Kaplan, Kohli, Tarjan & Werneck, ESA 2015 (EIBFS); Goldberg, Hed, "
    "Kaplan, Tarjan & Werneck, ESA 2011 (IBFS)", solve_eibfs, (VARIANT,),
    in_default_bench=False)  # made for vision grids, which the default (quick) suite lacks
