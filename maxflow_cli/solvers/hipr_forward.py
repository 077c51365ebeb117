"""`hipr-forward`: hipr's sequential highest-label push-relabel (Goldberg & Cherkassky, hi_pr
3.x) with two things OR-tools' SimpleMaxFlow and igraph's maxflow do instead: exact initial
labels (a reverse BFS from the sink before the first discharge, where hi_pr starts every
label at 1), and each vertex's input arcs scanned before its reverse arcs
(pushrelabel.arc_order, where hi_pr keeps its parser's order). On a dense graph it runs
hipr as it is: there, copying the arcs costs more than the new order saves. The README has
the measurements.
"""

import time

from maxflow_cli.pushrelabel.arc_order import forward_first, residuals_in
from maxflow_cli.pushrelabel.highest_label import hipr_preflow, hipr_workspace, timed_stage_two
from maxflow_cli.registry import HIPR_PARAMETERS, SolveOptions, register_compiled
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult, timed

DENSE_DEGREE = 64
"""Input arcs per vertex, on average, above which the arcs are not reordered: on
acyclic-dense-2000 (1,000 per vertex) the copy costs as much as hipr's whole stage 1, on
acyclic-dense-3000 more; on the sparse families (3 to 5) a tenth of it or less."""


def solve_hipr_forward(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Stage 1 from exact labels on the reordered copy of `graph` (the copy timed with it,
    hipr's arrays allocated before: the `setup` phase), or hipr's on a dense graph; then
    stage 2 when a flow is asked for. The copy's residuals go back to `graph`'s arc
    numbering, timed with the last stage run."""
    times = {}
    workspace = timed(times, "setup", hipr_workspace, graph)
    started = time.perf_counter()
    reorder = graph.m <= DENSE_DEGREE * graph.n
    ordered = forward_first(graph) if reorder else graph
    res = ordered.initial_residuals()
    excess, counters = hipr_preflow(ordered, res, options.params, workspace=workspace,
                                    exact_labels=reorder)
    times["stage1"] = time.perf_counter() - started
    flow_value = int(excess[graph.sink])
    if options.want_flow:
        timed_stage_two(ordered, res, excess, times)
    if reorder:
        started = time.perf_counter()
        res = residuals_in(graph, ordered, res)
        times["stage2" if options.want_flow else "stage1"] += time.perf_counter() - started
    return SolveResult("hipr-forward", flow_value, res, options.want_flow, times, counters)


register_compiled(
    "hipr-forward", "hipr with exact initial labels and each vertex's input arcs first",
    "Goldberg & Cherkassky, hi_pr 3.x; initial labels and arc order as in OR-tools' "
    "SimpleMaxFlow and igraph's maxflow", solve_hipr_forward, HIPR_PARAMETERS)
