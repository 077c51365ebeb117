"""gpu-sync's pieces: the residual width, the twin's global relabel (whole or in launches of a
few levels) and rounds against the sequential reverse BFS and the preflow invariants, and on
a GPU (marked gpu) the kernels against the same invariants; the launch windows, and the
engine alone or raced by its rivals. The solver also runs in test_solvers with every other."""

import numpy as np
import pytest

from maxflow_cli import generators, kernels
from maxflow_cli.check import check_answer
from maxflow_cli.kernels import gpu_sync_cpu
from maxflow_cli.kernels.gpu_sync import SyncKernels, residual_type
from maxflow_cli.network import Network
from maxflow_cli.pushrelabel.relabel import initialize_preflow
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.solvers import gpu_sync
from maxflow_cli.solvers.gpu_sync import UNLIMITED, WINDOW_SECONDS, Window
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


def _hub(spokes: int) -> Network:
    """A sink joined to `spokes` vertices, each fed by the source and by the one before it: a
    frontier of one vertex with a whole grid's worth of arcs."""
    arcs = [(0, v, 2) for v in range(1, spokes + 1)] + [(v, spokes + 1, 1)
                                                         for v in range(1, spokes + 1)]
    return Network.from_arcs(spokes + 2, 0, spokes + 1, arcs + [(v, v + 1, 1)
                                                               for v in range(1, spokes)])


GRAPHS = {"rlg": lambda: generators.make("washington-rlg", rows=8, levels=16, cap=100, seed=2),
          "hub": lambda: _hub(300_000)}


@pytest.mark.parametrize("shape", GRAPHS)
@pytest.mark.parametrize("max_levels", [1, 3, 1 << 30])
@pytest.mark.parametrize("kind", DEVICES)
def test_global_relabel_gives_exact_distances_and_lists_the_active(kind, max_levels, shape):
    graph = build_residual(GRAPHS[shape]())
    device, res, excess = _open(kind, graph)
    label = np.empty(graph.n, np.int32)
    launches = 0
    try:
        stats = device.global_relabel(max_levels)
        launches += 1
        while stats[gpu_sync_cpu.BFS_OPEN]:
            assert stats[gpu_sync_cpu.BFS_LEVELS] == launches * max_levels
            stats = device.global_relabel(max_levels)
            launches += 1
        device.download(res, excess)
        device.device.download("label", label)
    finally:
        device.close()
    expected = np.empty(graph.n, np.int32)
    reverse_bfs(graph.first, graph.head, graph.rev, res, graph.sink, expected,
                np.empty(graph.n, np.int32))
    active = [v for v in range(graph.n) if v not in (graph.source, graph.sink)
              and expected[v] < graph.n and excess[v] > 0]
    assert stats[gpu_sync_cpu.ACTIVE] == len(active) > 0
    levels = expected[expected < graph.n].max() + 1
    assert stats[gpu_sync_cpu.BFS_LEVELS] == levels
    assert launches == -(-levels // max_levels)
    expected[graph.source] = graph.n
    np.testing.assert_array_equal(label, expected)


@pytest.mark.parametrize("kind", DEVICES)
def test_rounds_keep_a_preflow_and_stop_at_the_work_budget(kind):
    graph = build_residual(generators.make("genrmf", a=4, b=6, seed=5))
    device, res, excess = _open(kind, graph)
    total = -int(excess[graph.source])
    try:
        device.global_relabel(1 << 30)
        stats = device.rounds(12, 1, 2**62, 1000)  # a budget of 1: one round
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


@pytest.mark.parametrize("kind", DEVICES)
def test_rounds_stop_once_their_time_is_up(kind):
    graph = build_residual(generators.make("genrmf", a=4, b=6, seed=5))
    device, res, excess = _open(kind, graph)
    try:
        device.global_relabel(1 << 30)
        stats = device.rounds(12, 2**62, 1, 1000)  # 1 ns: the first round takes longer
    finally:
        device.close()
    assert stats[gpu_sync_cpu.ROUND] == 1 and stats[gpu_sync_cpu.STOP] == 1
    assert stats[gpu_sync_cpu.ACTIVE] > 0


def test_the_rounds_get_the_last_global_relabels_time_over_the_frequency():
    graph = build_residual(generators.make("genrmf", a=4, b=6, seed=5))
    options = get_solver("gpu-sync").resolve(SolveOptions(device="cpu", params={
        "rivals": "none", "global_update_frequency": 0.25}))
    engine = gpu_sync.Engine(graph, options, polled=False)
    engine.device.close()
    engine.relabel_seconds, engine.rounds_seconds = 0.002, 0.005
    assert engine._rounds_ns_left() == 3_000_000  # 8 ms less the 5 ms the rounds took
    engine.rounds_seconds = 0.009
    assert engine._rounds_ns_left() == 1  # due: the next launch stops after a round
    engine.frequency = 0
    assert engine._rounds_ns_left() == 2**62


def test_a_window_runs_about_its_seconds_of_steps_once_timed():
    window = Window(polled=True)
    assert window.steps == 16
    window.ran(100, 0.01)  # 10 k steps a second
    assert window.steps == int(100 * WINDOW_SECONDS / 0.01)
    window.ran(1, 10.0)
    assert window.steps == 1
    window.ran(0, 0.0)  # nothing ran: keep the estimate
    assert window.steps == 1
    assert Window(polled=False).steps == UNLIMITED


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("rivals", ["none", "hipr", "hipr+hpf"])
def test_the_engine_alone_or_raced_answers_the_maximum_flow(kind, rivals):
    if kind == "gpu" and kernels.gpu_unavailable():
        pytest.skip(kernels.gpu_unavailable())
    graph = build_residual(generators.make("washington-rlg", rows=8, levels=16, cap=100, seed=2))
    spec = get_solver("gpu-sync")
    options = spec.resolve(SolveOptions(want_flow=True, device=kind, params={"rivals": rivals}))
    result = spec.solve(graph, options)
    expected = get_solver("hipr").solve(graph, get_solver("hipr").resolve(SolveOptions()))
    assert result.flow_value == expected.flow_value and result.is_flow
    assert check_answer(graph, result).ok
    if rivals == "none":
        assert (result.winner, result.why) == ("", "")
        assert result.counters["rounds"] > 0 and result.trace
    else:
        assert result.winner in ("gpu-sync",) + tuple(rivals.split("+"))
        engine = f"gpu-sync's engine (on the {kind})"
        assert result.why.startswith(
            f"{engine if result.winner == 'gpu-sync' else result.winner} answered before ")


@pytest.mark.parametrize("want_flow", [False, True])
def test_the_host_keeps_32_bit_residuals_unless_stage_two_takes_them(want_flow):
    graph = build_residual(generators.make("washington-rlg", rows=8, levels=16, cap=100, seed=2))
    spec = get_solver("gpu-sync")
    options = spec.resolve(SolveOptions(want_flow=want_flow, device="cpu",
                                        params={"rivals": "none"}))
    result = spec.solve(graph, options)
    assert result.res.dtype == (np.int64 if want_flow else np.int32)
    assert check_answer(graph, result).ok
    assert want_flow or "cap" not in vars(graph)  # only stage 2 reads a capacity per arc


@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 64, 1001])
def test_32_bit_residuals_are_widened_in_place(size):
    """What the engine downloads into the first half of an int64 array's bytes, as int64s."""
    import numpy as np

    from maxflow_cli.solvers.gpu_sync import widened

    values = np.random.default_rng(size).integers(-2**31, 2**31, size).astype(np.int32)
    wide = np.empty(size, np.int64)
    wide.view(np.int32)[:size] = values
    widened(wide)
    assert wide.tolist() == values.tolist()
