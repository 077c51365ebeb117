"""pushrelabel.arc_order: the same residual graph with each vertex's input arcs first, then
its reverse arcs, each in input order; residuals map back through the input arcs."""

import numpy as np
from fixtures import VECTORS
from hypothesis import assume, given, settings
from test_solvers import networks

from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.errors import ParameterError
from maxflow_cli.pushrelabel.arc_order import forward_first, residuals_in
from maxflow_cli.residual import build_residual


def arcs_of(graph, u):
    """Vertex u's arcs as (head, capacity, head of the paired arc), in the graph's order."""
    return [(int(graph.head[a]), int(graph.cap[a]), int(graph.head[graph.rev[a]]))
            for a in range(graph.first[u], graph.first[u + 1])]


def assert_forward_first(graph):
    ordered = forward_first(graph)
    network = graph.network
    assert np.array_equal(ordered.first, graph.first)
    assert np.array_equal(ordered.rev[ordered.rev], np.arange(2 * graph.m))
    for u in range(graph.n):
        inputs = np.flatnonzero(network.tails == u)
        into = np.flatnonzero(network.heads == u)
        expected = [(int(network.heads[i]), int(network.caps[i]), u) for i in inputs] + \
                   [(int(network.tails[i]), 0, u) for i in into]
        assert arcs_of(ordered, u) == expected
    assert np.array_equal(ordered.head[ordered.arc_of_input], network.heads)
    assert np.array_equal(ordered.cap[ordered.arc_of_input], network.caps)
    # any per-arc array maps back onto the same arcs: capacities, heads, heads of the pair
    assert np.array_equal(residuals_in(graph, ordered, ordered.cap), graph.cap)
    assert np.array_equal(residuals_in(graph, ordered, ordered.head), graph.head)
    assert np.array_equal(residuals_in(graph, ordered, ordered.head[ordered.rev]),
                          graph.head[graph.rev])


def test_a_generated_instance_keeps_every_arc_and_puts_input_arcs_first():
    assert_forward_first(build_residual(read_network(
        str(VECTORS / "rlg_w16_l32_cap10000_seed0.max"))[0]))


@settings(max_examples=100, deadline=None)
@given(network=networks())
def test_random_networks_with_self_loops_and_parallel_arcs(network):
    try:
        graph = build_residual(network)
    except ParameterError:  # source capacities summing past 2^63-1 are refused
        assume(False)
    assert_forward_first(graph)
