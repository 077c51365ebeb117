"""Every registered solver, on every device it can use here, against known values, an
independent oracle and the certificate: fixed fixtures and hypothesis-generated graphs."""

import numpy as np
import pytest
from fixtures import known_instances
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from oracle import max_flow_value

from maxflow_cli.check import check_answer
from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.errors import ParameterError, SolverUnavailable
from maxflow_cli.network import Network
from maxflow_cli.registry import SolveOptions, solvers
from maxflow_cli.residual import ORDERS, build_residual


def _solver_devices():
    cases = []
    for name, spec in solvers().items():
        for device in spec.devices:
            marks = [pytest.mark.gpu] if device == "gpu" else []
            cases.append(pytest.param(name, device, marks=marks, id=f"{name}-{device}"))
    return cases


SOLVER_DEVICES = _solver_devices()
WIDE_SOLVER_DEVICES = [case for case in SOLVER_DEVICES if solvers()[case.values[0]].wide_arcs]
INSTANCES = known_instances()


def solve(name, device, graph, want_flow):
    """`name`'s answer; gpu-sync's engine alone (its race is tested in test_gpu_sync)."""
    spec = solvers()[name]
    params = {"rivals": "none"} if name == "gpu-sync" else {}
    try:
        options = spec.resolve(SolveOptions(want_flow=want_flow, device=device, params=params))
    except SolverUnavailable as reason:
        pytest.skip(str(reason))
    return spec.solve(graph, options)


def assert_certified(graph, result, expected):
    assert result.flow_value == expected
    certificate = check_answer(graph, result)
    assert certificate.ok, certificate.problems
    assert certificate.cut_capacity == expected


@pytest.mark.parametrize("name,device", SOLVER_DEVICES)
@pytest.mark.parametrize("path,expected", INSTANCES, ids=[p.name for p, _ in INSTANCES])
def test_known_instances(name, device, path, expected):
    """In both arc orders, whichever the solver declares."""
    network, _ = read_network(str(path))
    for order in ORDERS:
        graph = build_residual(network, order)
        for want_flow in (False, True):
            result = solve(name, device, graph, want_flow)
            assert result.is_flow == want_flow
            assert_certified(graph, result, expected)


@pytest.mark.parametrize("name,device", WIDE_SOLVER_DEVICES)
@pytest.mark.parametrize("path,expected", INSTANCES, ids=[p.name for p, _ in INSTANCES])
def test_known_instances_with_64_bit_arc_indices(name, device, path, expected):
    """As past 2^30 - 32 arcs (limits.MAX_NARROW_ARCS), where first, rev and arc_of_input
    are int64, in both arc orders."""
    network, _ = read_network(str(path))
    for order in ORDERS:
        graph = build_residual(network, order, np.int64)
        for want_flow in (False, True):
            assert_certified(graph, solve(name, device, graph, want_flow), expected)


def test_the_other_solvers_refuse_a_graph_with_64_bit_arc_indices():
    """Their compiled code takes arc numbers as 32-bit integers: an answer would be wrong."""
    graph = build_residual(Network.from_arcs(3, 0, 2, [(0, 1, 2), (1, 2, 1)]),
                           arc_type=np.int64)
    able = ", ".join(name for name, spec in solvers().items() if spec.wide_arcs)
    assert {"auto", "gpu-sync", "hipr"} <= set(able.split(", "))
    for name, spec in solvers().items():
        if not spec.wide_arcs:
            with pytest.raises(ParameterError, match=f"solver '{name}' indexes arcs with "
                               f"32-bit integers: at most 1,073,741,792 arcs, not 2 "
                               f"\\({able} take more\\)"):
                spec.solve(graph, SolveOptions())


CAPACITY = st.one_of(st.just(0), st.integers(1, 12), st.integers(2**62 - 5, 2**62))


@st.composite
def networks(draw):
    """Small networks with parallel arcs, self-loops, zero and huge capacities, arcs into the
    source and out of the sink, and often no path to the sink at all."""
    n = draw(st.integers(2, 9))
    vertex = st.integers(0, n - 1)
    arcs = draw(st.lists(st.tuples(vertex, vertex, CAPACITY), max_size=3 * n))
    arcs += [arcs[i] for i in draw(st.lists(st.integers(0, max(len(arcs) - 1, 0)), max_size=3))
             if arcs]  # parallel copies
    source, sink = draw(st.lists(vertex, min_size=2, max_size=2, unique=True))
    return Network.from_arcs(n, source, sink, arcs)


@pytest.mark.parametrize("name,device", SOLVER_DEVICES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network=networks(), want_flow=st.booleans())
def test_random_networks_against_the_oracle(name, device, network, want_flow):
    if name == "self-stabilizing":
        network = forward_arcs(network)
    try:
        graph = solvers()[name].build(network)  # in the solver's own arc order
    except ParameterError:  # source capacities summing past 2^63-1 are refused
        assume(False)
    expected = max_flow_value(network.n, network.source, network.sink,
                              zip(network.tails.tolist(), network.heads.tolist(),
                                  network.caps.tolist()))
    assert_certified(graph, solve(name, device, graph, want_flow), expected)


@pytest.mark.parametrize("name,device", WIDE_SOLVER_DEVICES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network=networks(), want_flow=st.booleans())
def test_random_networks_with_64_bit_arc_indices(name, device, network, want_flow):
    try:
        graph = build_residual(network, solvers()[name].arc_order, np.int64)
    except ParameterError:  # source capacities summing past 2^63-1 are refused
        assume(False)
    expected = max_flow_value(network.n, network.source, network.sink,
                              zip(network.tails.tolist(), network.heads.tolist(),
                                  network.caps.tolist()))
    assert_certified(graph, solve(name, device, graph, want_flow), expected)


SELF_STABILIZING_CAPACITY = 2**16
"""Its moves can cross an arc a number of times that grows with the capacities: a 4-vertex
acyclic network of 2^62 capacities still had guards after 2^24 rounds."""


def forward_arcs(network: Network) -> Network:
    """The network's arcs from a lower to a higher vertex id, capacities at most
    SELF_STABILIZING_CAPACITY: acyclic, where Ghosh et al. prove self-stabilization, and in a
    number of rounds the test can wait for (past --max-rounds the solver stops, saying so:
    tests/test_self_stabilizing.py)."""
    arcs = [(u, v, min(c, SELF_STABILIZING_CAPACITY))
            for u, v, c in zip(network.tails.tolist(), network.heads.tolist(),
                               network.caps.tolist()) if u < v]
    return Network.from_arcs(network.n, network.source, network.sink, arcs)
