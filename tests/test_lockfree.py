"""`lockfree` (Hong 2008, in Alvino 2015 Algorithm 1) beside hipr, at several thread counts;
test_solvers.py runs it on the fixtures and against the oracle."""


import numba
import pytest

from maxflow_cli import generators
from maxflow_cli.check import check_answer
from maxflow_cli.errors import ParameterError
from maxflow_cli.pushrelabel import parallel_relabel
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual

THREADS = numba.config.NUMBA_NUM_THREADS


def _solve(name, graph, want_flow=False, **params):
    spec = get_solver(name)
    return spec.solve(graph, spec.resolve(SolveOptions(want_flow, params=params)))


@pytest.mark.parametrize("threads", sorted({1, 2, THREADS}))
@pytest.mark.parametrize("family,params", [
    ("washington-rlg", dict(rows=32, levels=24, cap=1000)),
    ("genrmf", dict(a=6, b=8, c1=1, c2=1000)),
    ("acyclic-dense", dict(n=120)),
])
def test_same_value_as_hipr_and_a_certificate(threads, family, params):
    graph = build_residual(generators.make(family, seed=5, **params))
    expected = _solve("hipr", graph).flow_value
    for want_flow in (False, True):
        result = _solve("lockfree", graph, want_flow, threads=threads)
        assert result.flow_value == expected
        assert check_answer(graph, result).ok
    assert result.counters["threads"] == threads
    assert result.counters["pushes"] > 0
    assert result.counters["rounds"] == len(result.trace) >= 1
    assert result.trace[-1]["active"] == 0


def test_a_small_global_update_budget_means_more_rounds():
    graph = build_residual(generators.make("genrmf", seed=2, a=6, b=8, c1=1, c2=1000))
    often = _solve("lockfree", graph, global_update_frequency=50.0)
    rarely = _solve("lockfree", graph, global_update_frequency=0.01)
    assert often.flow_value == rarely.flow_value
    assert often.counters["rounds"] > rarely.counters["rounds"]


def test_threads_beyond_the_cores_are_refused():
    graph = build_residual(generators.make("genrmf", seed=2, a=3, b=3, c1=1, c2=10))
    with pytest.raises(ParameterError, match="--threads"):
        _solve("lockfree", graph, threads=THREADS + 1)


def test_by_default_a_busy_machine_gets_one_thread_and_a_quiet_one_every_free_core(monkeypatch):
    """Threads that outnumber the free cores wait out time slices at every barrier: the default
    team is the cores other processes leave free when the solve starts."""
    graph = build_residual(generators.make("genrmf", seed=2, a=4, b=6, c1=1, c2=100))
    expected = _solve("hipr", graph).flow_value
    for elsewhere, threads in ((10**6, 1), (0, min(THREADS, parallel_relabel.ALLOWED_CPUS))):
        monkeypatch.setattr(parallel_relabel, "runnable_elsewhere", lambda: elsewhere)
        result = _solve("lockfree", graph)
        assert (result.flow_value, result.counters["threads"]) == (expected, threads)
