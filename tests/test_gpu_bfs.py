"""`gpu-bfs` (Gutiérrez Mota 2012, alg. 4.1-4.8): the all-GPU loop on the kernels' Numba
twins (CI) and on the GPU (marked gpu), against hipr and the certificate on every generator
family and on random graphs; the GPU global relabel's labels."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_cuda import DEVICES, FAMILY_CASES, assert_like_hipr, solve
from test_solvers import networks

from maxflow_cli import generators
from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels.preflow import PreflowKernels
from maxflow_cli.pushrelabel.relabel import saturate_source_arcs
from maxflow_cli.residual import build_residual
from maxflow_cli.solvers.gpu_bfs import global_relabel_gpu
from maxflow_cli.steps import reverse_bfs


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("family,params", FAMILY_CASES)
@pytest.mark.parametrize("inner_cycles,outer_cycles", [(1, 1), (5, 220), (64, 3)])
def test_every_family_like_hipr(device, family, params, inner_cycles, outer_cycles):
    network = generators.make(family, **params)
    for want_flow in (False, True):
        graph, result = solve("gpu-bfs", device, network, want_flow, inner_cycles=inner_cycles,
                              outer_cycles=outer_cycles)
        assert result.is_flow == want_flow
        assert_like_hipr(graph, result)
        counters = result.counters
        assert counters["rounds"] == counters["global_relabels"] == len(result.trace) >= 1
        assert counters["kernel_launches"] == (counters["push_relabel_launches"]
                                               + 2 * counters["global_relabels"]
                                               + counters["bfs_levels"])
        assert set(result.times) >= {"stage1", "kernels", "transfer", "global_relabel"}


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network=networks(), want_flow=st.booleans(), inner_cycles=st.integers(1, 3),
       outer_cycles=st.integers(1, 3))
def test_random_networks_like_hipr(device, network, want_flow, inner_cycles, outer_cycles):
    try:
        build_residual(network)
    except ParameterError:  # source capacities summing past 2^63-1 are refused
        assume(False)
    assert_like_hipr(*solve("gpu-bfs", device, network, want_flow, inner_cycles=inner_cycles,
                            outer_cycles=outer_cycles))


def _distances(graph, res, root):
    """Residual distances to `root` (n where it cannot be reached)."""
    label = np.empty(graph.n, np.int32)
    reverse_bfs(graph.first, graph.head, graph.rev, res, root, label,
                np.empty(graph.n, np.int32))
    return label


def test_global_relabel_labels_by_distance_to_sink_then_source():
    graph = build_residual(generators.make("genrmf", a=3, b=4, seed=9))
    rng = np.random.default_rng(0)
    res = graph.cap // rng.integers(1, 3, graph.cap.shape[0])  # some arcs saturated
    saturate_source_arcs(graph.first, graph.head, graph.rev, res, np.zeros(graph.n, np.int64),
                         graph.source)  # the source cannot reach the sink
    device = PreflowKernels("cpu", graph, 32)
    device.to_device("res", res)
    device.to_device("label", np.full(graph.n, 1, np.int32))  # no violations to cancel
    levels = global_relabel_gpu(device, graph.n)
    label = np.empty(graph.n, np.int32)
    device.to_host("label", label)
    n = graph.n
    to_sink, to_source = _distances(graph, res, graph.sink), _distances(graph, res, graph.source)
    expected = np.where(to_sink < n, to_sink, np.where(to_source < n, n + to_source, 2 * n))
    expected[graph.source] = n
    assert label.tolist() == expected.tolist()
    from_source_side = to_source[(to_sink == n) & (to_source < n)]
    assert levels == to_sink[to_sink < n].max() + 1 + from_source_side.max() + 1
