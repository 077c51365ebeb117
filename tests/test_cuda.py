"""`cuda` (He & Hong 2010, Algorithm 1): the host loop on the kernels' Numba twins (CI) and on
the GPU (marked gpu), against hipr and the certificate on every generator family and on
random graphs; Program 4's global_relabel_cpu; device choice and parameter errors."""

import numpy as np
import pytest
from click.testing import CliRunner
from fixtures import DATA
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_solvers import networks

from maxflow_cli import generators
from maxflow_cli.check import check_answer
from maxflow_cli.cli import main
from maxflow_cli.errors import ParameterError, SolverUnavailable
from maxflow_cli.kernels import devices
from maxflow_cli.network import Network
from maxflow_cli.pushrelabel.relabel import global_relabel_cpu, saturate_source_arcs
from maxflow_cli.registry import SolveOptions, solvers
from maxflow_cli.residual import build_residual

DEVICES = [pytest.param("cpu", id="twins"), pytest.param("gpu", marks=pytest.mark.gpu, id="gpu")]
FAMILY_CASES = [
    pytest.param("acyclic-dense", dict(n=40, seed=3), id="acyclic-dense-40"),
    pytest.param("genrmf", dict(a=4, b=6, seed=1), id="genrmf-long-4x6"),
    pytest.param("genrmf", dict(a=7, b=2, seed=2), id="genrmf-wide-7x2"),
    pytest.param("washington-rlg", dict(rows=8, levels=16, seed=5), id="rlg-long-8x16"),
    pytest.param("washington-rlg", dict(rows=12, levels=12, seed=6), id="rlg-wide-12"),
]


def solve(name, device, network, want_flow=False, **params):
    """(graph, result) of solver `name` on `device`; skips where that device is missing."""
    spec = solvers()[name]
    try:
        options = spec.resolve(SolveOptions(want_flow, device, params))
    except SolverUnavailable as reason:
        pytest.skip(str(reason))
    graph = build_residual(network)
    return graph, spec.solve(graph, options)


def assert_like_hipr(graph, result):
    """The flow value hipr finds, and a certificate that holds."""
    hipr = solvers()["hipr"]
    expected = hipr.solve(graph, hipr.resolve(SolveOptions())).flow_value
    assert result.flow_value == expected
    certificate = check_answer(graph, result)
    assert certificate.ok, certificate.problems


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("family,params", FAMILY_CASES)
@pytest.mark.parametrize("kernel_cycles", [1, 32, 4096])
def test_every_family_like_hipr(device, family, params, kernel_cycles):
    network = generators.make(family, **params)
    for want_flow in (False, True):
        graph, result = solve("cuda", device, network, want_flow, kernel_cycles=kernel_cycles)
        assert result.is_flow == want_flow
        assert_like_hipr(graph, result)
        counters = result.counters
        assert counters["rounds"] == counters["kernel_launches"] == len(result.trace) >= 1
        assert counters["pushes"] > 0 and counters["relabels"] > 0
        assert set(result.times) >= {"stage1", "kernels", "transfer", "global_relabel"}


def test_few_cycles_need_many_rounds():
    network = generators.make("washington-rlg", rows=8, levels=16, seed=5)
    _, one = solve("cuda", "cpu", network, kernel_cycles=1)
    _, many = solve("cuda", "cpu", network, kernel_cycles=4096)
    assert one.counters["rounds"] > many.counters["rounds"]
    assert one.trace[-1]["active"] == 0
    assert all(entry["active"] > 0 for entry in one.trace[:-1])


@pytest.mark.parametrize("device", DEVICES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network=networks(), want_flow=st.booleans(), kernel_cycles=st.integers(1, 3))
def test_random_networks_like_hipr(device, network, want_flow, kernel_cycles):
    try:
        build_residual(network)
    except ParameterError:  # source capacities summing past 2^63-1 are refused
        assume(False)
    assert_like_hipr(*solve("cuda", device, network, want_flow, kernel_cycles=kernel_cycles))


def _stranded_state():
    """s=0 -> a=1 -> b=2 -> t=3 (capacities 5), s -> c=4 (7, c is a dead end), after Program 2
    with labels that make (a, b) a violating arc: label(a) = 3 > label(b) + 1."""
    graph = build_residual(Network.from_arcs(5, 0, 3, [(0, 1, 5), (1, 2, 5), (2, 3, 5),
                                                       (0, 4, 7)]))
    res = graph.initial_residuals()
    excess = np.zeros(5, np.int64)
    assert saturate_source_arcs(graph.first, graph.head, graph.rev, res, excess, 0) == 12
    label = np.array([5, 3, 0, 0, 0], np.int32)
    return graph, res, excess, label


def test_global_relabel_cpu_cancels_relabels_and_strands():
    graph, res, excess, label = _stranded_state()
    marked = np.zeros(5, np.bool_)
    order = np.empty(5, np.int32)
    args = (graph.first, graph.head, graph.rev, res, excess, label, 0, 3, marked, order)
    assert global_relabel_cpu(*args) == (1, 7, 1)  # (a, b) cancelled; c's 7 stranded; b active
    assert excess.tolist() == [-12, 0, 5, 0, 7]
    assert label.tolist() == [5, 5, 1, 0, 5]
    assert marked.tolist() == [False, True, False, False, True]
    assert global_relabel_cpu(*args) == (0, 0, 1)  # marked vertices are subtracted once


def test_stranded_excess_is_left_for_stage_two():
    graph, result = solve("cuda", "cpu", _stranded_state()[0].network, want_flow=True)
    assert result.flow_value == 5
    assert result.counters["unreachable_vertices"] >= 1
    assert check_answer(graph, result).ok


def test_default_device_is_the_gpu_only_where_one_can_run(monkeypatch):
    spec = solvers()["cuda"]
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: "no CUDA device found: test")
    assert spec.resolve(SolveOptions()).device == "cpu"
    with pytest.raises(SolverUnavailable, match="cannot run here: no CUDA device found: test"):
        spec.resolve(SolveOptions(device="gpu"))
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: None)
    assert spec.resolve(SolveOptions()).device == "gpu"


@pytest.mark.parametrize("flags,message", [
    (["--kernel-cycles", "0"], "--kernel-cycles 0: must be in 1..2147483647"),
    (["--block-size", "2048"], "--block-size 2048: must be in 32..1024"),
    (["--block-size", "48"], "--block-size 48: must be a multiple of 32 in 32..1024"),
    (["--inner-cycles", "2"], "--inner-cycles does not apply to solver 'cuda'"),
])
def test_parameter_errors_are_one_line(flags, message):
    outcome = CliRunner().invoke(main, ["solve", str(DATA / "clrs.max"), "-s", "cuda",
                                        "--device", "cpu", *flags])
    assert outcome.exit_code == 2
    assert outcome.output.strip() == f"maxflow: error: {message}"


def test_cli_on_the_twins_checks():
    outcome = CliRunner().invoke(main, ["solve", str(DATA / "clrs.max"), "-s", "cuda",
                                        "--device", "cpu", "--check"])
    assert outcome.exit_code == 0, outcome.output
    assert "cuda on cpu" in outcome.output and "check passed" in outcome.output


def test_gpu_without_one_says_what_is_missing():
    reason = devices.gpu_unavailable()
    if reason is None:
        pytest.skip("a GPU can be used here")
    outcome = CliRunner().invoke(main, ["solve", str(DATA / "clrs.max"), "-s", "cuda",
                                        "--device", "gpu"])
    assert outcome.exit_code == 2
    assert outcome.output.strip() == f"maxflow: error: solver 'cuda' cannot run here: {reason}"
