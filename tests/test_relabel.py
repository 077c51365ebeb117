"""pushrelabel/relabel.py: the preflow's set-up, whose source arcs are saturated on one thread
or on all (initialize_preflow's), with the same outcome."""

import numpy as np
import pytest

from maxflow_cli.network import Network
from maxflow_cli.pushrelabel.relabel import (
    initialize_preflow,
    saturate_source_arcs,
    saturate_source_arcs_parallel,
)
from maxflow_cli.residual import build_residual


def _fan(heads: int, seed: int) -> Network:
    """A source with thousands of arcs to few vertices (parallel arcs), a self-loop, an arc of
    capacity 0; each vertex drains into the sink."""
    rng = np.random.default_rng(seed)
    ends = rng.integers(1, heads + 1, 5000)
    arcs = [(0, int(v), int(c)) for v, c in zip(ends, rng.integers(0, 100, 5000))]
    arcs += [(0, 0, 7), (0, 1, 0)] + [(v, heads + 1, 50) for v in range(1, heads + 1)]
    return Network.from_arcs(heads + 2, 0, heads + 1, arcs)


@pytest.mark.parametrize("heads", [1, 3, 1000])
def test_the_source_arcs_are_saturated_alike_on_one_thread_or_all(heads):
    network = _fan(heads, heads)
    sent = int(network.caps[(network.tails == 0) & (network.heads != 0)].sum())
    graph = build_residual(network)
    outcomes = []
    for saturate in (saturate_source_arcs, saturate_source_arcs_parallel):
        res, excess = graph.initial_residuals(), np.zeros(graph.n, np.int64)
        total = saturate(graph.first, graph.head, graph.rev, res, excess, graph.source)
        outcomes.append((total, res, excess))
    (total, res, excess), (total_all, res_all, excess_all) = outcomes
    assert total == total_all == sent == excess[1:].sum() == -excess[0]
    np.testing.assert_array_equal(res, res_all)
    np.testing.assert_array_equal(excess, excess_all)


def test_initialize_preflow_saturates_the_source_arcs_in_the_type_asked_for():
    graph = build_residual(_fan(1000, 2))
    res, excess, label, total = initialize_preflow(graph, res_type=np.uint16)
    expected, expected_excess = graph.initial_residuals(), np.zeros(graph.n, np.int64)
    assert total == saturate_source_arcs(graph.first, graph.head, graph.rev, expected,
                                         expected_excess, graph.source)
    assert res.dtype == np.uint16 and (res == expected).all()
    np.testing.assert_array_equal(excess, expected_excess)
    assert label[graph.source] == graph.n and not label[1:].any()
