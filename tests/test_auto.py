"""auto's rules read off the network (maxflow_cli.solvers.auto) and its choice of the GPU;
its runs from the command line are in test_cli_solve."""

from dataclasses import replace

import numpy as np
import pytest
from oracle import max_flow_value

from maxflow_cli import generators, memory, registry
from maxflow_cli.chains import chain_space_bytes
from maxflow_cli.check import check_answer
from maxflow_cli.kernels import gpu_sync as sync_kernels
from maxflow_cli.kernels.devices import gpu_unavailable
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.solvers import auto


@pytest.mark.parametrize("want_flow", (False, True))
def test_on_ak_networks_hipr_gives_up_and_hpf_goes_on(want_flow):
    """Cherkassky & Goldberg's AK networks take Theta(n^2) pushes of push-relabel as of
    pseudoflow: hpf calls for help past its bound, hipr tries within twice hpf's pushes so
    far and gives up, and hpf goes on from where it called (not from the start: its pushes
    are those it makes alone)."""
    network = generators.make("ak", n=300)
    graph = build_residual(network)
    spec, hpf = get_solver("auto"), get_solver("hpf")
    result = spec.solve(graph, spec.resolve(SolveOptions(want_flow=want_flow, device="cpu")))
    alone = hpf.solve(build_residual(network), hpf.resolve(SolveOptions()))
    assert (result.winner, result.flow_value) == ("hpf", 2 * 300 + 3)
    assert result.counters == alone.counters and check_answer(graph, result).ok
    assert "hipr tried and gave up" in result.why and "hpf went on" in result.why


def test_auto_carries_the_contracted_answer_back_and_times_the_contraction_apart():
    network = generators.make("washington", function=10, dim1=300, dim2=0)
    graph = build_residual(network)
    spec = get_solver("auto")
    result = spec.solve(graph, spec.resolve(SolveOptions(want_flow=True, device="cpu")))
    assert (result.flow_value, result.counters["links"], result.is_flow) == (300, 899, True)
    assert result.res.shape == graph.head.shape and check_answer(graph, result).ok
    assert list(result.times) == ["setup", "stage1", "stage2"]


def test_what_auto_leaves_to_its_first_vision_shape_compiles_once_before(monkeypatch):
    """prepare_rest compiles the relay's eibfs, which prepare leaves to the first shape that
    runs it first (bench compiles it before it times anything), once a process: a vision
    grid's solve then does not compile the relay again."""
    monkeypatch.setattr(registry, "_COMPILED_ONCE", set())
    compiled = []
    monkeypatch.setattr(auto, "prepare_rivals", lambda rivals, relay: compiled.append(
        [spec.name for spec, _ in rivals]) or 1.5)
    spec = get_solver("auto")
    options = spec.resolve(SolveOptions(device="cpu"))
    assert (spec.prepare_rest(options), spec.prepare_rest(options)) == (1.5, 0.0)
    assert compiled == [["eibfs"]]
    grid = build_residual(generators.make("grid", shape=(40, 40), connectivity=4, seed=1))
    result = spec.solve(grid, options)
    assert result.winner == "eibfs" and compiled == [["eibfs"]]
    none = spec.resolve(SolveOptions(device="cpu", params={"rivals": "none"}))
    assert spec.prepare_rest(none) == 0.0 and compiled == [["eibfs"]]


def test_auto_on_a_gpu_runs_the_relay_on_the_cpu_where_the_graph_is_too_narrow(monkeypatch):
    monkeypatch.setattr(sync_kernels, "vertices_at_once", lambda graph: 10**6)
    monkeypatch.setattr(auto, "_gpu_sync_options", lambda options: pytest.fail("gpu-sync ran"))
    network = generators.make("genrmf", a=4, b=6, seed=1)
    spec = get_solver("auto")
    options = replace(spec.resolve(SolveOptions(device="cpu")), device="gpu")
    result = auto.solve_auto(build_residual(network), options)
    arcs = zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist())
    assert result.flow_value == max_flow_value(network.n, network.source, network.sink, arcs)
    assert result.winner == "hpf"
    assert result.why.startswith("the GPU would not pay: its rounds discharge 1,000,000 "
                                 "vertices at once, and the graph has 94: hpf ran on the CPU")


def test_auto_solves_the_chains_as_they_are_where_the_memory_cannot_hold_the_contraction(
        monkeypatch):
    graph = build_residual(generators.make("washington", function=10, dim1=300, dim2=0))
    monkeypatch.setattr(memory, "available", lambda: chain_space_bytes(graph) - 1)
    spec = get_solver("auto")
    result = spec.solve(graph, spec.resolve(SolveOptions(device="cpu")))
    assert "contracted" not in result.why and "links" not in result.counters
    assert result.flow_value == 300 and check_answer(graph, result).ok
    monkeypatch.setattr(memory, "available", lambda: chain_space_bytes(graph))
    assert "contracted" in spec.solve(graph, spec.resolve(SolveOptions(device="cpu"))).why


def test_auto_on_a_gpu_contracts_the_chains_before_it_weighs_the_gpu(monkeypatch):
    """Goldberg's bad case fills rounds of 1,000 vertices; contracted, it does not."""
    monkeypatch.setattr(sync_kernels, "vertices_at_once", lambda graph: 1000)
    monkeypatch.setattr(auto, "_gpu_sync_options", lambda options: pytest.fail("gpu-sync ran"))
    graph = build_residual(generators.make("washington", function=10, dim1=400, dim2=0))
    spec = get_solver("auto")
    options = replace(spec.resolve(SolveOptions(device="cpu")), device="gpu")
    result = auto.solve_auto(graph, options)
    assert (result.flow_value, result.winner) == (400, "hipr") and check_answer(graph,
                                                                                 result).ok
    assert result.why.startswith("the GPU would not pay: its rounds discharge 1,000 vertices "
                                 "at once, and the graph has 2: hipr ran on the CPU, since "
                                 "100% of the vertices are links of chains")


@pytest.mark.gpu
@pytest.mark.parametrize("want_flow", [False, True])
def test_auto_on_a_gpu_runs_gpu_sync_on_the_chains_contracted(monkeypatch, want_flow):
    if gpu_unavailable():
        pytest.skip(gpu_unavailable())
    monkeypatch.setattr(sync_kernels, "vertices_at_once", lambda graph: 1)
    graph = build_residual(generators.make("washington", function=11, dim1=50, dim2=10,
                                           range=5))
    spec = get_solver("auto")
    result = spec.solve(graph, spec.resolve(SolveOptions(want_flow, device="gpu")))
    assert result.why.startswith("a GPU is usable, so gpu-sync ran on the network with its "
                                 "chains contracted, since 87% of the vertices")
    assert result.res.dtype == np.int64 and result.res.shape == graph.head.shape
    assert result.is_flow == want_flow and check_answer(graph, result).ok
    assert result.flow_value == max_flow_value(
        graph.n, graph.source, graph.sink, zip(*(a.tolist() for a in (
            graph.network.tails, graph.network.heads, graph.network.caps))))


@pytest.mark.gpu
def test_auto_on_a_gpu_runs_gpu_sync_where_the_graph_fills_its_rounds(monkeypatch):
    if gpu_unavailable():
        pytest.skip(gpu_unavailable())
    monkeypatch.setattr(sync_kernels, "vertices_at_once", lambda graph: 1)
    network = generators.make("genrmf", a=4, b=6, seed=1)
    spec = get_solver("auto")
    result = spec.solve(build_residual(network), spec.resolve(SolveOptions(device="gpu")))
    arcs = zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist())
    assert result.flow_value == max_flow_value(network.n, network.source, network.sink, arcs)
    assert result.why.startswith("a GPU is usable, so gpu-sync ran")


def test_eibfs_is_ruled_out_without_scattering_the_capacities_where_few_arcs_reach_terminals():
    """A genrmf's terminals join one frame each (2 of 6 frames' vertices, a third of them),
    Dinic's bad case's source one vertex (its sink every one), a grid's every vertex: only
    the grid's shares are counted, off graph.cap."""
    genrmf = build_residual(generators.make("genrmf", a=13, b=6, seed=1))
    assert auto._suits_eibfs(genrmf) == "" and "cap" not in genrmf.__dict__
    dinic = build_residual(generators.make("washington", function=9, dim1=2000, dim2=0,
                                           range=100, seed=1))
    assert auto._suits_eibfs(dinic) == "" and "cap" not in dinic.__dict__
    grid = build_residual(generators.make("grid", shape=(40, 40), connectivity=4, seed=1))
    assert auto._suits_eibfs(grid).startswith("the source's arcs reach ")
    assert "cap" in grid.__dict__
