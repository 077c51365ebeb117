"""The answer certificate must accept right answers and reject each kind of wrong one."""

import dataclasses

import numpy as np
import pytest

from maxflow_cli.check import check_answer
from maxflow_cli.network import Network
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.result import SolveResult

# s=0 -> 1 -> 3=t, s -> 2 -> t and 1 -> 2: maximum flow 9, minimum cut S = {0, 1}
# (arcs 1->3, 1->2 and 0->2: 5 + 1 + 3)
ARCS = [(0, 1, 9), (1, 3, 5), (0, 2, 3), (2, 3, 7), (1, 2, 1)]


def solved(want_flow=True):
    graph = build_residual(Network.from_arcs(4, 0, 3, ARCS))
    return graph, get_solver("hipr").solve(graph, SolveOptions(want_flow=want_flow,
                                                               params=_hipr_defaults()))


def _hipr_defaults():
    return {p.name: p.default for p in get_solver("hipr").parameters}


def test_accepts_a_maximum_flow_and_a_maximum_preflow():
    for want_flow in (True, False):
        graph, result = solved(want_flow)
        certificate = check_answer(graph, result)
        assert certificate.ok, certificate.problems
        assert certificate.cut_capacity == result.flow_value == 9
        assert certificate.source_side.tolist() == [True, True, False, False]


def test_rejects_a_wrong_flow_value():
    graph, result = solved()
    certificate = check_answer(graph, dataclasses.replace(result, flow_value=8))
    assert not certificate.ok
    assert any("not the flow value 8" in p for p in certificate.problems)


def test_rejects_a_flow_that_is_not_maximum():
    graph = build_residual(Network.from_arcs(4, 0, 3, ARCS))
    res = graph.initial_residuals()  # the zero flow: value 0, but s still reaches t
    certificate = check_answer(graph, SolveResult("none", 0, res, True))
    assert not certificate.ok
    assert any("still reaches the sink" in p for p in certificate.problems)


def test_rejects_broken_conservation_and_capacity():
    graph, result = solved()
    res = result.res.copy()
    forward = graph.arc_of_input[4]  # push one more unit on 1->2: 2 now has excess
    res[forward] -= 1
    res[graph.rev[forward]] += 1
    certificate = check_answer(graph, dataclasses.replace(result, res=res))
    assert any("conservation" in p for p in certificate.problems)
    res = result.res.copy()
    res[graph.arc_of_input[0]] = -1
    certificate = check_answer(graph, dataclasses.replace(result, res=res))
    assert any("0 <= flow <= capacity" in p for p in certificate.problems)


def test_rejects_a_deficit_that_inflates_the_flow_value():
    """The failure gpu-bfs once had: a vertex that sent out more than it received (a deficit
    left by violation cancellation) and a sink that received more than the maximum."""
    graph, result = solved(want_flow=False)
    res = result.res.copy()
    arc = graph.arc_of_input[3]  # one more unit on 2->t than 2 receives
    res[arc] -= 1
    res[graph.rev[arc]] += 1
    claimed = dataclasses.replace(result, res=res, flow_value=result.flow_value + 1)
    certificate = check_answer(graph, claimed)
    assert not certificate.ok
    assert any("send out more than they receive" in p for p in certificate.problems)
    assert any("cut's capacity 9 differs from the flow value 10" in p
               for p in certificate.problems)


def test_reads_32_bit_capacities_and_residuals_as_gpu_sync_leaves_them():
    graph, result = solved(want_flow=False)
    narrow = dataclasses.replace(graph, caps=graph.caps.astype(np.int32))
    res = result.res.astype(np.int32)
    certificate = check_answer(narrow, dataclasses.replace(result, res=res))
    assert certificate.ok and certificate.cut_capacity == 9
    res[narrow.arc_of_input[1]] = 2**31 - 1  # 5 - (2^31 - 1): a flow below 0, in 64 bits
    problems = check_answer(narrow, dataclasses.replace(result, res=res)).problems
    assert "1 arcs break 0 <= flow <= capacity" in problems
    assert "residual capacities of a pair of arcs do not add up to the capacity" in problems


def test_counts_broken_arcs_and_sums_a_cut_past_int64_exactly():
    """A bogus answer whose cut (S = {s, a}) has three arcs of 2^62: the certificate's sums
    stay exact past 2^63."""
    network = Network.from_arcs(3, 0, 2, [(0, 1, 1)] + [(1, 2, 2**62)] * 3)
    graph = build_residual(network)
    res = graph.initial_residuals()
    for i in range(4):
        forward = graph.arc_of_input[i]
        res[graph.rev[forward]], res[forward] = res[forward], 0  # every arc saturated
    certificate = check_answer(graph, SolveResult("none", 1, res, False))
    assert certificate.cut_capacity == 3 * 2**62
    assert f"the cut's capacity {3 * 2**62} differs from the flow value 1" in \
        certificate.problems
    res[graph.arc_of_input[1]] = -1
    res[graph.arc_of_input[2]] = -1
    problems = check_answer(graph, SolveResult("none", 1, res, False)).problems
    assert "2 arcs break 0 <= flow <= capacity" in problems
    assert "residual capacities of a pair of arcs do not add up to the capacity" in problems


@pytest.mark.parametrize("family,params", [
    ("washington-rlg", dict(rows=1024, levels=6)),
    ("genrmf", dict(a=30, b=4)),
    ("grid", dict(shape=(60, 50), connectivity=8)),
])
def test_the_parallel_search_gives_the_distances_of_the_sequential_one(family, params):
    """Distances to the sink over the capacities and over a maximum preflow's residuals (the
    certificate's cut) equal steps.reverse_bfs's; the same vertices are reached, each once.
    Levels of 16 vertices or more split in parts, many parts a thread."""
    import numpy as np

    from maxflow_cli.check import sink_distances
    from maxflow_cli.generators import make
    from maxflow_cli.steps import reverse_bfs

    graph = build_residual(make(family, **params, seed=2))
    result = get_solver("hipr").solve(graph, SolveOptions(params=_hipr_defaults()))
    for res in (result.res, graph.cap):
        labels = [np.empty(graph.n, np.int32) for _ in range(2)]
        orders = [np.empty(graph.n, np.int32) for _ in range(2)]
        reached = reverse_bfs(graph.first, graph.head, graph.rev, res, graph.sink, labels[0],
                              orders[0])
        assert sink_distances(graph.first, graph.head, graph.rev, res, graph.sink, labels[1],
                              orders[1], 4, 16) == reached
        assert labels[1].tolist() == labels[0].tolist()
        assert sorted(orders[1][:reached]) == sorted(orders[0][:reached])
    assert np.bincount(labels[0][labels[0] < graph.n]).max() > 16 * 8 * 4  # capacities
