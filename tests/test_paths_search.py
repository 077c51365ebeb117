"""K shortest loopless paths on the CPU (the MPS twin and the reference Yen) against
networkx's Yen: costs in order, on random graphs with ties, zero lengths, parallel arcs and
unreachable targets, and on SNDlib networks; every path valid and loopless."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths_oracle import arc_lengths, assert_valid, oracle_costs

from maxflow_cli.errors import ParameterError
from maxflow_cli.paths.graph import PathGraph, sndlib_graph
from maxflow_cli.paths.search import all_pairs, rank_paths

ALGORITHMS = ["mps", "yen"]


@st.composite
def graphs(draw):
    """Up to 7 vertices, lengths 0..3 (many ties), parallel arcs and self-loops allowed; some
    vertices have no arcs, so some targets are out of reach."""
    n = draw(st.integers(2, 7))
    arcs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                   st.integers(0, 3)), max_size=24))
    return n, arcs


def _graph(n, arcs):
    tails, heads, lengths = zip(*arcs) if arcs else ((), (), ())
    return PathGraph.from_arcs(n, tails, heads, lengths)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@settings(max_examples=60, deadline=None)
@given(graphs(), st.integers(1, 12))
def test_costs_in_order_equal_networkx_on_random_graphs(algorithm, drawn, k):
    n, arcs = drawn
    graph = _graph(n, arcs)
    sources, targets = all_pairs(n)
    ranking = rank_paths(graph, sources, targets, k, algorithm, "cpu")
    for pair, (s, t) in enumerate(zip(sources.tolist(), targets.tolist())):
        paths = ranking.paths(pair)
        assert [cost for cost, _ in paths] == oracle_costs(graph, s, t, k), (s, t)
        assert_valid(paths, s, t, arc_lengths(arcs))


def test_ties_rank_fewer_arcs_first_and_parallel_arcs_count_once():
    # 0 -> 1 twice (lengths 1 and 4), 0 -> 2 -> 1 of the same cost 1, 1 -> 3, 2 -> 3
    graph = _graph(4, [(0, 1, 4), (0, 1, 1), (0, 2, 1), (2, 1, 0), (1, 3, 2), (2, 3, 2)])
    for algorithm in ALGORITHMS:
        paths = rank_paths(graph, [0], [3], 10, algorithm, "cpu").paths(0)
        assert paths == [(3, [0, 1, 3]), (3, [0, 2, 3]), (3, [0, 2, 1, 3])], algorithm


def test_an_unreachable_target_has_no_paths():
    graph = _graph(3, [(0, 1, 1), (2, 0, 1)])
    for algorithm in ALGORITHMS:
        assert rank_paths(graph, [0], [2], 5, algorithm, "cpu").paths(0) == []


@pytest.mark.parametrize("network", ["abilene", "polska", "germany50"])
def test_sndlib_networks_match_networkx(network):
    graph = sndlib_graph(network)
    rng = np.random.default_rng(1)
    sources, targets = all_pairs(graph.n)
    chosen = rng.choice(sources.shape[0], 6, replace=False)
    lengths = {(int(graph.tail[a]), int(graph.head[a])): int(graph.length[a])
               for a in range(graph.m)}
    for algorithm in ALGORITHMS:
        ranking = rank_paths(graph, sources[chosen], targets[chosen], 100, algorithm, "cpu")
        for pair, (s, t) in enumerate(zip(sources[chosen].tolist(), targets[chosen].tolist())):
            paths = ranking.paths(pair)
            assert [cost for cost, _ in paths] == oracle_costs(graph, s, t, 100)
            assert_valid(paths, s, t, lengths)


def test_mps_and_yen_agree_on_every_pair_of_a_network():
    graph = sndlib_graph("abilene")
    sources, targets = all_pairs(graph.n)
    mps = rank_paths(graph, sources, targets, 100, "mps", "cpu")
    yen = rank_paths(graph, sources, targets, 100, "yen", "cpu")
    assert np.array_equal(mps.out_count, yen.out_count)
    for pair in range(sources.shape[0]):
        count = mps.out_count[pair]
        assert np.array_equal(mps.out_key[pair, :count], yen.out_key[pair, :count])


@pytest.mark.parametrize("k, algorithm, share, message", [
    (0, "mps", 1.0, "--k 0"), (3, "bfs", 1.0, "unknown algorithm"),
    (3, "mps", 0.0, "--threads-share 0.0"), (3, "mps", 1.5, "--threads-share 1.5")])
def test_bad_parameters_are_refused(k, algorithm, share, message):
    graph = _graph(2, [(0, 1, 1)])
    with pytest.raises(ParameterError, match=message):
        rank_paths(graph, [0], [1], k, algorithm, "cpu", share)
