"""pushrelabel.highest_label, hi_pr's core: the operations of hi_pr itself, resumable from a
handed-over state, and with Alvino's parallel gap exactly as with hi_pr's."""

import os
import subprocess
import sys

import numpy as np
import pytest
from fixtures import DATA, ROOT, VECTORS
from test_solvers import INSTANCES, assert_certified

from maxflow_cli.check import check_answer
from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.pushrelabel.highest_label import (
    COUNTER_NAMES,
    DONE,
    hipr_initialize,
    hipr_preflow,
    hipr_stage_one,
    hipr_workspace,
)
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.result import SolveResult
from maxflow_cli.steps import reverse_bfs

# What Goldberg & Cherkassky's hi_pr 3.6, built with -DPRINT_STAT, prints for these instances
# (`c pushes:`, `relabels:`, `updates:`, `gaps:`; 's' lines removed from the ac files, which it
# refuses). Its push count includes its saturation of the source arcs. edge-cases.max has a
# self-loop at a vertex that is relabeled.
HI_PR_COUNTS = {
    DATA / "clrs.max": (12, 8, 1, 1),
    DATA / "edge-cases.max": (10, 4, 0, 1),
    DATA / "unreachable-sink.max": (4, 4, 0, 1),
    VECTORS / "ac_n200_seed2.max": (936, 271, 1, 7),
    VECTORS / "genrmf_a8_b64_c1-1_c2-10000_seed3.max": (26248, 14958, 3, 5),
    VECTORS / "rlg_w64_l128_cap10000_seed-5.max": (73899, 25624, 3, 48),
}


# What hi_pr 3.6 compiled with INIT_UPDATE (a global update before the first discharge), as
# the class version of patmjen/maxflow_algorithms' hi_pr/ defines it, prints for the same
# instances (its build of scripts/peers/ refuses the ac files, as the original does).
HI_PR_INIT_UPDATE_COUNTS = {
    DATA / "clrs.max": (8, 5, 1, 1),
    VECTORS / "genrmf_a8_b64_c1-1_c2-10000_seed3.max": (18737, 9239, 3, 5),
    VECTORS / "rlg_w64_l128_cap10000_seed-5.max": (64139, 17555, 3, 51),
}


COUNT_CASES = [*((path, 0, counts) for path, counts in HI_PR_COUNTS.items()),
               *((path, 1, counts) for path, counts in HI_PR_INIT_UPDATE_COUNTS.items())]


@pytest.mark.parametrize("path,initial_update,expected", COUNT_CASES,
                         ids=[f"{p.name}-initial_update={u}" for p, u, _ in COUNT_CASES])
def test_hipr_does_what_hi_pr_does(path, initial_update, expected):
    """Every push, relabel, global update and gap of hi_pr, no more, no fewer, with its
    initial labels of 1 or with INIT_UPDATE's global update first."""
    graph = build_residual(read_network(str(path))[0])
    hipr = get_solver("hipr")
    options = hipr.resolve(SolveOptions(params={"initial_update": initial_update}))
    counters = hipr.solve(graph, options).counters
    source_arcs = graph.head[graph.first[graph.source]:graph.first[graph.source + 1]]
    saturations = int(np.count_nonzero(source_arcs != graph.source))
    assert (counters["pushes"] + saturations, counters["relabels"], counters["global_updates"],
            counters["gaps"]) == expected


@pytest.mark.parametrize("path,expected", INSTANCES[:6], ids=[p.name for p, _ in INSTANCES[:6]])
def test_hipr_runs_in_the_workspace_made_before_its_clock(path, expected):
    """hipr_workspace's arrays, made and written in the set-up, are the ones stage 1 works
    in (none allocated anew inside it), and give hi_pr's answer and counts again, reused."""
    graph = build_residual(read_network(str(path))[0])
    params = get_solver("hipr").resolve(SolveOptions()).params
    workspace = hipr_workspace(graph)
    answers = []
    for _ in range(2):
        res = graph.initial_residuals()
        excess, counters = hipr_preflow(graph, res, params, None, workspace)
        assert excess is workspace[0]
        answers.append((int(excess[graph.sink]), counters))
    fresh = hipr_preflow(graph, graph.initial_residuals(), params)
    assert answers[0] == answers[1] == (int(fresh[0][graph.sink]), fresh[1])
    assert answers[0][0] == expected
    result = get_solver("hipr").solve(graph, SolveOptions(params=params))
    assert list(result.times) == ["setup", "stage1"]
    wide = build_residual(read_network(str(path))[0], arc_type=np.int64)
    assert hipr_workspace(wide)[2][0].dtype == np.int64  # current arcs: a wide graph's numbers


@pytest.mark.parametrize("path,expected", INSTANCES[:12], ids=[p.name for p, _ in INSTANCES[:12]])
def test_hipr_resumes_from_a_handed_over_state(path, expected):
    """The hybrids stop hipr at each global update, relabel, and resume it: the preflow stays
    valid across hand-overs and the answer is the same."""
    graph = build_residual(read_network(str(path))[0])
    res = graph.initial_residuals()
    excess = np.zeros(graph.n, np.int64)
    label = np.empty(graph.n, np.int32)
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    order = np.empty(graph.n, np.int32)
    arrays = (graph.first, graph.head, graph.rev)
    hipr_initialize(*arrays, res, excess, label, graph.source, graph.sink)
    for hand_overs in range(10_000):
        # a small global-update threshold forces many hand-overs
        if hipr_stage_one(*arrays, res, excess, label, graph.source, graph.sink, 50.0, 6, 12,
                          True, counters) == DONE:
            break
        reverse_bfs(*arrays, res, graph.sink, label, order)
        label[graph.source] = graph.n
        interim = check_answer(graph, SolveResult("hipr", int(excess[graph.sink]), res, False))
        assert not any("send out more" in p for p in interim.problems)
    assert hand_overs > 0 or graph.m < 30  # every instance but the tiniest hands over
    assert_certified(graph, SolveResult("hipr", int(excess[graph.sink]), res, False), expected)


@pytest.mark.parametrize("path,expected", INSTANCES[4:12], ids=[p.name for p, _ in INSTANCES[4:12]])
def test_hipr_with_alvino_parallel_gap_does_exactly_what_hi_pr_gap_does(path, expected):
    """Alvino's Algorithm 14 lifts the same vertices as hi_pr's gap, so every counter and the
    final state are identical with and without it."""
    graph = build_residual(read_network(str(path))[0])
    outcomes = [_stage_one_from_scratch(graph, parallel_gap=parallel_gap)
                for parallel_gap in (False, True)]
    assert outcomes[0][2][3] > 0 or graph.m < 100  # gaps happened where the graph is not tiny
    for before, after in zip(*outcomes):
        assert np.array_equal(before, after)
    assert int(outcomes[0][3][graph.sink]) == expected


def _stage_one_from_scratch(graph, parallel_gap=False, gaps_above=0):
    """hi_pr's initialisation and stage 1 on `graph`: (residuals, labels, counters, excess)."""
    res = graph.initial_residuals()
    excess = np.zeros(graph.n, np.int64)
    label = np.empty(graph.n, np.int32)
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    hipr_initialize(graph.first, graph.head, graph.rev, res, excess, label, graph.source,
                    graph.sink)
    hipr_stage_one(graph.first, graph.head, graph.rev, res, excess, label, graph.source,
                   graph.sink, 0.5, 6, 12, False, counters, parallel_gap, gaps_above)
    return res, label, counters, excess


@pytest.mark.parametrize("path,expected", INSTANCES[4:12], ids=[p.name for p, _ in INSTANCES[4:12]])
def test_hipr_without_gap_relabeling_relabels_no_gap_and_finds_the_same_value(path, expected):
    """What the `mpi` solver's parts run: no gap is relabeled, the preflow is still maximum."""
    graph = build_residual(read_network(str(path))[0])
    res, _, counters, excess = _stage_one_from_scratch(graph, gaps_above=graph.n)
    assert counters[COUNTER_NAMES.index("gaps")] == 0
    assert_certified(graph, SolveResult("hipr", int(excess[graph.sink]), res, False), expected)


STAGE_ONE_IN_A_NEW_PROCESS = """
import sys
import numpy as np
from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.pushrelabel.highest_label import hipr_initialize, hipr_stage_one
from maxflow_cli.residual import build_residual
graph = build_residual(read_network("data/clrs.max")[0])
res, excess = graph.initial_residuals(), np.zeros(graph.n, np.int64)
label, counters = np.empty(graph.n, np.int32), np.zeros(6, np.int64)
hipr_initialize(graph.first, graph.head, graph.rev, res, excess, label, graph.source, graph.sink)
arguments = (graph.first, graph.head, graph.rev, res, excess, label, graph.source, graph.sink,
             0.5, 6, 12, False, counters)
if sys.argv[1] == "parallel":
    hipr_stage_one(*arguments, True)
else:
    hipr_stage_one(*arguments)
assert excess[graph.sink] == 23
"""


def test_hipr_stage_one_loads_from_numba_cache_in_a_new_process(tmp_path):
    """Three processes in turn run hipr_stage_one, with the sequential then the parallel gap,
    the first compiling its core into Numba's disk cache and the others loading it (one
    signature: every argument is passed, in order): none crashes, each finds the flow."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    for version in ("sequential", "parallel", "parallel"):
        done = subprocess.run([sys.executable, "-I", "-c", STAGE_ONE_IN_A_NEW_PROCESS, version],
                              cwd=ROOT, env=environment, capture_output=True, text=True)
        assert done.returncode == 0, f"{version}: exit {done.returncode}\n{done.stderr}"


def _reaching(part, res, seeds):
    """The vertices of a part with a residual path (over own vertices) to one of `seeds`."""
    tails = np.repeat(np.arange(part.size), np.diff(part.first))
    reached = set(seeds)
    frontier = list(seeds)
    while frontier:
        y = frontier.pop()
        for a in range(part.first[y], part.first[y + 1]):
            x = part.head[a]
            if x < part.owned and x not in reached and res[part.rev[a]] > 0:
                assert tails[part.rev[a]] == x
                reached.add(x)
                frontier.append(x)
    return reached


@pytest.mark.parametrize("path", [p for p, _ in INSTANCES[4:12]],
                         ids=[p.name for p, _ in INSTANCES[4:12]])
def test_a_part_with_fixed_ghosts_discharges_its_excess_to_them_or_cuts_it_off(path):
    """What an `mpi` part runs: the ghosts (seeded_from on) keep their labels and seed the
    global updates, gaps count only above the highest ghost label. Afterwards the labels are
    valid on the part's residual arcs, and every own vertex left with excess is at the bound
    and reaches neither the sink nor a live ghost."""
    from maxflow_cli.distributed.partition import Splitter
    from maxflow_cli.distributed.rounds import GHOST_EXCESS

    graph = build_residual(read_network(str(path))[0])
    exact = np.empty(graph.n, np.int32)
    reverse_bfs(graph.first, graph.head, graph.rev, graph.cap, graph.sink, exact,
                np.empty(graph.n, np.int32))
    splitter = Splitter(graph, 2, "ranges")
    rank = 1 - splitter.owner[graph.source]  # the part without the source
    part = splitter.part(rank)
    arcs = splitter.own_arcs(rank)
    border_heads = graph.head[arcs][splitter.owner[graph.head[arcs]] != rank]
    local_to_global = np.concatenate([splitter.own_vertices(rank), np.unique(border_heads)])
    ghost_labels = exact[local_to_global[part.owned:]]
    ghost_labels[::2] = graph.n  # as their owners found them cut off
    highest_ghost = int(ghost_labels[ghost_labels < graph.n].max(initial=0))
    bound = max(part.size, highest_ghost + part.owned + 1)
    padding = bound - part.size
    first = np.concatenate([part.first, np.full(padding, part.first[-1], np.int32)])
    label = np.concatenate([exact[local_to_global[:part.owned]], ghost_labels,
                            np.full(padding, bound, np.int32)])
    np.minimum(label, bound, out=label)
    excess = np.zeros(bound, np.int64)
    excess[:part.owned] = 1000  # as if pushed in from the source's part
    excess[part.owned:part.size] = GHOST_EXCESS
    res = part.cap.copy()
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    sink = part.sink if part.sink >= 0 else bound
    status = hipr_stage_one(first, part.head, part.rev, res, excess, label, bound, sink,
                            0.5, 6, 12, False, counters, False, highest_ghost, part.owned)
    assert status == DONE
    assert np.array_equal(label[part.owned:part.size], np.minimum(ghost_labels, bound))
    tails = np.repeat(np.arange(part.size), np.diff(part.first))
    residual = (tails < part.owned) & (res > 0) & (label[tails] < bound)
    assert np.all(label[tails[residual]] <= label[part.head[residual]] + 1)
    stuck = [x for x in np.flatnonzero(excess[:part.owned] > 0) if x != part.sink]
    assert np.all(label[stuck] == bound)
    live = [g for g in range(part.owned, part.size) if label[g] < bound]
    seeds = live + ([part.sink] if part.sink >= 0 else [])
    assert not _reaching(part, res, seeds) & set(stuck)
