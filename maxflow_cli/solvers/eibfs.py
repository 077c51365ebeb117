"""`eibfs`: Goldberg, Hed, Kaplan, Kohli, Tarjan & Werneck's EIBFS (ESA 2015), and with
`--variant ibfs` their IBFS (ESA 2011); the core is maxflow_cli.ibfs.eibfs."""

import numpy as np

from maxflow_cli.ibfs.eibfs import (
    COUNTER_NAMES,
    NO_BOUND,
    eibfs_search,
    eibfs_settle,
    eibfs_setup,
    help_bound,
    work,
)
from maxflow_cli.pushrelabel.highest_label import answer_from_preflow
from maxflow_cli.registry import (
    Parameter,
    SolveOptions,
    compile_for_graph,
    register_compiled,
    search_calling_for_help,
    tiny_graph,
)
from maxflow_cli.residual import ResidualGraph, residual_type
from maxflow_cli.result import SolveResult, timed

VARIANT = Parameter("variant", str, "eibfs",
                    "'eibfs' augments by the bridge's capacity, imbalances left in the trees "
                    "(ESA 2015); 'ibfs' by the whole path's bottleneck (ESA 2011)",
                    choices=("eibfs", "ibfs"))


def solve_eibfs(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Stage 1, the search as the authors' code times it (its set-up and the settling of
    its end into a maximum preflow timed apart); stage 2 (hi_pr's) when a flow is asked
    for. The search reads residuals of the narrowest type that holds them, compiled for it
    the first time it comes (compile_for_graph)."""
    compiled = compile_for_graph("eibfs", solve_eibfs, options, graph)
    arrays = (graph.first, graph.head, graph.rev, graph.cap)
    res = graph.initial_residuals()
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    times = {"compile": compiled} if compiled else {}
    state = timed(times, "setup", eibfs_setup, *arrays, res, graph.source, graph.sink,
                  graph.arc_of_input, residual_type(graph))
    search, (sink_capacity, outer) = state[:12], state[12:]
    timed(times, "stage1", _search, search, counters, options, graph.m)
    excess, inner_res = search[7], search[3]
    if options.stop is not None and options.stop[0]:
        return answer_from_preflow("eibfs", graph, res, excess, {}, times, options)  # dropped
    excess[graph.sink] = timed(times, "settle", eibfs_settle, *arrays, res, inner_res, outer,
                               excess, sink_capacity, graph.source, graph.sink, counters)
    return answer_from_preflow("eibfs", graph, res, excess,
                               dict(zip(COUNTER_NAMES, counters.tolist())), times, options)


def _search(search: tuple, counters: np.ndarray, options: SolveOptions, m: int) -> None:
    """The search until it ends or options.stop is set; where its work passes help_bound(m)
    first, options.call_for_help(work) is called once (when given) and it goes on."""
    stop = np.zeros(1, np.uint8) if options.stop is None else options.stop
    excesses = options.params["variant"] == "eibfs"
    search_calling_for_help(
        lambda bound, side: eibfs_search(*search, counters, excesses, stop, bound, side), 1,
        help_bound(m), NO_BOUND, stop, options.call_for_help, lambda: int(work(counters)))


register_compiled(
    "eibfs", "excesses incremental breadth-first search: two BFS trees grown from the "
    "excesses and the deficits (IBFS with --variant ibfs)",
    "Goldberg, Hed, Kaplan, Kohli, Tarjan & Werneck, ESA 2015 (EIBFS); Goldberg, Hed, "
    "Kaplan, Tarjan & Werneck, ESA 2011 (IBFS)", solve_eibfs, (VARIANT,),
    prepare=lambda options: compile_for_graph("eibfs", solve_eibfs, options, tiny_graph()),
    # not in the default bench: made for vision grids, which the default (quick) suite lacks
    stoppable=True, in_default_bench=False)
