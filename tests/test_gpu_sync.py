"""gpu-sync's pieces: the residual width, the twin's global relabel and rounds against the
sequential reverse BFS and the preflow invariants, and on a GPU (marked gpu) the kernels
against the same invariants. The solver itself runs in test_solvers with every other."""

import numpy as np
import pytest

from maxflow_cli import generators, kernels
from maxflow_cli.kernels import gpu_sync_cpu
from maxflow_cli.kernels.gpu_sync import SyncKernels, residual_type
from maxflow_cli.network import Network
from maxflow_cli.pushrelabel.relabel import initialize_preflow
from maxflow_cli.residual import build_residual
from maxflow_cli.steps import reverse_bfs

DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def _open(kind, graph):
    if kind == "gpu" and kernels.gpu_unavailable():
        pytest.skip(kernels.gpu_unavailable())
    res, excess, _, _ = initialize_preflow(graph, res_type=residual_type(graph))
    return SyncKernels(kind, graph, res, excess), res, excess


def test_residuals_are_32_bit_only_where_every_residual_fits():
    small = build_residual(Network.from_arcs(3, 0, 2, [(0, 1, 2**30 - 1), (1, 2, 5)]))
    large = build_residual(Network.from_arcs(3, 0, 2, [(0, 1, 2**30), (1, 2, 5)]))
    assert residual_type(small) == np.int32
    assert residual_type(large) == np.int64


@pytest.mark.parametrize("kind", DEVICES)
def test_global_relabel_gives_exact_distances_and_lists_the_active(kind):
    graph = build_residual(generators.make("washington-rlg", rows=8, levels=16, cap=100, seed=2))
    device, res, excess = _open(kind, graph)
    try:
        stats = device.global_relabel()
        device.download(res, excess)
    finally:
        device.close()
    expected = np.empty(graph.n, np.int32)
    reverse_bfs(graph.first, graph.head, graph.rev, res, graph.sink, expected,
                np.empty(graph.n, np.int32))
    active = [v for v in range(graph.n) if v not in (graph.source, graph.sink)
              and expected[v] < graph.n and excess[v] > 0]
    assert stats[gpu_sync_cpu.ACTIVE] == len(active) > 0
    assert stats[gpu_sync_cpu.BFS_LEVELS] == expected[expected < graph.n].max() + 1


@pytest.mark.parametrize("kind", DEVICES)
def test_rounds_keep_a_preflow_and_stop_at_the_work_budget(kind):
    graph = build_residual(generators.make("genrmf", a=4, b=6, seed=5))
    device, res, excess = _open(kind, graph)
    total = -int(excess[graph.source])
    try:
        device.global_relabel()
        stats = device.rounds(12, 1, 1000)  # a budget of 1: one round
        device.download(res, excess)
    finally:
        device.close()
    assert stats[gpu_sync_cpu.ROUND] == 1 and stats[gpu_sync_cpu.STOP] == 1
    assert stats[gpu_sync_cpu.PUSHES] > 0
    others = np.ones(graph.n, bool)
    others[graph.source] = False
    assert (excess[others] >= 0).all() and (res >= 0).all()
    assert excess[others].sum() == total
    np.testing.assert_array_equal(res + res[graph.rev], graph.cap + graph.cap[graph.rev])
