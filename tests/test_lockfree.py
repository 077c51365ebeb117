"""`lockfree` (Hong 2008, in Alvino 2015 Algorithm 1) beside hipr, at several thread counts;
test_solvers.py runs it on the fixtures and against the oracle."""

import numba
import pytest

from maxflow_cli import generators
from maxflow_cli.check import check_answer
from maxflow_cli.errors import ParameterError
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
