"""pseudoflow.hpf and the `hpf` solver: the authors' operation counts, phase 1's minimum cut,
phase 2 only when a flow is asked for, 64-bit values and degenerate networks."""

import os
import subprocess
import sys

import numpy as np
import pytest
from fixtures import DATA, ROOT, VECTORS
from oracle import max_flow_value
from test_solvers import INSTANCES, assert_certified

from maxflow_cli import generators
from maxflow_cli.check import check_answer
from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.network import Network
from maxflow_cli.pseudoflow import hpf as hpf_module
from maxflow_cli.pseudoflow.hpf import (
    COUNTER_NAMES,
    NO_BOUND,
    help_bound,
    hpf_phase_one,
    hpf_preflow,
    hpf_setup,
    settle_deficits,
)
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import HIPR_ORDER, INPUT_ORDER, ORDERS, build_residual


def solve(network, want_flow=False, order=HIPR_ORDER):
    graph = build_residual(network, order)
    hpf = get_solver("hpf")
    return graph, hpf.solve(graph, hpf.resolve(SolveOptions(want_flow=want_flow)))


@pytest.mark.parametrize("path,counts", [
    (DATA / "clrs.max", (3, 3, 5, 2)),
    (VECTORS / "ac_n60_seed12345.max", (175, 91, 162, 7)),
    (VECTORS / "genrmf_a5_b7_c1-1_c2-10000_seed1.max", (1294, 436, 746, 4)),
], ids=["clrs", "acyclic-dense", "genrmf"])
@pytest.mark.parametrize("order", ORDERS)
def test_counts_what_the_authors_code_counts(path, counts, order, monkeypatch):
    """The PBBS pseudoSeq build of Chandran & Hochbaum's code (STATS) counts these pushes,
    mergers, relabels and gaps: hpf lists each vertex's arcs in its order (on the last two,
    any other order gives other counts), from a graph of either arc order (in input order,
    vertex by vertex), the set-up's arrays written on every thread in input order."""
    monkeypatch.setattr(hpf_module, "FRESH_MAPPING_BYTES", 0 if order == INPUT_ORDER else 2**62)
    _, result = solve(read_network(str(path))[0], order=order)
    counters = result.counters
    assert set(counters) == set(COUNTER_NAMES)
    assert (counters["pushes"], counters["mergers"], counters["relabels"],
            counters["gaps"]) == counts


@pytest.mark.parametrize("path,expected", INSTANCES[:12], ids=[p.name for p, _ in INSTANCES[:12]])
def test_counters_keep_their_relations(path, expected):
    """Each strong root processed ends in a merger or in its own relabel; each merger pushes
    at least once; a split is a push that saturates."""
    _, result = solve(read_network(str(path))[0])
    c = result.counters
    assert result.flow_value == expected
    assert c["mergers"] <= c["pushes"] and c["splits"] <= c["pushes"]
    assert c["strong_roots"] <= c["mergers"] + c["relabels"]


@pytest.mark.parametrize("path,expected", INSTANCES[:12], ids=[p.name for p, _ in INSTANCES[:12]])
def test_phase_one_lifts_the_source_side_of_a_minimum_cut(path, expected):
    """The vertices phase 1 leaves at label n (with the source, without the sink) are the
    source side of a cut whose capacity is the maximum flow value."""
    graph = build_residual(read_network(str(path))[0])
    arrays, res = (graph.first, graph.head, graph.rev), graph.initial_residuals()
    excess, work, sink_caps = hpf_setup(*arrays, res, graph.arc_of_input, graph.source,
                                        graph.sink, graph.input_ordered)
    label, paused = hpf_phase_one(*arrays, res, excess, work, graph.source, graph.sink,
                                  np.zeros(len(COUNTER_NAMES), np.int64), np.zeros(1, np.uint8),
                                  NO_BOUND, False)
    assert not paused
    settle_deficits(*arrays, sink_caps, res, excess, graph.source, graph.sink)
    side = label == graph.n
    side[graph.source], side[graph.sink] = True, False
    network = graph.network
    crossing = side[network.tails] & ~side[network.heads]
    assert int(network.caps[crossing].sum()) == expected == int(excess[graph.sink])


def _phase_one_paused_every(graph, pushes, at_pause=lambda excess, work: None):
    """Phase 1 paused each time `pushes` more pushes have passed (None: never) and resumed,
    at_pause(excesses, the search's buffer) called at each pause: its labels, excesses and
    counters, and how many times it paused."""
    arrays, res = (graph.first, graph.head, graph.rev), graph.initial_residuals()
    excess, work, sink_caps = hpf_setup(*arrays, res, graph.arc_of_input, graph.source,
                                        graph.sink, graph.input_ordered)
    counters, stop = np.zeros(len(COUNTER_NAMES), np.int64), np.zeros(1, np.uint8)
    bound, pauses, paused = (pushes, 0) if pushes else NO_BOUND, 0, False
    while True:
        label, paused = hpf_phase_one(*arrays, res, excess, work, graph.source, graph.sink,
                                      counters, stop, bound, pauses > 0)
        if not paused:
            return label.copy(), excess, counters, pauses
        at_pause(excess, work)
        pauses, bound = pauses + 1, (counters[COUNTER_NAMES.index("pushes")] + pushes, 0)


@pytest.mark.parametrize("path", [VECTORS / "genrmf_a5_b7_c1-1_c2-10000_seed1.max",
                                  VECTORS / "ac_n60_seed12345.max"], ids=["genrmf", "acyclic"])
def test_a_paused_phase_one_resumes_where_it_stopped(path):
    """Paused every 7 pushes and resumed, phase 1 does the same operations as without a
    pause: the same labels, excesses and counts."""
    graph = build_residual(read_network(str(path))[0])
    label, excess, counters, _ = _phase_one_paused_every(graph, None)
    label_p, excess_p, counters_p, pauses = _phase_one_paused_every(graph, 7)
    assert pauses > 10
    assert np.array_equal(label, label_p) and np.array_equal(excess, excess_p)
    assert counters.tolist() == counters_p.tolist()


@pytest.mark.parametrize("network", [
    read_network(str(VECTORS / "genrmf_a5_b7_c1-1_c2-10000_seed1.max"))[0],
    generators.make("washington", function=10, dim1=200, dim2=0),
    generators.make("ak", n=50),
], ids=["genrmf", "goldberg-bad", "ak"])
def test_only_roots_hold_excess(network):
    """The pushes carry a root's excess up its tree without storing it at the vertices on
    the way (_push_excess): right where no vertex with a parent holds any excess, the
    normalized tree's property, checked at each pause of phase 1 (every 5 pushes)."""
    graph = build_residual(network)
    n, held_below = graph.n, []

    def check(excess, work):
        parent = hpf_module._views(work, n)[1][:, hpf_module.PARENT]
        held_below.append(int(np.count_nonzero(excess[parent != n])))

    pauses = _phase_one_paused_every(graph, 5, check)[3]
    assert pauses > 10 and held_below == [0] * pauses


@pytest.mark.parametrize("name,network,calls", [
    ("goldberg-bad", generators.make("washington", function=10, dim1=500, dim2=0), 1),
    ("genrmf", generators.make("genrmf", a=6, b=8, seed=1), 0),
    ("grid", generators.make("grid", shape=(40, 40), connectivity=4, smoothness=32, seed=1), 0),
])
def test_phase_one_calls_for_help_where_its_pushes_pass_the_bound(name, network, calls):
    """Goldberg's bad case pushes along paths of n/4 arcs (O(n^2) work): phase 1 calls for
    help once, past help_bound (m, and log2 m pushes a strong root), telling its pushes so
    far, and goes on to the same answer; a genrmf and a grid push along short paths, and do
    not call."""
    graph = build_residual(network)
    called = []
    excess, counters = hpf_preflow(graph, graph.initial_residuals(), None, {}, called.append)
    assert len(called) == calls
    pushes, per_root = help_bound(graph.m)
    assert all(pushes < told < counters["pushes"] for told in called)
    assert (counters["pushes"] > pushes + per_root * counters["strong_roots"]) == bool(calls)
    arcs = zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist())
    assert excess[graph.sink] == max_flow_value(network.n, network.source, network.sink, arcs)


def test_phase_two_runs_only_when_a_flow_is_asked_for():
    """Without a flow: a preflow (excess left at some vertex), no stage 2 time; with one:
    every vertex but the source and sink conserves flow, and the value is the same."""
    network = read_network(str(DATA / "clrs.max"))[0]
    graph, preflow = solve(network)
    assert not preflow.is_flow and "stage2" not in preflow.times
    assert list(preflow.times) == ["setup", "stage1", "settle"]  # phase 1 timed alone
    inflow = np.zeros(graph.n, np.int64)
    flows = graph.flows(preflow.res)
    np.add.at(inflow, network.heads, flows)
    np.add.at(inflow, network.tails, -flows)
    inner = np.ones(graph.n, bool)
    inner[[graph.source, graph.sink]] = False
    assert np.any(inflow[inner] > 0)  # clrs's phase 1 leaves excess inside
    graph, flow = solve(network, want_flow=True)
    assert flow.is_flow and "stage2" in flow.times
    assert flow.flow_value == preflow.flow_value == 23
    assert check_answer(graph, flow).ok


def test_flow_values_past_32_bits():
    big = 2**40 + 7
    arcs = [(0, 1, big), (0, 2, big), (1, 3, big), (2, 3, 2 * big), (1, 2, big), (0, 3, big)]
    graph, result = solve(Network.from_arcs(4, 0, 3, arcs), want_flow=True)
    assert_certified(graph, result, 3 * big)


def test_sink_arcs_summing_past_int64():
    """Three arcs of 2^62 into the sink from one vertex: its deficit is held at the source's
    capacity, nothing overflows."""
    arcs = [(0, 1, 5), (1, 2, 2**62), (1, 2, 2**62), (1, 2, 2**62), (3, 2, 2**62)]
    graph, result = solve(Network.from_arcs(4, 0, 2, arcs))
    assert_certified(graph, result, 5)


DEGENERATE = {
    "no arc from the source": (4, 0, 3, [(1, 2, 5), (2, 3, 5), (3, 0, 9)]),
    "only source-sink arcs": (2, 0, 1, [(0, 1, 3), (0, 1, 4), (1, 0, 8)]),
    "source-sink arcs beside a path": (3, 0, 2, [(0, 2, 3), (0, 1, 4), (1, 2, 2), (0, 2, 1)]),
    "parallel arcs": (3, 0, 2, [(0, 1, 2), (0, 1, 3), (1, 2, 4), (1, 2, 4), (1, 2, 0)]),
    "zero capacities": (4, 0, 3, [(0, 1, 0), (1, 3, 7), (0, 2, 6), (2, 3, 0), (2, 1, 0)]),
    "self-loops, arcs into the source, out of the sink": (
        4, 0, 3, [(1, 1, 9), (0, 0, 4), (0, 1, 5), (1, 0, 5), (1, 3, 4), (3, 1, 6), (3, 3, 1),
                  (2, 0, 3), (1, 2, 2), (2, 3, 9)]),
    "sink unreachable, vertices isolated": (6, 1, 4, [(1, 2, 5), (2, 3, 5), (4, 1, 2)]),
}


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("want_flow", (False, True))
@pytest.mark.parametrize("case", DEGENERATE)
def test_degenerate_networks(case, want_flow, order, monkeypatch):
    """In either arc order; in input order with the set-up's arrays written on every thread
    (as from FRESH_MAPPING_BYTES on)."""
    monkeypatch.setattr(hpf_module, "FRESH_MAPPING_BYTES", 0 if order == INPUT_ORDER else 2**62)
    n, source, sink, arcs = DEGENERATE[case]
    graph, result = solve(Network.from_arcs(n, source, sink, arcs), want_flow, order)
    assert result.is_flow == want_flow
    assert_certified(graph, result, max_flow_value(n, source, sink, arcs))


PHASE_ONE_IN_A_NEW_PROCESS = """
import numpy as np
from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.pseudoflow.hpf import hpf_preflow
from maxflow_cli.residual import build_residual
graph = build_residual(read_network("data/clrs.max")[0])
excess, counters = hpf_preflow(graph, graph.initial_residuals(), None, {})
assert excess[graph.sink] == 23, excess
"""


def test_phase_one_loads_from_numba_cache_in_a_new_process(tmp_path):
    """Phase 1's main loop is compiled without reference counting; a second process loads it
    from Numba's disk cache and runs it."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    for attempt in ("compiles", "loads"):
        done = subprocess.run([sys.executable, "-I", "-c", PHASE_ONE_IN_A_NEW_PROCESS],
                              cwd=ROOT, env=environment, capture_output=True, text=True)
        assert done.returncode == 0, f"{attempt}: exit {done.returncode}\n{done.stderr}"
    assert any(tmp_path.rglob("*hpf*.nbi"))
