"""solvers.hipr_forward: hipr's core with exact initial labels and input arcs first. Every
solver's tests (test_solvers) cover it on the fixtures and random graphs; here it is checked
against hipr on generated instances, and for doing less work than hipr where it should."""

import pytest
from fixtures import VECTORS
from test_solvers import assert_certified

from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.generators import make
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.solvers.hipr_forward import DENSE_DEGREE


def solve(name, graph, want_flow=False):
    spec = get_solver(name)
    return spec.solve(graph, spec.resolve(SolveOptions(want_flow=want_flow)))


GENERATED = [("acyclic-dense", {"n": 90}), ("acyclic-dense", {"n": 150}),
             ("genrmf", {"a": 5, "b": 20, "c1": 1, "c2": 100}),
             ("genrmf", {"a": 12, "b": 4, "c1": 1, "c2": 10000}),
             ("washington-rlg", {"rows": 20, "levels": 40, "cap": 50}),
             ("washington-rlg", {"rows": 50, "levels": 8, "cap": 10000})]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("family,params", GENERATED, ids=[f"{f}-{i}" for i, (f, _) in
                                                          enumerate(GENERATED)])
def test_same_flow_value_as_hipr_with_a_certified_cut_and_flow(family, params, seed):
    graph = build_residual(make(family, seed=seed, **params))
    expected = solve("hipr", graph).flow_value
    for want_flow in (False, True):
        result = solve("hipr-forward", graph, want_flow)
        assert result.is_flow == want_flow
        assert_certified(graph, result, expected)


@pytest.mark.parametrize("name", ["genrmf_a8_b64_c1-1_c2-10000_seed3.max",
                                  "rlg_w64_l128_cap10000_seed-5.max"])
def test_fewer_relabels_and_pushes_than_hipr_on_the_generator_families(name):
    """The point of the solver: exact initial labels and input arcs first save work."""
    graph = build_residual(read_network(str(VECTORS / name))[0])
    hipr = solve("hipr", graph).counters
    forward = solve("hipr-forward", graph).counters
    assert forward["relabels"] < 0.8 * hipr["relabels"]
    assert forward["pushes"] < hipr["pushes"]


def test_runs_hipr_as_it_is_on_a_dense_graph():
    """acyclic-dense with 200 vertices has 99.5 arcs per vertex, over DENSE_DEGREE."""
    graph = build_residual(read_network(str(VECTORS / "ac_n200_seed2.max"))[0])
    assert graph.m > DENSE_DEGREE * graph.n
    assert solve("hipr-forward", graph).counters == solve("hipr", graph).counters


def test_the_initial_labelling_counts_as_a_global_update():
    graph = build_residual(read_network(str(VECTORS / "rlg_w4_l3_cap100_seed1.max"))[0])
    spec = get_solver("hipr-forward")
    no_updates = spec.resolve(SolveOptions(params={"global_update_frequency": 0.0}))
    assert spec.solve(graph, no_updates).counters["global_updates"] == 1
