"""`hpf`: Hochbaum's pseudoflow algorithm, highest label with FIFO buckets; the core is
maxflow_cli.pseudoflow.hpf."""

import time

from maxflow_cli.pseudoflow.hpf import hpf_preflow
from maxflow_cli.pushrelabel.highest_label import timed_stage_two
from maxflow_cli.registry import SolveOptions, register_compiled
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def solve_hpf(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Phase 1 (the minimum cut and the flow value), then the flow recovered when one is
    asked for: hi_pr's stage 2 returns the strong vertices' excesses to the source."""
    res = graph.initial_residuals()
    started = time.perf_counter()
    excess, counters = hpf_preflow(graph, res)
    times = {"stage1": time.perf_counter() - started}
    flow_value = int(excess[graph.sink])
    if options.want_flow:
        timed_stage_two(graph, res, excess, times)
    return SolveResult("hpf", flow_value, res, options.want_flow, times, counters)


register_compiled(
    "hpf", "Hochbaum's pseudoflow: highest label, FIFO buckets, simple initialisation",
    "Hochbaum 2008, Operations Research 56(4); Chandran & Hochbaum 2009 (pseudo-max HPF, "
    "PBBS pseudoSeq)", solve_hpf, ())
