"""The GPU solvers one after another in one process, in varied orders, on one graph: each must
give hipr's value with a passing certificate (state one solver leaves behind must not reach
the next; a race shows as a value that moves between runs)."""

import random

import pytest

from maxflow_cli import generators
from maxflow_cli.check import check_answer
from maxflow_cli.kernels import gpu_unavailable
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual

GPU_SOLVERS = ("cuda", "gpu-bfs", "hybrid", "openmp-cuda", "gpu-sync")


@pytest.mark.gpu
@pytest.mark.parametrize("order_seed", range(3))
def test_gpu_solvers_in_varied_orders_agree_with_hipr(order_seed):
    if gpu_unavailable():
        pytest.skip(gpu_unavailable())
    graph = build_residual(generators.make("washington-rlg", rows=64, levels=256, cap=10000,
                                           seed=order_seed + 1))
    hipr = get_solver("hipr")
    expected = hipr.solve(graph, hipr.resolve(SolveOptions())).flow_value
    order = list(GPU_SOLVERS) * 2
    random.Random(order_seed).shuffle(order)
    for name in order:
        spec = get_solver(name)
        result = spec.solve(graph, spec.resolve(SolveOptions(device="gpu")))
        assert result.flow_value == expected, name
        assert check_answer(graph, result).ok, name
