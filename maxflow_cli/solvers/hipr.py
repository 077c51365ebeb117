"""`hipr`: Goldberg & Cherkassky's sequential highest-label push-relabel (hi_pr 3.x); the core
is maxflow_cli.pushrelabel.highest_label."""

import time

import numpy as np

from maxflow_cli.pushrelabel.highest_label import (
    COUNTER_NAMES,
    hipr_initialize,
    hipr_stage_one,
    timed_stage_two,
)
from maxflow_cli.registry import HIPR_PARAMETERS, SolveOptions, register_compiled
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def solve_hipr(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Goldberg & Cherkassky's hi_pr: stage 1, then stage 2 when a flow is asked for."""
    params = options.params
    res = graph.initial_residuals()
    excess = np.zeros(graph.n, np.int64)
    label = np.empty(graph.n, np.int32)
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    started = time.perf_counter()
    hipr_initialize(graph.first, graph.head, graph.rev, res, excess, label, graph.source,
                    graph.sink)
    hipr_stage_one(graph.first, graph.head, graph.rev, res, excess, label, graph.source,
                   graph.sink, params["global_update_frequency"], params["alpha"],
                   params["beta"], False, counters)
    times = {"stage1": time.perf_counter() - started}
    flow_value = int(excess[graph.sink])
    if options.want_flow:
        timed_stage_two(graph, res, excess, times)
    return SolveResult("hipr", flow_value, res, options.want_flow, times,
                       dict(zip(COUNTER_NAMES, counters.tolist())))


register_compiled(
    "hipr", "sequential highest-label push-relabel with global and gap relabeling",
    "Goldberg & Cherkassky, hi_pr 3.x (the reference in every seed's tables)", solve_hipr,
    HIPR_PARAMETERS)
