"""`hybrid` (He & Hong 2010, Algorithm 5): on the kernel's Numba twin (CI) and on the GPU
(marked gpu) against hipr and the certificate; eq. 3; the trace and `maxflow solve --trace`."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from fixtures import DATA
from test_cuda import DEVICES, FAMILY_CASES, assert_like_hipr, solve

from maxflow_cli import generators
from maxflow_cli.cli import main
from maxflow_cli.errors import SolverUnavailable
from maxflow_cli.registry import SolveOptions, solvers
from maxflow_cli.solvers import hybrid
from maxflow_cli.solvers.hybrid import eq3_threshold

TRACE_KEYS = {"round", "device", "active", "active_after", "threshold", "operations", "seconds"}


def assert_valid_preflow(graph, res, excess, label=None):
    """Capacities respected, excess = inflow - outflow >= 0 off the source, and (given labels)
    no residual arc (u, v) with label(u) > label(v) + 1 among labels below n."""
    tail = np.repeat(np.arange(graph.n), np.diff(graph.first))
    assert (res >= 0).all()
    assert (res + res[graph.rev] == graph.cap + graph.cap[graph.rev]).all()
    flow = graph.cap - res  # on both arcs of a pair: f and -f
    balance = np.zeros(graph.n, np.int64)
    np.add.at(balance, tail, -flow)
    assert (balance == excess).all()
    others = np.arange(graph.n) != graph.source
    assert (excess[others] >= 0).all()
    if label is not None:
        low = (label[tail] < graph.n) & (res > 0)
        assert (label[tail][low] <= label[graph.head][low] + 1).all()


def hybrid_results(name, device, network, **params):
    """The results of a hybrid without and with stage 2, each with hipr's value, a certificate
    that holds and a trace of rounds that ends with no active vertex."""
    for want_flow in (False, True):
        graph, result = solve(name, device, network, want_flow, **params)
        assert result.is_flow == want_flow
        assert_like_hipr(graph, result)
        counters = result.counters
        assert counters["rounds"] == counters["cpu_rounds"] + counters["gpu_rounds"] == \
            len(result.trace) >= 1
        assert all(set(entry) >= TRACE_KEYS for entry in result.trace)
        assert result.trace[-1]["active_after"] == 0
        yield result


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("family,params", FAMILY_CASES)
@pytest.mark.parametrize("initial_threshold", [0, 64])
def test_every_family_like_hipr(device, family, params, initial_threshold):
    network = generators.make(family, **params)
    for result in hybrid_results("hybrid", device, network, kernel_cycles=32,
                                 initial_threshold=initial_threshold):
        assert result.trace[0]["device"] == "cpu"  # §V: the CPU starts
        if len(result.trace) > 1:
            second = "gpu" if result.trace[1]["active"] > initial_threshold else "cpu"
            assert result.trace[1]["device"] == second


@pytest.mark.parametrize("gpu_faster", [False, True])
def test_threshold_is_retuned_once_both_engines_ran(monkeypatch, gpu_faster):
    """Once both engines ran, eq. 3 sets the threshold after every round (fixed here, as the
    rates of rounds this small are noise): infinite keeps every later round on the CPU;
    finite and below every aSize sends them all to the GPU. Either way the answer is
    hipr's, with a certificate (hybrid_results)."""
    model = []
    monkeypatch.setattr(hybrid, "eq3_threshold",
                        lambda *rates: model.append(rates) or (0 if gpu_faster else math.inf))
    network = generators.make("washington-rlg", rows=16, levels=32, seed=2)
    for result in hybrid_results("hybrid", "cpu", network, kernel_cycles=1,
                                 initial_threshold=0):
        trace = result.trace
        assert len(trace) >= 3 and len(model) == len(trace) - 1  # from the second round on
        later = "gpu" if gpu_faster else "cpu"
        assert [entry["device"] for entry in trace] == ["cpu", "gpu"] + [later] * (len(trace) - 2)
        assert [entry["threshold"] for entry in trace[2:]] == [0 if gpu_faster else None] * (
            len(trace) - 2)
        model.clear()


def test_cpu_rounds_stop_at_each_global_update():
    """Each CPU round stops where hi_pr would run its global update, and the hybrid's own
    global relabel (on --threads threads) takes its place: hipr itself runs none."""
    network = generators.make("genrmf", a=6, b=12, seed=5)
    for result in hybrid_results("hybrid", "cpu", network, initial_threshold=10**9):
        assert len(result.trace) > 1
        assert {entry["device"] for entry in result.trace} == {"cpu"}
        assert result.counters["hipr_global_updates"] == 0


def test_eq3_threshold():
    assert eq3_threshold(2.0, 3.0, 1.0) == pytest.approx(3.0)  # 2 * 3 * 1 / (3 - 1)
    assert eq3_threshold(1e-3, 1e9, 1e7) == pytest.approx(1e-3 * 1e9 * 1e7 / (1e9 - 1e7))
    assert eq3_threshold(1.0, 1.0, 1.0) == math.inf
    assert eq3_threshold(1.0, 0.5, 1.0) == math.inf


def resolved(name, device):
    """Solver `name`'s default options on `device`; skips where that device is missing."""
    try:
        return solvers()[name].resolve(SolveOptions(device=device))
    except SolverUnavailable as reason:
        pytest.skip(str(reason))


def test_cli_trace_file(tmp_path):
    trace = tmp_path / "rounds.json"
    run = CliRunner().invoke(main, ["solve", str(DATA / "clrs.max"), "--solver", "hybrid",
                                    "--device", "cpu", "--initial-threshold", "0",
                                    "--trace", str(trace), "--json"])
    assert run.exit_code == 0, run.output
    rounds = json.loads(trace.read_text())
    assert rounds and rounds == json.loads(run.output)["trace"]
    assert rounds[0]["device"] == "cpu" and set(rounds[0]) >= TRACE_KEYS


def test_cli_trace_file_is_an_empty_list_without_rounds(tmp_path):
    trace = tmp_path / "rounds.json"
    run = CliRunner().invoke(main, ["solve", str(DATA / "clrs.max"), "--trace", str(trace)])
    assert run.exit_code == 0, run.output
    assert json.loads(trace.read_text()) == []
