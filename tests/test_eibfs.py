"""eibfs: its counters, both variants, 64-bit flows, the terminal arcs of any DIMACS network
(parallel, zero, self-loops, into the source, out of the sink, source to sink), and the
deficits EIBFS leaves without sink capacity, sent back so that stage 1 ends in a preflow."""

from dataclasses import replace

import numpy as np
import pytest
from fixtures import DATA, VECTORS

from maxflow_cli import generators
from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.check import check_answer
from maxflow_cli.errors import ParameterError
from maxflow_cli.ibfs.eibfs import (
    COUNTER_NAMES,
    _inner_offsets,
    _return_deficits,
    _return_deficits_locally,
    help_bound,
)
from maxflow_cli.network import Network
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import INPUT_ORDER, build_residual

VARIANTS = ("eibfs", "ibfs")


def solve(network, variant="eibfs", want_flow=False):
    graph = build_residual(network)
    spec = get_solver("eibfs")
    result = spec.solve(graph, spec.resolve(SolveOptions(want_flow=want_flow,
                                                         params={"variant": variant})))
    certificate = check_answer(graph, result)
    assert certificate.ok, certificate.problems
    assert result.is_flow == want_flow
    return result


def grid(spec="grid:shape=24x24,connectivity=8,seed=1"):
    return parse_instance(spec)[0].load()[0]


@pytest.mark.parametrize("instance,counts", [
    (DATA / "clrs.max", (3, 3, 0, 1)),
    (VECTORS / "ac_n60_seed12345.max", (54, 25, 41, 164)),
    (VECTORS / "genrmf_a5_b7_c1-1_c2-10000_seed1.max", (71, 276, 196, 1109)),
    # Cheriyan's graph: its sink arc (10^7) holds far more than the source supplies. The
    # deficit, cut to one more than the supply, never drains to 0 and stays a root of T, as
    # the authors' uncut one does (cut to the supply itself, it drained and made orphans).
    ("washington:function=11,dim1=2,dim2=1,range=1", (2, 4, 3, 7)),
    ("washington:function=11,dim1=10,dim2=5,range=3", (12, 32, 65, 180)),
], ids=["clrs", "acyclic-dense", "genrmf", "cheriyan-2x1x1", "cheriyan-10x5x3"])
def test_counts_what_the_authors_code_counts(instance, counts):
    """The authors' EIBFS (ibfs.h with IBSTATS, run on the terminal form of the network)
    counts these augmentations, growth steps of S and of T, and orphans: eibfs scans each
    vertex's arcs in its order (any other order gives other counts on the last two)."""
    c = solve(parse_instance(str(instance))[0].load()[0]).counters
    assert (c["augmentations"], c["growths_s"], c["growths_t"], c["orphans"]) == counts


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("want_flow", [False, True])
def test_a_grid_is_solved_by_both_variants_with_the_same_value(variant, want_flow):
    reference = solve(grid(), "ibfs").flow_value
    result = solve(grid(), variant, want_flow)
    assert result.flow_value == reference > 0
    assert set(result.counters) == set(COUNTER_NAMES)
    assert result.counters["augmentations"] > 0
    assert result.counters["growths_s"] > 0 and result.counters["growths_t"] > 0
    assert result.counters["orphans"] >= result.counters["adoptions"]
    assert ("stage2" in result.times) == want_flow
    assert {"setup", "stage1", "settle"} <= set(result.times)  # the search timed alone


def test_only_eibfs_pushes_imbalances_and_ibfs_leaves_no_deficit():
    eibfs = solve(grid(), "eibfs").counters
    ibfs = solve(grid(), "ibfs").counters
    assert eibfs["excess_pushes"] > 0
    assert ibfs["excess_pushes"] == 0 and ibfs["deficit_returns"] == 0
    # IBFS augments by a path's bottleneck: at least as many augmentations for the same flow
    assert ibfs["augmentations"] >= eibfs["augmentations"]


def test_deficits_without_sink_capacity_are_sent_back():
    """EIBFS ends with deficits some sink capacity does not back (a vertex that sent on
    more than it received): stage 1 still ends in a preflow the certificate accepts."""
    network = grid("grid:shape=64x64,connectivity=4,seed=1")
    result = solve(network)
    assert result.counters["deficit_returns"] > 0
    assert solve(network, want_flow=True).flow_value == result.flow_value


@pytest.mark.parametrize("variant", VARIANTS)
def test_flows_beyond_32_bits(variant):
    big = 3 * 2**40
    network = Network.from_arcs(4, 0, 3, [(0, 1, big), (0, 2, big), (1, 2, 2**41),
                                          (1, 3, 2**40), (2, 3, 2**62)])
    for want_flow in (False, True):
        assert solve(network, variant, want_flow).flow_value == 2 * big > 2**31


@pytest.mark.parametrize("variant", VARIANTS)
def test_sink_capacities_summing_past_int64_are_safe(variant):
    """Three arcs of 2^62 into the sink from one vertex: more than int64 holds, counted up
    to what the source can send."""
    network = Network.from_arcs(3, 0, 2, [(0, 1, 5), (1, 2, 2**62), (1, 2, 2**62),
                                          (1, 2, 2**62)])
    assert solve(network, variant).flow_value == 5


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("arcs, expected", [
    ([(0, 1, 4), (2, 3, 4)], 0),  # no path
    ([(0, 3, 7), (0, 3, 2), (0, 1, 1), (1, 3, 5)], 10),  # source-sink arcs, parallel
    ([(0, 1, 3), (0, 1, 4), (1, 3, 2), (1, 3, 9)], 7),  # parallel arcs
    ([(0, 1, 0), (1, 3, 5), (0, 2, 5), (2, 3, 0)], 0),  # zero capacities
    ([(1, 0, 9), (3, 1, 9), (0, 1, 2), (1, 3, 6), (3, 0, 4)], 2),  # into s, out of t
    ([(0, 0, 5), (1, 1, 5), (0, 1, 3), (1, 1, 2), (1, 3, 8), (3, 3, 1)], 3),  # self-loops
    ([(0, 1, 5), (1, 2, 5), (2, 1, 5), (2, 3, 5), (1, 3, 1)], 5),  # arcs both ways
])
def test_degenerate_networks(variant, arcs, expected):
    network = Network.from_arcs(4, 0, 3, arcs)
    for want_flow in (False, True):
        assert solve(network, variant, want_flow).flow_value == expected


def test_a_vertex_with_source_and_sink_capacity_sends_straight_through():
    network = Network.from_arcs(3, 0, 2, [(0, 1, 6), (1, 2, 4)])
    result = solve(network)
    assert result.flow_value == 4
    assert result.counters["augmentations"] == 0


def test_an_unknown_variant_is_refused():
    with pytest.raises(ParameterError, match="--variant 'bfs': must be one of eibfs, ibfs"):
        get_solver("eibfs").resolve(SolveOptions(params={"variant": "bfs"}))


def test_inner_degrees_count_each_input_arc_between_inner_vertices_at_both_ends():
    """The search's forward star, counted over the residual graph in vertex order, gives each
    vertex one arc per input arc between two distinct inner vertices that it ends."""
    arcs = [(0, 1, 3), (1, 2, 0), (2, 1, 4), (1, 1, 2), (2, 4, 5), (4, 0, 1), (3, 2, 6),
            (2, 3, 1), (0, 4, 7), (4, 4, 3), (3, 1, 2)]
    graph = build_residual(Network.from_arcs(5, 0, 4, arcs))
    degree = np.zeros(5, np.int64)
    for u, v, _ in arcs:
        if u != v and {u, v}.isdisjoint({0, 4}):
            degree[[u, v]] += 1
    first = _inner_offsets(graph.first, graph.head, 0, 4)
    assert np.diff(first).tolist() == degree.tolist() == [0, 3, 4, 3, 0]


def cycle_with_a_deficit():
    """s -> v (1 unit), v <-> w a cycle carrying a million units, v -> x (2 units), x -> t:
    v sends one unit more than it receives, and its first out-arc is the cycle's."""
    s, v, w, x, t = range(5)
    network = Network(5, s, t, np.array([v, w, s, v, x]), np.array([w, v, v, x, t]),
                      np.array([10**6, 10**6, 1, 2, 2]))
    graph = build_residual(network, INPUT_ORDER)
    res = graph.initial_residuals()
    flow = np.array([10**6, 10**6, 1, 2, 2])
    for i, a in enumerate(graph.arc_of_input):
        res[a] -= flow[i]
        res[graph.rev[a]] += flow[i]
    excess = np.array([-1, -1, 0, 0, 2], np.int64)
    return graph, res, excess


def test_a_deficit_going_round_a_cycle_of_flow_is_sent_back_over_the_whole_graph():
    """Taken off the cycle first, the unit would go round it a million times: the local
    return gives up within its bound, and the whole graph's stage two ends it."""
    graph, res, excess = cycle_with_a_deficit()
    arrays = (graph.first, graph.head, graph.cap, res, graph.rev)
    assert not _return_deficits_locally(*arrays, excess.copy(), graph.source, graph.sink)
    _return_deficits(graph.first, graph.head, graph.rev, graph.cap, res, excess, graph.source,
                     graph.sink)
    assert excess[1:4].min() >= 0 and excess[4] == 1
    assert (res >= 0).all() and (res[graph.arc_of_input] <= graph.cap[graph.arc_of_input]).all()


@pytest.mark.parametrize("name,network,calls", [
    ("dinic-bad", generators.make("washington", function=9, dim1=400, dim2=0), 1),
    ("square-mesh", generators.make("washington", function=5, dim1=30, dim2=5, seed=1), 1),
    ("grid", generators.make("grid", shape=(40, 40), connectivity=4, smoothness=32, seed=1), 0),
    ("matching", generators.make("washington", function=4, dim1=500, dim2=5, seed=1), 0),
])
def test_the_search_calls_for_help_where_its_work_passes_the_bound(name, network, calls):
    """On a path every augmentation walks the path (O(n^2) work), and on a mesh the trees
    grow deep: the search calls for help once, past help_bound, and goes on to the same
    answer by the same operations; on a grid and a matching its trees stay shallow, and it
    does not call."""
    graph = build_residual(network)
    spec, called = get_solver("eibfs"), []
    options = replace(spec.resolve(SolveOptions()), call_for_help=called.append)
    result = spec.solve(graph, options)
    assert len(called) == calls
    c = result.counters
    work = c["growths_s"] + c["growths_t"] + c["pushes"] + c["orphans"]
    assert (work > help_bound(graph.m)) == bool(calls)
    assert all(help_bound(graph.m) < told <= work for told in called)  # its work so far
    alone = solve(network)
    assert (result.flow_value, result.counters) == (alone.flow_value, alone.counters)
    assert check_answer(graph, result).ok


@pytest.mark.parametrize("scale,res_type", [(1, np.uint16), (2**12, np.int32),
                                            (2**27, np.int64)])
def test_the_search_reads_the_narrowest_residuals_and_counts_alike(monkeypatch, scale,
                                                                     res_type):
    """The same grid with its capacities scaled takes 16-, 32- or 64-bit inner residuals;
    the search makes the same steps on each (its counts) and the value scales. A type met
    for the first time is compiled before stage 1 and reported as `compile`, once."""
    from maxflow_cli import registry
    from maxflow_cli.ibfs import eibfs

    base = grid()
    network = replace(base, caps=base.caps.astype(np.int64) * scale)
    widths = []
    setup = eibfs.eibfs_setup
    monkeypatch.setattr("maxflow_cli.solvers.eibfs.eibfs_setup", lambda *arguments: (
        widths.append(arguments[-1]), setup(*arguments))[1])
    monkeypatch.setattr(registry, "_COMPILED_ONCE", set())
    first, again = solve(network), solve(network)
    assert widths[-1] is res_type
    reference = solve(base)
    assert first.flow_value == again.flow_value == reference.flow_value * scale
    assert first.counters == reference.counters
    assert first.times["compile"] > 0 and "compile" not in again.times
