"""`hpf`: Hochbaum's pseudoflow algorithm, highest label with FIFO buckets; the core is
maxflow_cli.pseudoflow.hpf."""

from maxflow_cli.pseudoflow.hpf import compile_set_up, hpf_preflow
from maxflow_cli.pushrelabel.highest_label import answer_from_preflow
from maxflow_cli.registry import SolveOptions, compile_on_tiny_graph, register_compiled
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def solve_hpf(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Phase 1 (the minimum cut and the flow value; stage 1 as pseudo-max times it, its
    set-up and the settling of the deficits timed apart), then the flow recovered when one
    is asked for: hi_pr's stage 2 returns the strong vertices' excesses to the source. Phase 1
    calls options.call_for_help where its pushes pass the bound of a good shape."""
    res = graph.initial_residuals()
    times = {}
    excess, counters = hpf_preflow(graph, res, options.stop, times,
                                   options.call_for_help)
    return answer_from_preflow("hpf", graph, res, excess, counters, times, options)


register_compiled(
    "hpf", "Hochbaum's pseudoflow: highest label, FIFO buckets, simple initialisation",
    "Hochbaum 2008, Operations Research 56(4); Chandran & Hochbaum 2009 (pseudo-max HPF, "
    "PBBS pseudoSeq)", solve_hpf, (), stoppable=True,
    prepare=lambda options: compile_on_tiny_graph(solve_hpf, options) + compile_set_up())
