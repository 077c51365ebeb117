"""gpu-sync's pieces: the residual width, the twin's global relabel (whole or in launches of a
few levels) and rounds against the sequential reverse BFS and the preflow invariants, and on
a GPU (marked gpu) the kernels against the same invariants; the launch windows, and the
engine alone or raced by its rivals. The solver also runs in test_solvers with every other."""

import time
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from maxflow_cli import generators, kernels
from maxflow_cli.check import check_answer
from maxflow_cli.kernels import gpu_sync as sync_kernels
from maxflow_cli.kernels import gpu_sync_cpu
from maxflow_cli.kernels.gpu_sync import C_TYPES, SyncKernels
from maxflow_cli.network import Network
from maxflow_cli.pushrelabel.relabel import initialize_preflow
from maxflow_cli.race import RIVALS, Race
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual, residual_type
from maxflow_cli.solvers import gpu_sync
from maxflow_cli.solvers.gpu_sync import UNLIMITED, WINDOW_SECONDS, Window
from maxflow_cli.steps import reverse_bfs

DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def _open(kind, graph):
    if kind == "gpu" and kernels.gpu_unavailable():
        pytest.skip(kernels.gpu_unavailable())
    res, excess, _, _ = initialize_preflow(graph, res_type=residual_type(graph))
    return SyncKernels(kind, graph, res, excess), res, excess


def _hub(spokes: int) -> Network:
    """A sink joined to `spokes` vertices, each fed by the source and by the one before it: a
    frontier of one vertex with a whole grid's worth of arcs."""
    arcs = [(0, v, 2) for v in range(1, spokes + 1)] + [(v, spokes + 1, 1)
                                                         for v in range(1, spokes + 1)]
    return Network.from_arcs(spokes + 2, 0, spokes + 1, arcs + [(v, v + 1, 1)
                                                               for v in range(1, spokes)])


def _narrow_wide_narrow(path: int, layer: int) -> Network:
    """Two paths of `path` vertices joined by a layer of `layer` vertices, all between the
    last vertex of one and the first of the other: a BFS from the sink has `path` levels of
    one vertex, one level of the whole layer, and `path` levels of one vertex again (the
    first of them a vertex of `layer` + 1 arcs)."""
    sink_side = list(range(1, path + 1))  # 1 joins the sink
    joint = list(range(path + 1, path + layer + 1))
    far = list(range(path + layer + 1, 2 * path + layer + 1))  # the first joins the layer
    source, sink = 0, 2 * path + layer + 1
    arcs = [(sink_side[0], sink, 7), (source, far[-1], 5), (source, joint[0], 3)]
    arcs += [(v + 1, v, 7) for v in sink_side[:-1]] + [(v + 1, v, 7) for v in far[:-1]]
    arcs += [(w, sink_side[-1], 1) for w in joint] + [(far[0], w, 1) for w in joint]
    return Network.from_arcs(sink + 1, source, sink, arcs)


GRAPHS = {"rlg": lambda: generators.make("washington-rlg", rows=8, levels=16, cap=100, seed=2),
          "hub": lambda: _hub(300_000),
          "narrow-wide-narrow": lambda: _narrow_wide_narrow(40, 3000)}


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


def test_the_held_arrays_stay_locked_from_before_the_upload_until_close(monkeypatch):
    """The preflow's host arrays are locked once for all their copies (each copy would lock
    them again), before the first upload, and unlocked when the kernels close."""
    from contextlib import contextmanager

    from maxflow_cli.kernels import devices

    events = []

    @contextmanager
    def locked(device, host):
        events.append(("lock", host.size))
        yield host
        events.append(("unlock", host.size))

    upload = devices.TwinDevice.upload
    monkeypatch.setattr(devices.TwinDevice, "locked", locked)
    monkeypatch.setattr(devices.TwinDevice, "upload", lambda device, name, host: (
        events.append(("upload", name)), upload(device, name, host)))
    graph = build_residual(generators.make("genrmf", a=4, b=6, seed=5))
    res, excess, _, _ = initialize_preflow(graph, res_type=residual_type(graph))
    kernels = SyncKernels("cpu", graph, res, excess, held=(res, excess))
    assert events[:3] == [("lock", res.size), ("lock", excess.size), ("upload", "first")]
    assert not any(event[0] == "unlock" for event in events)
    kernels.close()
    assert events[-2:] == [("unlock", excess.size), ("unlock", res.size)]


@pytest.mark.parametrize("want_flow", [False, True])
def test_the_preflow_array_is_the_one_the_residuals_come_back_into(want_flow):
    """Without a flow, the array uploaded is the one downloaded into (no second array);
    with one, stage 2's int64 array is made at the download and the first is let go."""
    graph = build_residual(generators.make("genrmf", a=4, b=6, seed=5))
    options = get_solver("gpu-sync").resolve(SolveOptions(want_flow=want_flow, device="cpu",
                                                          params={"rivals": "none"}))
    engine = gpu_sync.Engine(graph, options, polled=False)
    try:
        held = engine.host_res
        with Race([], graph) as race:
            engine.run(race)
        res = engine.download()
    finally:
        engine.device.close()
    assert (held is None) == want_flow and (want_flow or res is held)
    assert res.dtype == (np.int64 if want_flow else residual_type(graph))


def test_a_window_runs_about_its_seconds_of_steps_once_timed():
    window = Window(polled=True)
    assert window.steps == 1
    window.ran(100, 0.01)  # 10 k steps a second
    assert window.steps == int(100 * WINDOW_SECONDS / 0.01)
    window.ran(1, 10.0)
    assert window.steps == 1
    window.ran(0, 0.0)  # nothing ran: keep the estimate
    assert window.steps == 1
    assert Window(polled=False).steps == UNLIMITED


def test_the_engine_discharges_its_resident_threads_over_a_vertexs_lanes_at_once(monkeypatch):
    """132 multiprocessors (an H100) of 2 blocks of 512 threads; a vertex of a 4-connected
    grid has 9.1 residual arcs on average (each arc's two directions, the terminals' arcs
    included), so 16 lanes."""
    monkeypatch.setattr(sync_kernels, "gpu_multiprocessors", lambda: 132)
    grid = build_residual(generators.make("grid", shape=(20, 20), connectivity=4, seed=1))
    assert sync_kernels.group_width(grid) == 16
    assert sync_kernels.vertices_at_once(grid) == 132 * 2 * 512 // 16


@pytest.mark.gpu
def test_the_gpus_own_multiprocessors_set_the_vertices_at_once():
    if kernels.gpu_unavailable():
        pytest.skip(kernels.gpu_unavailable())
    grid = build_residual(generators.make("grid", shape=(20, 20), connectivity=4, seed=1))
    assert 0 < sync_kernels.vertices_at_once(grid) == \
        sync_kernels.gpu_multiprocessors() * 2 * 512 // 16


@pytest.mark.parametrize("device, at_once, narrow", [
    ("gpu", 401, True),  # the grid's 400 inner vertices leave lanes idle
    ("gpu", 400, False),
    ("cpu", 401, False),  # the twins run as they are
])
def test_the_gpu_pays_only_where_the_graph_fills_the_engines_rounds(monkeypatch, device, at_once,
                                                                    narrow):
    monkeypatch.setattr(sync_kernels, "vertices_at_once", lambda graph: at_once)
    grid = build_residual(generators.make("grid", shape=(20, 20), connectivity=4, seed=1))
    assert sync_kernels.narrow_for_gpu(grid, device) == (
        "the GPU would not pay: its rounds discharge 401 vertices at once, and the graph has "
        "400" if narrow else "")


def test_on_a_graph_too_narrow_for_the_gpu_the_cpu_runs_it_as_auto_does(monkeypatch):
    """With the default rivals: hpf first, hipr where it calls for help, as auto on the CPU."""
    monkeypatch.setattr(sync_kernels, "vertices_at_once", lambda graph: 10**6)
    monkeypatch.setattr(gpu_sync, "Engine", lambda *args, **kwargs: pytest.fail("engine ran"))
    monkeypatch.setattr(gpu_sync, "Race", lambda *args, **kwargs: pytest.fail("threads raced"))
    graph = build_residual(generators.make("washington-rlg", rows=8, levels=16, cap=100, seed=2))
    spec = get_solver("gpu-sync")
    options = replace(spec.resolve(SolveOptions(want_flow=True, device="cpu")), device="gpu")
    result = spec.solve(graph, options)
    assert check_answer(graph, result).ok and result.is_flow and result.winner == "hpf"
    assert result.solver == "gpu-sync" and result.why.startswith(
        "the GPU would not pay: its rounds discharge 1,000,000 vertices at once, and the graph "
        "has 128: hpf ran on the CPU")
    assert list(result.times)[:2] == ["setup", "stage1"]


def test_on_chains_contracted_too_narrow_for_the_gpu_hipr_runs_alone(monkeypatch):
    """Goldberg's bad case contracted leaves a graph too narrow for the GPU: hipr alone on
    the CPU, as auto runs it on chains contracted (hpf's trees would grow deep first)."""
    monkeypatch.setattr(sync_kernels, "vertices_at_once", lambda graph: 10**6)
    monkeypatch.setattr(gpu_sync, "Engine", lambda *args, **kwargs: pytest.fail("engine ran"))
    graph = build_residual(generators.make("washington", function=10, dim1=300, dim2=0))
    spec = get_solver("gpu-sync")
    options = replace(spec.resolve(SolveOptions(want_flow=True, device="cpu")), device="gpu")
    result = spec.solve(graph, options)
    assert check_answer(graph, result).ok and result.flow_value == 300
    assert (result.solver, result.winner, result.counters["links"]) == ("gpu-sync", "hipr", 899)
    assert result.why.startswith("on the network with its chains contracted, since ")
    assert result.why.endswith(": the GPU would not pay: its rounds discharge 1,000,000 "
                               "vertices at once, and the graph has 2: hipr ran on the CPU")


def test_on_a_graph_too_narrow_for_the_gpu_the_rivals_named_race_alone(monkeypatch):
    monkeypatch.setattr(sync_kernels, "vertices_at_once", lambda graph: 10**6)
    monkeypatch.setattr(gpu_sync, "Engine", lambda *args, **kwargs: pytest.fail("engine ran"))
    graph = build_residual(generators.make("washington-rlg", rows=8, levels=16, cap=100, seed=2))
    spec = get_solver("gpu-sync")
    options = replace(spec.resolve(SolveOptions(want_flow=True, device="cpu",
                                                params={"rivals": "hpf+hipr"})), device="gpu")
    result = spec.solve(graph, options)
    assert check_answer(graph, result).ok and result.winner in ("hipr", "hpf")
    assert result.solver == "gpu-sync" and result.why == (
        "the GPU would not pay: its rounds discharge 1,000,000 vertices at once, and the graph "
        f"has 128: {result.winner} answered first of hpf and hipr")


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("rivals", ["none", "hipr", "hipr+hpf"])
def test_the_engine_alone_or_raced_answers_the_maximum_flow(monkeypatch, kind, rivals):
    if kind == "gpu" and kernels.gpu_unavailable():
        pytest.skip(kernels.gpu_unavailable())
    monkeypatch.setattr(sync_kernels, "vertices_at_once", lambda graph: 1)  # the engine races
    graph = build_residual(generators.make("washington-rlg", rows=8, levels=16, cap=100, seed=2))
    spec = get_solver("gpu-sync")
    options = spec.resolve(SolveOptions(want_flow=True, device=kind, params={"rivals": rivals}))
    result = spec.solve(graph, options)
    expected = _hipr_answer(graph)
    assert result.flow_value == expected.flow_value and result.is_flow
    assert check_answer(graph, result).ok
    if rivals == "none":
        assert result.winner == ""
        assert result.why == "" or result.why.startswith("hipr finished stage 1 on the CPU")
        assert result.counters["rounds"] + result.counters.get("cpu_phases", 0) > 0
        assert result.trace
    else:
        assert result.winner in ("gpu-sync",) + tuple(rivals.split("+"))
        engine = f"gpu-sync's engine (on the {kind})"
        assert result.why.startswith(
            f"{engine if result.winner == 'gpu-sync' else result.winner} answered before ")


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("family,params", [
    ("genrmf", {"a": 24, "b": 5, "seed": 3}),  # 576 vertices fed by the source: wide rounds
    ("washington", {"function": 8, "dim1": 400, "dim2": 8, "range": 8, "seed": 5}),  # a line
])
def test_the_engine_alone_answers_where_its_rounds_go_from_wide_to_narrow(kind, family,
                                                                         params):
    """The engine alone, without a CPU phase, ends in a maximum preflow where its rounds go
    from hundreds of vertices to a few (a genrmf fed at one face; a line's last rounds)."""
    graph = build_residual(generators.make(family, **params))
    result = _gpu_sync_on(kind, graph, hand_over="never")
    expected = _hipr_answer(graph)
    assert result.flow_value == expected.flow_value and check_answer(graph, result).ok
    assert result.counters["rounds"] > 0 and "cpu_phases" not in result.counters


@pytest.mark.parametrize("want_flow", [False, True])
@pytest.mark.parametrize("cap,narrow_type", [(100, np.uint16), (10**6, np.int32)])
def test_the_host_keeps_narrow_residuals_unless_stage_two_takes_them(want_flow, cap,
                                                                     narrow_type):
    graph = build_residual(generators.make("washington-rlg", rows=8, levels=16, cap=cap, seed=2))
    spec = get_solver("gpu-sync")
    options = spec.resolve(SolveOptions(want_flow=want_flow, device="cpu",
                                        params={"rivals": "none"}))
    result = spec.solve(graph, options)
    assert result.res.dtype == (np.int64 if want_flow else narrow_type)
    assert check_answer(graph, result).ok
    assert want_flow or "cap" not in vars(graph)  # only stage 2 reads a capacity per arc


@pytest.mark.parametrize("narrow_type", [np.int32, np.uint16])
@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 64, 1001])
def test_narrow_residuals_are_widened_in_place(size, narrow_type):
    """What the engine downloads into the first bytes of an int64 array, as int64s."""
    from maxflow_cli.solvers.gpu_sync import widened

    limits = np.iinfo(narrow_type)
    values = np.random.default_rng(size).integers(limits.min, limits.max, size,
                                                  endpoint=True).astype(narrow_type)
    wide = np.empty(size, np.int64)
    wide.view(narrow_type)[:size] = values
    widened(wide, narrow_type)
    assert wide.tolist() == values.tolist()


def test_the_cpu_goes_on_where_its_estimate_is_shorter():
    graph = build_residual(generators.make("genrmf", a=4, b=6, seed=5))
    engines = {}
    for hand_over in ("auto", "never"):
        options = get_solver("gpu-sync").resolve(SolveOptions(device="cpu", params={
            "rivals": "none", "hand_over": hand_over}))
        engines[hand_over] = gpu_sync.Engine(graph, options, polled=False)
        engines[hand_over].device.close()
    engine = engines["auto"]
    engine.cpu.unit_seconds = 1.0
    assert engine._cpu_pays(lambda cpu: 99 * cpu.unit_seconds, 100.0)
    assert not engine._cpu_pays(lambda cpu: 100 * cpu.unit_seconds, 100.0)
    mean_degree = graph.head.shape[0] / graph.n
    assert engine.cpu.vertex_seconds == 1 + 12 + mean_degree  # a push; a relabel: BETA, a scan
    assert not engines["never"]._cpu_pays(lambda cpu: 0.0, 100.0)
    assert engines["auto"].rounds.steps == 1 and engines["never"].rounds.steps == UNLIMITED
    assert 0 < gpu_sync.cpu_unit_seconds() < 1e-5  # measured, once a process


def test_a_hand_over_download_is_priced_at_the_uploads_rate():
    graph = build_residual(generators.make("genrmf", a=4, b=6, seed=5))
    res = np.zeros(graph.head.shape[0], np.int32)
    uploaded = graph.first.nbytes + 3 * 4 * res.size + 8 * graph.n  # first, head, rev, res
    seconds = gpu_sync.hand_over_download_seconds(graph, res, {"transfer": 2.0})
    assert seconds == pytest.approx(2.0 * (4 * res.size + 12 * graph.n) / uploaded)


def _gpu_sync_on(kind: str, graph, want_flow=False, **params):
    if kind == "gpu" and kernels.gpu_unavailable():
        pytest.skip(kernels.gpu_unavailable())
    spec = get_solver("gpu-sync")
    return spec.solve(graph, spec.resolve(SolveOptions(want_flow, device=kind, params={
        "rivals": "none"} | params)))


def _hipr_answer(graph):
    """hipr's answer, the reference value (and pushes) the engine is checked against."""
    hipr = get_solver("hipr")
    return hipr.solve(graph, hipr.resolve(SolveOptions()))


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("n", [2000, 6000])
def test_the_engine_does_not_collapse_on_goldbergs_bad_case(kind, n):
    """Issue 22: the engine pushed O(n^2) times where hi_pr pushes O(n); handed to hipr once
    its active set is small, it pushes at most 20 times as often as hipr."""
    graph = build_residual(generators.make("washington", function=10, dim1=n, dim2=0))
    result = _gpu_sync_on(kind, graph)
    expected = _hipr_answer(graph)
    assert result.flow_value == expected.flow_value and check_answer(graph, result).ok
    pushes = result.counters["pushes"] + result.counters["cpu_pushes"]
    assert pushes <= 20 * expected.counters["pushes"]
    assert result.trace[-1]["outcome"] == "done"
    assert result.why.startswith("hipr finished stage 1 on the CPU after global relabel ")


def _handing_over(monkeypatch, allowances):
    """gpu-sync with a CPU that always pays, whose phases get the `allowances` in turn
    (then their own); the allowances it was given."""
    monkeypatch.setattr(gpu_sync.Engine, "_cpu_pays",
                        lambda engine, *seconds: engine.cpu is not None)
    given, run = [], gpu_sync.CpuFinish.run

    def run_with_allowance(cpu, res, excess, active, update_first, stop_at_update, allowance,
                           stop):
        allowance = allowances.pop(0) if allowances else allowance
        given.append(allowance)
        return run(cpu, res, excess, active, update_first, stop_at_update, allowance, stop)

    monkeypatch.setattr(gpu_sync.CpuFinish, "run", run_with_allowance)
    return given


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("want_flow", [False, True])
@pytest.mark.parametrize("res_type", C_TYPES)
@pytest.mark.parametrize("family,params", [
    ("genrmf", {"a": 5, "b": 7, "c2": 100, "seed": 3}),
    ("washington-rlg", {"rows": 8, "levels": 16, "cap": 100, "seed": 2}),
    ("washington", {"function": 4, "dim1": 200, "dim2": 3, "seed": 4}),
])
def test_a_preflow_handed_back_and_forth_gives_the_maximum_flow(monkeypatch, kind, want_flow,
                                                                res_type, family, params):
    """CPU phases out of time at once (hipr stops before its first discharge) or after
    hi_pr's work budget (frequency 4: soon) send the preflow back to the device, whose next
    global relabel (or hipr's, after the device's first window of BFS levels) and rounds go on
    from it; the answer is still the maximum flow, with residuals of each width."""
    given = _handing_over(monkeypatch, [0.0, 0.0])
    graph = build_residual(generators.make(family, **params))
    assert residual_type(graph) == np.uint16  # every width holds these residuals
    monkeypatch.setattr(gpu_sync, "residual_type", lambda graph: res_type)
    result = _gpu_sync_on(kind, graph, want_flow, global_update_frequency=4.0)
    expected = _hipr_answer(graph)
    assert result.flow_value == expected.flow_value and check_answer(graph, result).ok
    assert result.is_flow == want_flow
    outcomes = [entry["outcome"] for entry in result.trace if "cpu_phase" in entry]
    assert outcomes[:2] == ["time up", "time up"] and given[:2] == [0.0, 0.0]
    assert result.counters["cpu_phases"] == len(outcomes) >= 2
    assert outcomes[-1] == "done" or result.trace[-1]["active"] == 0  # the CPU or the device
    later = [entry for entry in result.trace if "cpu_phase" in entry][2:]
    assert all(phase["allowance"] > 0 for phase in later)  # stage 1's time so far
    # after a phase that ran out of time the next one's is longer (stage 1 grew by it); after
    # one that stopped at its global update, a shorter download may leave it a little shorter
    assert all(after["allowance"] > before["allowance"] for before, after in
               zip(later, later[1:]) if before["outcome"] == "time up")


def test_the_engine_alone_never_hands_over():
    graph = build_residual(generators.make("washington", function=10, dim1=500, dim2=0))
    result = _gpu_sync_on("cpu", graph, hand_over="never")
    assert result.flow_value == 500 and check_answer(graph, result).ok
    assert "cpu_phases" not in result.counters and result.why == ""
    assert all("global_relabel" in entry for entry in result.trace)


def test_a_rival_s_answer_ends_a_cpu_phase(monkeypatch):
    """A CPU phase that would go on (here: until told to stop) ends when a rival answers, and
    the rival's answer is gpu-sync's."""
    monkeypatch.setattr(gpu_sync.Engine, "_cpu_pays",
                        lambda engine, *seconds: engine.cpu is not None)
    phases = []

    def until_stopped(cpu, res, excess, active, update_first, stop_at_update, allowance,
                      stop):
        ends = time.perf_counter() + 30
        while not stop[0] and time.perf_counter() < ends:
            time.sleep(0.001)
        phases.append(bool(stop[0]))
        cpu.trace.append({"cpu_phase": len(cpu.trace) + 1, "outcome": "time up"})
        return False

    monkeypatch.setattr(gpu_sync.CpuFinish, "run", until_stopped)

    def later(graph, options):  # hipr, answering once the engine is well into its phase
        time.sleep(0.3)
        return _hipr_answer(graph)

    monkeypatch.setattr(gpu_sync, "entrants", lambda text, want_flow: [
        (SimpleNamespace(name="hipr", solve=later, gives_up=False), SolveOptions())])
    graph = build_residual(generators.make("genrmf", a=5, b=7, seed=3))
    started = time.perf_counter()
    result = _gpu_sync_on("cpu", graph, rivals="hipr")
    assert time.perf_counter() - started < 20 and phases == [True]
    assert result.winner == "hipr" and check_answer(graph, result).ok


@pytest.mark.parametrize("kind", DEVICES)
def test_with_its_default_rivals_it_runs_on_the_chains_contracted(kind):
    """Goldberg's bad case contracts to 4 vertices, too few for the GPU: the rivals answer,
    and the answer is carried back to the network; --rivals none runs the engine on it as it
    is (the test above)."""
    graph = build_residual(generators.make("washington", function=10, dim1=300, dim2=0))
    result = _gpu_sync_on(kind, graph, want_flow=True, rivals=RIVALS.default)
    assert (result.flow_value, result.counters["links"], result.is_flow) == (300, 899, True)
    assert result.res.shape == graph.head.shape and check_answer(graph, result).ok
    assert result.why.startswith("on the network with its chains contracted, since 100% of "
                                 "the vertices are links of chains")
