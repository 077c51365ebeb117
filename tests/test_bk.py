"""bk: its counters (every orphan is adopted or freed), its answer a flow even without stage
2, the same value as eibfs on vision grids, a stop flag honoured."""

import numpy as np
import pytest
from fixtures import DATA

from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.bk.search_trees import COUNTER_NAMES, DONE, STOPPED, bk_max_flow, net_inflows
from maxflow_cli.check import check_answer
from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual

GRIDS = ("grid:shape=24x24,connectivity=4,seed=1", "grid:shape=24x24,connectivity=8,seed=2",
         "grid:shape=8x8x8,connectivity=26,seed=3")


def solve(graph, name="bk", want_flow=False):
    spec = get_solver(name)
    result = spec.solve(graph, spec.resolve(SolveOptions(want_flow=want_flow)))
    certificate = check_answer(graph, result)
    assert certificate.ok, certificate.problems
    return result


@pytest.mark.parametrize("spec", GRIDS)
def test_a_grid_has_eibfs_value_and_every_orphan_is_adopted_or_freed(spec):
    graph = build_residual(parse_instance(spec)[0].load()[0])
    result = solve(graph)
    assert result.flow_value == solve(graph, "eibfs").flow_value > 0
    counts = result.counters
    assert set(counts) == set(COUNTER_NAMES)
    assert counts["augmentations"] > 0 and counts["grown"] > 0
    assert counts["orphans"] == counts["adoptions"] + counts["freed"] > 0


def test_stage_one_already_leaves_a_flow():
    graph = build_residual(parse_instance(GRIDS[1])[0].load()[0])
    res = graph.initial_residuals()
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    value, status = bk_max_flow(graph.first, graph.head, graph.rev, res, graph.source,
                                graph.sink, counters, np.zeros(1, np.uint8))
    inflows = net_inflows(graph.first, graph.cap, res)
    assert status == DONE and value > 0
    assert inflows[graph.sink] == value == -inflows[graph.source]
    inner = np.ones(graph.n, bool)
    inner[[graph.source, graph.sink]] = False
    assert not inflows[inner].any()


@pytest.mark.parametrize("want_flow", [False, True])
def test_the_flow_file_form(want_flow):
    graph = build_residual(read_network(str(DATA / "edge-cases.max"))[0])
    result = solve(graph, want_flow=want_flow)
    assert result.flow_value == 11 and result.is_flow == want_flow
    assert ("stage2" in result.times) == want_flow


def test_a_stop_flag_set_before_the_start_stops_it():
    graph = build_residual(read_network(str(DATA / "clrs.max"))[0])
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    value, status = bk_max_flow(graph.first, graph.head, graph.rev, graph.initial_residuals(),
                                graph.source, graph.sink, counters, np.ones(1, np.uint8))
    assert (value, status) == (0, STOPPED) and not counters.any()
