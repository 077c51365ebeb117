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
from maxflow_cli.pushrelabel.highest_label import (
    COUNTER_NAMES,
    DONE,
    hipr_initialize,
    hipr_stage_one,
)
from maxflow_cli.pushrelabel.relabel import reverse_bfs
from maxflow_cli.registry import SolveOptions, solvers
from maxflow_cli.residual import build_residual
from maxflow_cli.result import SolveResult


def _solver_devices():
    cases = []
    for name, spec in solvers().items():
        for device in spec.devices:
            marks = [pytest.mark.gpu] if device == "gpu" else []
            cases.append(pytest.param(name, device, marks=marks, id=f"{name}-{device}"))
    return cases


SOLVER_DEVICES = _solver_devices()
INSTANCES = known_instances()


def solve(name, device, graph, want_flow):
    spec = solvers()[name]
    try:
        options = spec.resolve(SolveOptions(want_flow=want_flow, device=device))
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
    network, _ = read_network(str(path))
    graph = build_residual(network)
    for want_flow in (False, True):
        result = solve(name, device, graph, want_flow)
        assert result.is_flow == want_flow
        assert_certified(graph, result, expected)


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
    try:
        graph = build_residual(network)
    except ParameterError:  # source capacities summing past 2^63-1 are refused
        assume(False)
    expected = max_flow_value(network.n, network.source, network.sink,
                              zip(network.tails.tolist(), network.heads.tolist(),
                                  network.caps.tolist()))
    assert_certified(graph, solve(name, device, graph, want_flow), expected)


@pytest.mark.parametrize("path,expected", INSTANCES[:12], ids=[p.name for p, _ in INSTANCES[:12]])
def test_hipr_resumes_from_a_handed_over_state(path, expected):
    """The hybrids stop hipr at each global update, relabel, and resume it: the preflow stays
    valid across hand-overs and the answer is the same."""
    graph = build_residual(read_network(str(path))[0])
    res = graph.initial_residuals()
    excess = np.zeros(graph.n, np.int64)
    label = np.empty(graph.n, np.int32)
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    order = np.empty(graph.n, np.int32)
    arrays = (graph.first, graph.head, graph.rev)
    hipr_initialize(*arrays, res, excess, label, graph.source, graph.sink)
    for hand_overs in range(10_000):
        # a small global-update threshold forces many hand-overs
        if hipr_stage_one(*arrays, res, excess, label, graph.source, graph.sink, 50.0, 6, 12,
                          True, counters) == DONE:
            break
        reverse_bfs(*arrays, res, graph.sink, label, order)
        label[graph.source] = graph.n
        interim = check_answer(graph, SolveResult("hipr", int(excess[graph.sink]), res, False))
        assert not any("send out more" in p for p in interim.problems)
    assert hand_overs > 0 or graph.m < 30  # every instance but the tiniest hands over
    assert_certified(graph, SolveResult("hipr", int(excess[graph.sink]), res, False), expected)


@pytest.mark.parametrize("path,expected", INSTANCES[4:12], ids=[p.name for p, _ in INSTANCES[4:12]])
def test_hipr_with_alvino_parallel_gap_does_exactly_what_hi_pr_gap_does(path, expected):
    """Alvino's Algorithm 14 lifts the same vertices as hi_pr's gap, so every counter and the
    final state are identical with and without it."""
    graph = build_residual(read_network(str(path))[0])
    outcomes = []
    for parallel_gap in (False, True):
        res = graph.initial_residuals()
        excess = np.zeros(graph.n, np.int64)
        label = np.empty(graph.n, np.int32)
        counters = np.zeros(len(COUNTER_NAMES), np.int64)
        hipr_initialize(graph.first, graph.head, graph.rev, res, excess, label, graph.source,
                        graph.sink)
        hipr_stage_one(graph.first, graph.head, graph.rev, res, excess, label, graph.source,
                       graph.sink, 0.5, 6, 12, False, counters, parallel_gap)
        outcomes.append((res, label, counters))
    assert outcomes[0][2][3] > 0 or graph.m < 100  # gaps happened where the graph is not tiny
    for before, after in zip(*outcomes):
        assert np.array_equal(before, after)
    assert int(excess[graph.sink]) == expected
