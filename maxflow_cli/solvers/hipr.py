"""`hipr`: Goldberg & Cherkassky's sequential highest-label push-relabel (hi_pr 3.x); the core
is maxflow_cli.pushrelabel.highest_label."""

from functools import partial

from maxflow_cli.pushrelabel.highest_label import hipr_preflow, hipr_workspace, solve_by_preflow
from maxflow_cli.registry import HIPR_PARAMETERS, Parameter, SolveOptions, register_compiled
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def solve_hipr(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Goldberg & Cherkassky's hi_pr: stage 1 (its arrays allocated before, as hi_pr's are
    before its clock: the `setup` phase), then stage 2 when a flow is asked for. Gives up
    past options.budget's pushes (a relay's helper)."""
    preflow = partial(hipr_preflow, budget=options.budget)
    return solve_by_preflow("hipr", preflow, graph, options, setup=hipr_workspace)


register_compiled(
    "hipr", "sequential highest-label push-relabel with global and gap relabeling",
    "Goldberg & Cherkassky, hi_pr 3.x (the reference in every seed's tables)", solve_hipr,
    HIPR_PARAMETERS + (Parameter(
        "initial_update", int, 0,
        "1: a global update before the first discharge, as hi_pr compiled with INIT_UPDATE "
        "does; 0: every label starts at 1, as in hi_pr 3.6's default build", choices=(0, 1)),),
    stoppable=True, gives_up=True, wide_arcs=True)
