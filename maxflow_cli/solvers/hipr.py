"""`hipr`: Goldberg & Cherkassky's sequential highest-label push-relabel (hi_pr 3.x); the core
is maxflow_cli.pushrelabel.highest_label."""

import time

from maxflow_cli.pushrelabel.highest_label import hipr_preflow, timed_stage_two
from maxflow_cli.registry import HIPR_PARAMETERS, SolveOptions, register_compiled
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def solve_hipr(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Goldberg & Cherkassky's hi_pr: stage 1, then stage 2 when a flow is asked for."""
    res = graph.initial_residuals()
    started = time.perf_counter()
    excess, counters = hipr_preflow(graph, res, options.params)
    times = {"stage1": time.perf_counter() - started}
    flow_value = int(excess[graph.sink])
    if options.want_flow:
        timed_stage_two(graph, res, excess, times)
    return SolveResult("hipr", flow_value, res, options.want_flow, times, counters)


register_compiled(
    "hipr", "sequential highest-label push-relabel with global and gap relabeling",
    "Goldberg & Cherkassky, hi_pr 3.x (the reference in every seed's tables)", solve_hipr,
    HIPR_PARAMETERS)
