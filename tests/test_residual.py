"""The shared residual graph: structure, input-arc mapping, the capacities it shares with the
network, the build's memory, and refusal of overflow."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maxflow_cli import generators, memory
from maxflow_cli.errors import ParameterError
from maxflow_cli.limits import MAX_ARCS, MAX_NARROW_ARCS, arc_index_type
from maxflow_cli.network import Network
from maxflow_cli.residual import (
    INPUT_ORDER,
    ORDERS,
    build_in_hipr_order,
    build_residual,
    largest,
    residual_type,
)


def small_networks(most_vertices: int, most_capacity: int, most_arcs: int):
    """(n, arcs) of 2..most_vertices vertices, any arcs (loops, parallels) among them."""
    return st.integers(2, most_vertices).flatmap(lambda n: st.tuples(
        st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                       st.integers(0, most_capacity)), max_size=most_arcs)))


@settings(max_examples=80, deadline=None)
@given(small_networks(8, 100, 25))
def test_every_input_arc_becomes_a_forward_and_a_reverse_arc(case):
    n, arcs = case
    for order in ORDERS:
        assert_valid(build_residual(Network.from_arcs(n, 0, n - 1, arcs), order), n, arcs)


def assert_valid(graph, n, arcs):
    """first covers 2m arcs in order; rev pairs them, each pair's head the other's tail; each
    input arc's forward arc has its tail, head and capacity, its reverse capacity 0."""
    m = len(arcs)
    assert graph.first[0] == 0 and graph.first[-1] == 2 * m
    assert np.all(np.diff(graph.first) >= 0)
    tail_of = np.repeat(np.arange(n), np.diff(graph.first))
    assert np.array_equal(graph.rev[graph.rev], np.arange(2 * m))
    assert np.array_equal(graph.head[graph.rev], tail_of)
    for i, (u, v, c) in enumerate(arcs):
        forward = graph.arc_of_input[i]
        assert (tail_of[forward], graph.head[forward], graph.cap[forward]) == (u, v, c)
        assert graph.cap[graph.rev[forward]] == 0


def test_arcs_lie_where_hi_pr_parser_puts_them():
    """hi_pr sorts its arc slots by tail with in-place swaps, which reorders each vertex's
    arcs; the push and relabel order (and hipr's operation counts) depend on it. Input order
    would give vertex 1 the heads [0, 2, 2, 3]."""
    arcs = [(0, 1, 3), (1, 2, 2), (2, 1, 1), (1, 3, 1), (2, 3, 5), (0, 2, 1)]
    graph = build_residual(Network.from_arcs(4, 0, 3, arcs))
    block = slice(graph.first[1], graph.first[2])
    assert graph.head[block].tolist() == [0, 2, 3, 2]
    assert graph.cap[block].tolist() == [0, 2, 1, 0]


def test_flows_are_read_per_input_arc():
    graph = build_residual(Network.from_arcs(3, 0, 2, [(0, 1, 5), (1, 2, 4), (0, 1, 2)]))
    res = graph.initial_residuals()
    res[graph.arc_of_input[1]] -= 3
    assert graph.flows(res).tolist() == [0, 3, 0]


def test_the_graph_holds_the_network_capacities_and_scatters_cap_when_read():
    network = Network.from_arcs(3, 0, 2, [(0, 1, 5), (1, 2, 4)])
    graph = build_residual(network, INPUT_ORDER)
    assert graph.caps is network.caps
    assert "cap" not in vars(graph)  # nothing per residual arc until a solver reads it
    assert graph.cap.tolist() == graph.initial_residuals().tolist() == [5, 0, 4, 0]
    assert graph.cap is graph.cap
    narrow = graph.initial_residuals(np.int32)
    assert narrow.dtype == np.int32 and narrow.tolist() == [5, 0, 4, 0]


@pytest.mark.parametrize("order", ORDERS)
def test_int32_capacities_give_the_same_graph(order):
    network = generators.make("genrmf", a=3, b=4, c1=1, c2=100, seed=1)
    assert network.caps.dtype == np.int32
    wide = build_residual(replace(network, caps=network.caps.astype(np.int64)), order)
    narrow = build_residual(network, order)
    assert narrow.caps.dtype == np.int32
    for name in ("first", "head", "rev", "arc_of_input", "cap"):
        assert np.array_equal(getattr(narrow, name), getattr(wide, name))


def test_the_input_order_build_adds_20_bytes_an_arc_and_4_a_vertex():
    """head, rev (int32 per residual arc), arc_of_input and first; not a capacity per residual
    arc (16 bytes an input arc more): the graph holds the network's capacities. head and rev
    (50 MB each) are fresh pages whatever the process freed before (glibc maps any block over
    32 MB anew); arc_of_input and first may reuse resident ones."""
    network = generators.make("washington-rlg", rows=4, levels=3, cap=100, seed=1)
    build_residual(network, INPUT_ORDER)  # compiled for int32 capacities before it is measured
    network = generators.make("washington-rlg", rows=4096, levels=512, cap=100, seed=1)
    if not memory.reset_peak_rss():
        pytest.skip("the peak resident set cannot be reset here")
    before = memory.peak_rss()
    graph = build_residual(network, INPUT_ORDER)
    added = memory.peak_rss() - before
    assert 16 * graph.m <= added <= 20 * graph.m + 4 * graph.n + 16 * 2**20


def test_refuses_source_capacity_sums_that_overflow_int64():
    arcs = [(0, 1, 2**62), (0, 2, 2**62), (1, 3, 1), (2, 3, 1)]
    with pytest.raises(ParameterError, match="overflow"):
        build_residual(Network.from_arcs(4, 0, 3, arcs))
    # a self-loop at the source carries nothing, so it does not count
    build_residual(Network.from_arcs(4, 0, 3, [(0, 0, 2**62), (0, 1, 2**62), (1, 3, 1)]))


@pytest.mark.parametrize("arcs,message", [
    ([(0, 5, 1)], "outside"),
    ([(0, 1, -1)], "0..2\\^62"),
    ([(0, 1, 2**62 + 1)], "0..2\\^62"),
])
def test_refuses_malformed_networks(arcs, message):
    with pytest.raises(ParameterError, match=message):
        build_residual(Network.from_arcs(3, 0, 2, arcs))


def test_refuses_more_arcs_than_the_capacity_sums_allow(monkeypatch):
    from maxflow_cli import residual

    monkeypatch.setattr(residual, "MAX_ARCS", 2)
    with pytest.raises(ParameterError, match="3 arcs: at most 2 .*capacity sums"):
        build_residual(Network.from_arcs(3, 0, 2, [(0, 1, 1)] * 3), INPUT_ORDER)


def test_arcs_are_indexed_by_int64_past_what_int32_indexes_with_a_warp_to_spare():
    assert arc_index_type(MAX_NARROW_ARCS) == np.int32
    assert 2 * MAX_NARROW_ARCS + 32 <= 2**31 - 1
    assert arc_index_type(MAX_NARROW_ARCS + 1) == arc_index_type(MAX_ARCS) == np.int64


def assert_wide_equals_narrow(network):
    """Built with int64 arc indices, the graph is wide and holds the int32 build's arrays."""
    for order in ORDERS:
        narrow, wide = (build_residual(network, order, arc_type) for arc_type in (None, np.int64))
        assert not narrow.wide and wide.wide
        for name in ("first", "rev", "arc_of_input"):
            assert getattr(narrow, name).dtype == np.int32
            assert getattr(wide, name).dtype == np.int64
        for name in ("first", "head", "rev", "arc_of_input", "cap"):
            assert np.array_equal(getattr(narrow, name), getattr(wide, name)), (order, name)
        assert np.array_equal(wide.network.tails, network.tails)


@settings(max_examples=60, deadline=None)
@given(small_networks(40, 9, 120))
def test_random_graphs_with_64_bit_arc_indices(case):
    n, arcs = case
    assert_wide_equals_narrow(Network.from_arcs(n, 0, n - 1, arcs))


def test_a_larger_graph_with_64_bit_arc_indices_spans_many_blocks():
    rng = np.random.default_rng(5)
    tails, heads = rng.integers(0, 20_000, (2, 90_000), dtype=np.int32)
    tails[::7] = 10_000
    assert_wide_equals_narrow(Network(20_000, 0, 19_999, tails, heads,
                                      rng.integers(0, 50, 90_000)))


def test_refuses_source_equal_to_sink():
    with pytest.raises(ParameterError, match="same vertex"):
        build_residual(Network.from_arcs(3, 1, 1, [(0, 1, 1)]))


def test_refuses_a_graph_the_memory_cannot_hold(monkeypatch):
    from maxflow_cli import memory
    from maxflow_cli.errors import MaxflowError

    network = Network.from_arcs(1000, 0, 999, [(0, 999, 5)])
    monkeypatch.setattr(memory, "available", lambda: 10_000)
    with pytest.raises(MaxflowError, match="the residual graph of 1,000 vertices and 1 arcs "
                                           "needs about 16 kB of memory; this machine has "
                                           "10 kB available"):
        build_residual(network)
    monkeypatch.setattr(memory, "available", lambda: 20_000)
    assert build_residual(network).m == 1


def test_a_network_with_no_arcs_has_an_empty_graph():
    graph = build_residual(Network.from_arcs(2, 0, 1, []))
    assert graph.first.tolist() == [0, 0, 0] and graph.head.size == graph.arc_of_input.size == 0



def hi_pr_parse(network):
    """hi_pr 3.6's parse() as it is, in plain Python: input arc i in slots 2i (forward) and
    2i+1 (reverse), then its in-place sort by tail, swapping heads, capacities and sisters
    (the paired arcs). Returns the graph's first, head, rev, cap and arc_of_input."""
    m, n = network.m, network.n
    tail = [x for i in range(m) for x in (int(network.tails[i]), int(network.heads[i]))]
    head = [x for i in range(m) for x in (int(network.heads[i]), int(network.tails[i]))]
    cap = [x for i in range(m) for x in (int(network.caps[i]), 0)]
    sister = [k ^ 1 for k in range(2 * m)]
    slot = list(range(2 * m))  # which slot each position holds, for arc_of_input
    first = [0] * (n + 1)
    for t in tail:
        first[t + 1] += 1
    for u in range(n):
        first[u + 1] += first[u]
    fill = first[:n]
    for u in range(n - 1):
        for current in range(fill[u], first[u + 1]):
            while tail[current] != u:
                t = tail[current]
                new = fill[t]
                for array in (head, cap, slot):
                    array[new], array[current] = array[current], array[new]
                if sister[current] != new:
                    sister[new], sister[current] = sister[current], sister[new]
                    sister[sister[current]], sister[sister[new]] = current, new
                tail[current], tail[new] = tail[new], t
                fill[t] += 1
    arc_of_input = [0] * m
    for position, k in enumerate(slot):
        if k % 2 == 0:
            arc_of_input[k // 2] = position
    return first, head, sister, cap, arc_of_input


def assert_as_hi_pr_parses(network):
    graph = build_residual(network)
    built = (graph.first, graph.head, graph.rev, graph.cap, graph.arc_of_input)
    for name, ours, theirs in zip(("first", "head", "rev", "cap", "arc_of_input"), built,
                                  hi_pr_parse(network)):
        assert ours.tolist() == list(theirs), name


def test_the_oracle_is_hi_pr_on_the_example_above():
    arcs = [(0, 1, 3), (1, 2, 2), (2, 1, 1), (1, 3, 1), (2, 3, 5), (0, 2, 1)]
    first, head, _, cap, _ = hi_pr_parse(Network.from_arcs(4, 0, 3, arcs))
    assert head[first[1]:first[2]] == [0, 2, 3, 2] and cap[first[1]:first[2]] == [0, 2, 1, 0]


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                   st.integers(0, 9)), max_size=120),
    st.lists(st.integers(0, 119), max_size=10), st.lists(st.integers(0, 119), max_size=10))))
def test_random_graphs_are_laid_out_as_hi_pr_parses_them(case):
    """Parallel arcs (copies), anti-parallel arcs (reversed copies) and self-loops included."""
    n, arcs, copies, reversals = case
    arcs = arcs + [arcs[i % len(arcs)] for i in copies if arcs] + \
        [(v, u, c) for u, v, c in (arcs[i % len(arcs)] for i in reversals if arcs)]
    assert_as_hi_pr_parses(Network.from_arcs(n, 0, n - 1, arcs))


@settings(max_examples=100, deadline=None)
@given(small_networks(30, 9, 120))
def test_arcs_paired_on_one_thread_lie_as_when_paired_on_all(case):
    """The contracted chains' build (chains.contract) pairs the arcs on its thread alone."""
    n, arcs = case
    network = Network.from_arcs(n, 0, n - 1, arcs)
    both = [build_in_hipr_order(n, network.tails, network.heads, np.int32, one_thread=alone)
            for alone in (False, True)]
    for parallel, alone in zip(*both):
        np.testing.assert_array_equal(parallel, alone)


@pytest.mark.parametrize("family,params", [
    ("washington-rlg", dict(rows=16, levels=24)),
    ("genrmf", dict(a=4, b=6)),
    ("grid", dict(shape=(12, 10), connectivity=8)),
    ("acyclic-dense", dict(n=40)),
    ("washington", dict(function=1, dim1=8, dim2=9, range=50)),
    ("washington", dict(function=11, dim1=3, dim2=4, range=3)),
])
def test_generated_networks_are_laid_out_as_hi_pr_parses_them(family, params):
    from maxflow_cli.generators import make

    assert_as_hi_pr_parses(make(family, **params, seed=3))


def test_stars_self_loops_and_isolated_vertices_as_hi_pr_parses_them():
    hub_last = [(u, 9, 1) for u in range(8)] + [(9, u, 2) for u in range(8)]
    assert_as_hi_pr_parses(Network.from_arcs(10, 0, 9, hub_last[::-1] + [(9, 9, 4)] * 3))
    loops = [(3, 3, 1)] * 4 + [(0, 3, 2), (3, 5, 1), (5, 3, 7), (3, 3, 2)]
    assert_as_hi_pr_parses(Network.from_arcs(7, 0, 5, loops))


def assert_in_input_order(network):
    """The input-order build: slot 2i (input arc i, forward) and 2i + 1 (its reverse) stably
    sorted by tail, as NumPy's stable argsort sorts them; rev pairs the slots' positions."""
    graph = build_residual(network, INPUT_ORDER)
    m = network.m
    tail, head, cap = (np.empty(2 * m, np.int64) for _ in range(3))
    tail[0::2], tail[1::2] = network.tails, network.heads
    head[0::2], head[1::2] = network.heads, network.tails
    cap[0::2], cap[1::2] = network.caps, 0
    slot = np.argsort(tail, kind="stable")  # the slot at each position
    position = np.empty(2 * m, np.int64)
    position[slot] = np.arange(2 * m)
    assert graph.first.tolist() == hi_pr_parse(network)[0]
    assert graph.head.tolist() == head[slot].tolist()
    assert graph.cap.tolist() == cap[slot].tolist()
    assert graph.rev.tolist() == position[slot ^ 1].tolist()
    assert graph.arc_of_input.tolist() == position[0::2].tolist()


@settings(max_examples=200, deadline=None)
@given(small_networks(40, 9, 120))
def test_random_graphs_in_input_order(case):
    n, arcs = case
    assert_in_input_order(Network.from_arcs(n, 0, n - 1, arcs))


@pytest.mark.parametrize("n,m", [(5000, 3), (20_000, 90_000), (70_000, 40_000)])
def test_larger_graphs_in_input_order_span_many_blocks(n, m):
    """More vertices than BLOCK_BITS' blocks hold one each, a hub and vertices without arcs."""
    rng = np.random.default_rng(n)
    tails, heads = rng.integers(0, n, (2, m), dtype=np.int32)
    tails[::7] = n // 2
    assert_in_input_order(Network(n, 0, n - 1, tails, heads, rng.integers(0, 50, m)))


@pytest.mark.parametrize("family,params", [
    ("washington-rlg", dict(rows=16, levels=24)),
    ("genrmf", dict(a=4, b=6)),
    ("washington", dict(function=11, dim1=3, dim2=4, range=3)),
])
def test_both_orders_hold_the_same_arcs_at_each_vertex(family, params):
    from maxflow_cli.generators import make

    network = make(family, **params, seed=3)
    assert_in_input_order(network)
    graphs = [build_residual(network, order) for order in ORDERS]
    assert graphs[0].first.tolist() == graphs[1].first.tolist()
    for u in range(network.n):
        block = slice(graphs[0].first[u], graphs[0].first[u + 1])
        assert sorted(zip(graphs[0].head[block], graphs[0].cap[block])) == \
            sorted(zip(graphs[1].head[block], graphs[1].cap[block]))


@pytest.mark.parametrize("capacity,expected", [
    (2**15 - 1, np.uint16), (2**15, np.int32), (2**30 - 1, np.int32), (2**30, np.int64)])
def test_residuals_are_narrow_only_where_twice_the_largest_capacity_fits(capacity, expected):
    graph = build_residual(Network.from_arcs(3, 0, 2, [(0, 1, capacity), (1, 2, 5)]))
    assert residual_type(graph) == expected


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_largest_reads_the_largest_value_on_all_threads(dtype):
    values = np.random.default_rng(3).integers(0, 2**30, 100_001).astype(dtype)
    assert largest(values) == values.max()
    assert largest(values[:0]) == 0
