"""maxflow_cli.maximum_flow against networkx's preflow_push on hypothesis networks (parallel
arcs, self-loops, huge capacities), its cut and flows checked, and each bad input's error."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_solvers import networks

from maxflow_cli import api, maximum_flow
from maxflow_cli.errors import SolverUnavailable
from maxflow_cli.kernels.devices import gpu_unavailable


def networkx_value(network) -> int:
    """preflow_push's value, parallel arcs merged into one of their summed capacity."""
    nx = pytest.importorskip("networkx")
    graph = nx.DiGraph()
    graph.add_nodes_from(range(network.n))
    for u, v, c in zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist()):
        if u != v:
            previous = graph.get_edge_data(u, v, {"capacity": 0})["capacity"]
            graph.add_edge(u, v, capacity=previous + c)
    return nx.maximum_flow_value(graph, network.source, network.sink)


def assert_flow_and_cut(network, result) -> None:
    """0 <= flow <= capacity, conservation, and a cut (source in, sink out) of the value."""
    tails, heads, caps, flows = network.tails, network.heads, network.caps, result.flows
    assert np.all((0 <= flows) & (flows <= caps))
    net = np.zeros(network.n, dtype=object)
    np.add.at(net, heads, flows.astype(object))
    np.subtract.at(net, tails, flows.astype(object))
    others = np.ones(network.n, bool)
    others[[network.source, network.sink]] = False
    assert not np.any(net[others])
    assert net[network.sink] == result.flow_value
    side = result.source_side
    assert side[network.source] and not side[network.sink]
    assert sum(caps[side[tails] & ~side[heads]].tolist()) == result.flow_value


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network=networks(), solver=st.sampled_from([None, "hipr", "hpf"]))
def test_agrees_with_networkx(network, solver):
    try:
        result = maximum_flow(network.tails, network.heads, network.caps, network.source,
                              network.sink, n=network.n, solver=solver, flow=True)
    except ValueError as error:  # the source's capacities sum past 2^63-1
        assume("sum past" not in str(error))
        raise
    assert result.flow_value == networkx_value(network)
    assert result.solver == solver if solver else result.solver in ("hipr", "hpf", "eibfs")
    assert result.device == "cpu" and ("no GPU is used" in result.why) == (solver is None)
    assert result.source_side.shape == (network.n,) and result.flows.dtype == np.int64
    assert_flow_and_cut(network, result)


def test_n_defaults_to_the_largest_id_and_flows_only_when_asked():
    result = maximum_flow([0, 0, 1], [1, 1, 3], [2, 5, 4], 0, 3)
    assert result.flow_value == 4 and result.flows is None
    assert result.source_side.tolist() == [True, True, True, False]
    assert "stage1" in result.times and "compile" not in result.times
    assert maximum_flow([0], [1], [7], 0, 1, n=6).source_side.shape == (6,)


def test_source_and_sink_in_separate_components():
    result = maximum_flow([0, 2], [1, 3], [5, 5], 0, 3, flow=True)
    assert result.flow_value == 0 and result.flows.tolist() == [0, 0]
    assert result.source_side[0] and not result.source_side[3]


def test_sparse_matrix():
    sparse = pytest.importorskip("scipy.sparse")
    matrix = sparse.csr_matrix(np.array([[0, 3, 2, 0], [0, 0, 5, 2], [0, 0, 0, 3], [0, 0, 0, 0]]))
    result = maximum_flow(matrix, 0, 3, flow=True)
    assert result.flow_value == 5
    assert result.source_side.shape == (4,) and result.flows.sum() == 3 + 2 + 2 + 3 + 1
    with pytest.raises(ValueError, match="square"):
        maximum_flow(sparse.csr_matrix(np.ones((2, 3), int)), 0, 1)


class _DuckMatrix:
    """A stand-in for a scipy sparse matrix where scipy is missing: shape and tocoo()."""

    shape = (3, 3)

    def tocoo(self):
        return self

    row, col, data = np.array([0, 1]), np.array([1, 2]), np.array([4, 3])


def test_duck_typed_matrix():
    assert maximum_flow(_DuckMatrix(), 0, 2).flow_value == 3
    with pytest.raises(ValueError, match="n is the matrix's size"):
        maximum_flow(_DuckMatrix(), 0, 2, n=3)


@pytest.mark.parametrize("args,kwargs,message", [
    (([0], [1], [1.5], 0, 1), {}, r"capacities\[0\] = 1.5 is not an integer.*scale"),
    (([0], [1], [np.inf], 0, 1), {}, r"capacities\[0\] = inf is not finite"),
    (([0, 0], [1, 1], [1, -2], 0, 1), {}, r"capacities\[1\] = -2 is negative"),
    (([0], [1], [2**62 + 1], 0, 1), {}, r"capacities\[0\] = \d+ is above the limit 2\^62"),
    (([0], [1], ["a"], 0, 1), {}, "capacities must be integers"),
    (([0, -1], [1, 1], [1, 1], 0, 1), {}, r"tails\[1\] = -1 is negative"),
    (([0], [5], [1], 0, 1), {"n": 3}, r"heads\[0\] = 5 is not one of the 3 vertices"),
    (([0], [1], [1], 0, 4), {"n": 3}, "the sink 4 is not one of the 3 vertices"),
    (([0.0], [1], [1], 0, 1), {}, "tails must hold integer vertex ids"),
    (([0], [1], [1], 1, 1), {}, "the source and the sink are the same vertex 1"),
    (([0], [1], [1], -1, 1), {}, "source = -1 is negative"),
    (([0], [1], [1], 0.0, 1), {}, "source must be an integer"),
    (([0, 1], [1], [1, 1], 0, 1), {}, "differ in length: 2, 1, 2"),
    (([0], [1], 0, 1), {}, "not with 4 arguments"),
    (([0], [1], [1], 0, 1), {"solver": "nope"}, "unknown solver 'nope'"),
    (([0], [1], [1], 0, 1), {"solver": "hipr", "device": "gpu"}, "runs on cpu, not on 'gpu'"),
    (([0, 0], [1, 1], [2**62, 2**62], 0, 1), {}, "sum past 2\\^63-1"),
])
def test_bad_input(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        maximum_flow(*args, **kwargs)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_contiguous_integer_input_is_not_copied(dtype):
    ids = np.array([0, 1, 2], dtype=dtype)
    assert api._ids(ids, "tails") is ids
    caps = np.array([1, 2, 3], dtype=np.int64)
    assert api._capacities(caps) is caps


def test_a_gpu_solver_without_a_gpu_says_how_to_run_its_cpu_twin():
    if gpu_unavailable() is None:
        pytest.skip("a GPU can run here")
    with pytest.raises(SolverUnavailable, match="device='cpu' runs its CPU twin"):
        maximum_flow([0], [1], [1], 0, 1, solver="gpu-sync")


def test_the_package_loads_the_api_on_first_use_only(tmp_path):
    """`import maxflow_cli` stays light (a guardian process imports its helper through it);
    `maxflow_cli.maximum_flow` then loads the solvers."""
    probe = ("import sys, maxflow_cli; light = 'numba' not in sys.modules; "
             "maxflow_cli.maximum_flow; print(light, 'numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.stdout.split() == ["True", "True"], done.stderr


@pytest.mark.gpu
@pytest.mark.parametrize("solver,params", [("gpu-sync", {"rivals": "none"}), ("cuda", {}),
                                           ("hybrid", {}), (None, {})])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network=networks())
def test_gpu_solvers_agree_with_networkx(solver, params, network):
    if gpu_unavailable():
        pytest.skip(gpu_unavailable())
    try:
        result = maximum_flow(network.tails, network.heads, network.caps, network.source,
                              network.sink, n=network.n, solver=solver, device="gpu",
                              flow=True, params=params)
    except ValueError as error:
        assume("sum past" not in str(error))
        raise
    assert result.device == "gpu"
    assert result.solver == solver if solver else result.solver in ("gpu-sync", "hipr", "hpf")
    assert result.flow_value == networkx_value(network)
    assert_flow_and_cut(network, result)
