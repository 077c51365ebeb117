"""The chains' contraction (maxflow_cli.chains): which vertices are links, the contracted
network of Anderson's chain families, and answers carried back to the network, certified
against the oracle on hypothesis graphs full of chains."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from oracle import max_flow_value

from maxflow_cli import generators
from maxflow_cli.chains import chain_space, chains_why, contract, contracted_chains, link_arcs
from maxflow_cli.check import check_answer
from maxflow_cli.errors import ParameterError
from maxflow_cli.network import Network
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual


def contracted(network, arc_type=None):
    graph = build_residual(network, arc_type=arc_type)
    space = chain_space(graph)
    return graph, contract(graph, space, link_arcs(graph, space), 0.0)


def links(arcs, n, arc_type=None):
    return contracted(Network.from_arcs(n, 0, n - 1, arcs), arc_type)[1].links


@pytest.mark.parametrize("arc_type", [None, np.int64])
def test_links_have_one_arc_in_and_one_out_to_two_neighbours(arc_type):
    path = [(0, 1, 5), (1, 2, 5), (2, 3, 5)]
    assert links(path, 4, arc_type) == 2
    assert links(path + [(1, 3, 1)], 4, arc_type) == 1  # 1 has two arcs out
    assert links(path + [(0, 2, 1)], 4, arc_type) == 1  # 2 has two arcs in
    assert links(path + [(2, 1, 1)], 4, arc_type) == 0  # both: two in and two out
    assert links([(0, 1, 5), (1, 2, 0), (2, 3, 5)], 4, arc_type) == 0  # no capacity
    to_and_from_one = [(0, 1, 5), (1, 2, 5), (2, 1, 5), (1, 3, 5)]  # 2's neighbour: 1 only
    assert links(to_and_from_one, 4, arc_type) == 0
    assert links([(0, 3, 5), (1, 2, 5), (2, 1, 5)], 4, arc_type) == 0  # a 2-cycle: one neighbour


def test_many_parallel_arcs_make_no_link():
    assert links([(0, 1, 1), (1, 2, 1)] * 3 + [(2, 3, 1)], 4) == 0


def test_goldbergs_bad_case_contracts_to_four_vertices():
    """Source -> 1, then n two-link chains from 1 to 2n+2, then one chain to the sink."""
    graph, contraction = contracted(generators.make("washington", function=10, dim1=300,
                                                    dim2=0))
    assert (graph.n, contraction.graph.n, contraction.links) == (903, 4, 899)
    network = contraction.graph.network
    arcs = sorted(zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist()))
    assert arcs == [(0, 1, 300)] + [(1, 2, 1)] * 300 + [(2, 3, 300)]


def test_cheriyans_graph_keeps_the_vertices_where_chains_meet():
    """4 m c + 2 n + 7 vertices; those kept: the four hubs, the m - 1 vertices of each of
    the four gadgets that two arcs enter, the bridge's two ends and the sink."""
    n, m, c = 50, 10, 5
    graph, contraction = contracted(generators.make("washington", function=11, dim1=n,
                                                    dim2=m, range=c))
    assert graph.n == 4 * m * c + 2 * n + 7
    assert contraction.graph.n == 4 + 4 * (m - 1) + 2 + 1


CAPACITY = st.one_of(st.just(0), st.integers(1, 12), st.integers(2**62 - 5, 2**62))


@st.composite
def chained_networks(draw):
    """Small networks whose arcs are drawn out into chains of 0-3 links, with cycles of
    links, chains from a vertex back to itself, parallel arcs, self-loops and zero and
    huge capacities."""
    hubs = draw(st.integers(2, 6))
    hub = st.integers(0, hubs - 1)
    ends = draw(st.lists(st.tuples(hub, hub), max_size=3 * hubs))
    loops = draw(st.lists(hub, max_size=2))
    n, arcs = hubs, []
    for tail, head in ends + [(u, u) for u in loops]:
        count = draw(st.integers(0 if tail != head else 1, 3))
        path = [tail, *range(n, n + count), head]
        n += count
        arcs += [(u, v, draw(CAPACITY)) for u, v in zip(path, path[1:])]
    for _ in range(draw(st.integers(0, 1))):  # a cycle of links
        arcs += [(n, n + 1, draw(CAPACITY)), (n + 1, n + 2, draw(CAPACITY)),
                 (n + 2, n, draw(CAPACITY))]
        n += 3
    source, sink = draw(st.lists(hub, min_size=2, max_size=2, unique=True))
    return Network.from_arcs(n, source, sink, draw(st.permutations(arcs)) if arcs else [])


def oracle(network):
    return max_flow_value(network.n, network.source, network.sink,
                          zip(network.tails.tolist(), network.heads.tolist(),
                              network.caps.tolist()))


@pytest.mark.parametrize("arc_type", [None, np.int64])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network=chained_networks(), want_flow=st.booleans())
def test_an_answer_of_the_contracted_network_is_one_of_the_network(arc_type, network,
                                                                     want_flow):
    """hipr's preflow (or flow) of the contracted network, carried back, is certified on
    the network with the oracle's value."""
    try:
        graph, contraction = contracted(network, arc_type)
    except ParameterError:  # source capacities summing past 2^63-1 are refused
        assume(False)
    hipr = get_solver("hipr")
    result = hipr.solve(contraction.graph, hipr.resolve(SolveOptions(want_flow=want_flow)))
    result = replace(result, res=contraction.expanded(graph, result.res))
    assert result.flow_value == oracle(network)
    certificate = check_answer(graph, result)
    assert certificate.ok, certificate.problems
    assert certificate.cut_capacity == result.flow_value


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network=chained_networks(), want_flow=st.booleans())
def test_auto_on_chains_is_certified(network, want_flow):
    """auto on the CPU, whether it contracts the chains or not."""
    try:
        graph = build_residual(network)
    except ParameterError:
        assume(False)
    auto = get_solver("auto")
    result = auto.solve(graph, auto.resolve(SolveOptions(want_flow=want_flow, device="cpu")))
    assert result.flow_value == oracle(network)
    assert check_answer(graph, result).ok
    assert result.is_flow == want_flow


def test_the_chains_of_goldbergs_bad_case_and_cheriyans_graph_only_are_contracted():
    """Their vertices are nearly all links of chains; a genrmf's, a grid's and the path of
    Dinic's bad case (each vertex also drains into the sink) are not."""
    def contracted(generator, **params):
        graph = build_residual(generators.make(generator, **params))
        contraction = contracted_chains(graph)
        return contraction and (chains_why(graph, contraction), contraction.graph.n)

    assert contracted("washington", function=10, dim1=300, dim2=0) == (
        "100% of the vertices are links of chains (one arc in, one out), each chain "
        "contracted into one arc (903 vertices to 4)", 4)
    why, _ = contracted("washington", function=11, dim1=50, dim2=10, range=5)
    assert why.startswith("87%")
    for generator, params in (("washington", {"function": 9, "dim1": 300, "dim2": 0}),
                              ("genrmf", {"a": 4, "b": 6, "seed": 1}),
                              ("grid", {"shape": (20, 20), "connectivity": 4, "seed": 1})):
        assert contracted(generator, **params) is None, generator
