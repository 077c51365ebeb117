"""auto's rules read off the network (maxflow_cli.solvers.auto) and its choice of the GPU;
its runs from the command line are in test_cli_solve."""

from dataclasses import replace

import numpy as np
import pytest
from oracle import max_flow_value

from maxflow_cli import generators
from maxflow_cli.kernels import gpu_sync as sync_kernels
from maxflow_cli.kernels.devices import gpu_unavailable
from maxflow_cli.network import Network
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.solvers import auto


def chained(arcs, n, arc_type=None):
    graph = build_residual(Network.from_arcs(n, 0, n - 1, arcs), arc_type=arc_type)
    return auto._chained_vertices(graph.first, graph.source, graph.sink, graph.head,
                                  graph.rev, graph.caps, graph.arc_of_input)


@pytest.mark.parametrize("arc_type", [None, np.int64])
def test_links_of_chains_have_one_arc_in_and_one_out_to_two_neighbours(arc_type):
    path = [(0, 1, 5), (1, 2, 5), (2, 3, 5)]
    assert chained(path, 4, arc_type) == 2
    assert chained(path + [(1, 3, 1)], 4, arc_type) == 1  # 1 has two arcs out
    assert chained(path + [(0, 2, 1)], 4, arc_type) == 1  # 2 has two arcs in
    assert chained(path + [(2, 1, 1)], 4, arc_type) == 0  # both: two in and two out
    assert chained([(0, 1, 5), (1, 2, 0), (2, 3, 5)], 4, arc_type) == 0  # no capacity
    to_and_from_one = [(0, 1, 5), (1, 2, 5), (2, 1, 5), (1, 3, 5)]  # 2's neighbour: 1 only
    assert chained(to_and_from_one, 4, arc_type) == 0


def test_a_vertex_of_many_arcs_is_no_link_where_its_counts_would_carry_over():
    """2^16 + 1 parallel arcs out of vertex 1 count one out and carry over into one in."""
    assert chained([(1, 2, 1)] * ((1 << 16) + 1), 3) == 0


def test_hipr_suits_goldbergs_bad_case_and_cheriyans_graph_only():
    """Their vertices are nearly all links of chains; a genrmf's, a grid's and the path of
    Dinic's bad case (each vertex also drains into the sink) are not."""
    def why(generator, **params):
        return auto._suits_hipr(build_residual(generators.make(generator, **params)))

    assert why("washington", function=10, dim1=300, dim2=0) == \
        "100% of the vertices are links of chains (one arc in, one out)"
    assert why("washington", function=11, dim1=50, dim2=10, range=5).startswith("87%")
    for generator, params in (("washington", {"function": 9, "dim1": 300, "dim2": 0}),
                              ("genrmf", {"a": 4, "b": 6, "seed": 1}),
                              ("grid", {"shape": (20, 20), "connectivity": 4, "seed": 1})):
        assert why(generator, **params) == "", generator


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
