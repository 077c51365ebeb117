"""`hpf`: Hochbaum's pseudoflow algorithm, highest label with FIFO buckets; the core is
maxflow_cli.pseudoflow.hpf."""

from maxflow_cli.pseudoflow.hpf import hpf_preflow
from maxflow_cli.pushrelabel.highest_label import solve_by_preflow
from maxflow_cli.registry import SolveOptions, register_compiled
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def solve_hpf(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Phase 1 (the minimum cut and the flow value), then the flow recovered when one is
    asked for: hi_pr's stage 2 returns the strong vertices' excesses to the source."""
    return solve_by_preflow("hpf", lambda graph, res, params, stop: hpf_preflow(graph, res, stop),
                            graph, options)


register_compiled(
    "hpf", "Hochbaum's pseudoflow: highest label, FIFO buckets, simple initialisation",
    "Hochbaum 2008, Operations Research 56(4); Chandran & Hochbaum 2009 (pseudo-max HPF, "
    "PBBS pseudoSeq)", solve_hpf, (), stoppable=True)
