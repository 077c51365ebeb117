"""self-stabilizing's pieces (kernels/self_stabilizing*.py, solvers/self_stabilizing.py): the
twin's clamped demands and keys, a round's movers sharing no arc, the round bound; the
solver through `maxflow solve --json` on every known instance, on hand-made cycles,
parallel arcs and unreachable vertices, and on random generator instances against hipr; on
a GPU (marked gpu) the kernels against the twin, array for array, batch after batch."""

import json

import numpy as np
import pytest
from click.testing import CliRunner
from fixtures import known_instances
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import max_flow_value

from maxflow_cli import generators, kernels
from maxflow_cli.check import check_answer
from maxflow_cli.cli import main
from maxflow_cli.errors import MaxflowError
from maxflow_cli.kernels import self_stabilizing_cpu as twin
from maxflow_cli.kernels.self_stabilizing import BATCH, StabilizingKernels, initial_state
from maxflow_cli.network import Network
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual

LIMIT = 1 << 62


def solve(graph, device="cpu", **params):
    spec = get_solver("self-stabilizing")
    return spec.solve(graph, spec.resolve(SolveOptions(True, device, params)))


def test_demands_are_exact_below_the_limit_and_clamped_past_it():
    big = 2**62
    network = Network.from_arcs(5, 0, 4, [(1, 2, big), (3, 2, big), (0, 2, 7), (2, 4, 5),
                                          (2, 2, big), (2, 1, 3)])
    graph = build_residual(network)
    res, _ = initial_state(graph)  # every arc saturated
    inflow = 2 * big + 7
    assert twin.clamped_demand(2, graph.first, graph.cap, res) == -LIMIT  # 8 - inflow < -2^62
    emptied = graph.arc_of_input[1]  # (3, 2) empty: demand 8 - (big + 7) = 1 - big, exact
    res[emptied], res[graph.rev[emptied]] = big, 0
    assert twin.clamped_demand(2, graph.first, graph.cap, res) == 8 - (inflow - big)
    assert twin.clamped_demand(4, graph.first, graph.cap, res) == -5
    assert twin.clamped_demand(1, graph.first, graph.cap, res) == big - 3


def test_keys_are_the_kernels_wrapping_32_bit_hash():
    def key(u, round_number):  # the .cu's unsigned arithmetic, on Python integers
        x = (u + round_number * 0x27D4EB2F) % 2**32
        x = ((x >> 16) ^ x) * 0x45D9F3B % 2**32
        x = ((x >> 16) ^ x) * 0x45D9F3B % 2**32
        return (x >> 16) ^ x
    for u, round_number in [(0, 0), (1, 1), (12345, 678), (2**31 - 1, 2**31 - 1)]:
        assert twin.vertex_key(u, round_number) == key(u, round_number)


def test_a_rounds_movers_share_no_arc_and_only_their_arcs_change():
    graph = build_residual(generators.make("genrmf", a=3, b=4, seed=2))
    res, label = initial_state(graph)
    n = graph.n
    demand = np.empty(n, np.int64)
    guard = np.empty(n, np.int32)
    busy = np.zeros(BATCH, np.int32)
    stats = np.zeros(3, np.int64)
    next_label = np.empty_like(label)
    arcs_of = [np.arange(graph.first[u], graph.first[u + 1]) for u in range(n)]
    moved = 0
    for round_number in range(6):
        twin.labels_kernel(n, graph.source, round_number, graph.first, graph.head, graph.rev,
                           res, label, next_label, busy)
        label, next_label = next_label, label
        twin.guards_kernel(n, graph.source, graph.sink, round_number, graph.first,
                           graph.head, graph.rev, graph.cap, res, label, demand, guard, busy)
        before = res.copy()
        twin.moves_kernel(n, graph.sink, round_number, graph.first, graph.head, graph.rev,
                          graph.cap, res, label, demand, guard, stats)
        enabled = {u for u in range(n) if guard[u]}
        movers = {u for u in enabled if not any(
            w in enabled and w != u and twin.goes_before(w, u, round_number)
            for w in graph.head[arcs_of[u]].tolist())}
        tails = np.repeat(np.arange(n), np.diff(graph.first))
        for a in np.flatnonzero(res != before):  # one end moved, never both
            assert (tails[a] in movers) != (graph.head[a] in movers)
        moved += len(movers)
        assert (res >= 0).all()
        np.testing.assert_array_equal(res + res[graph.rev], graph.cap + graph.cap[graph.rev])
    assert moved > 0 and stats.sum() > 0 and busy[:6].all()


def _certified(network):
    graph = build_residual(network)
    result = solve(graph)
    expected = max_flow_value(network.n, network.source, network.sink,
                              zip(network.tails.tolist(), network.heads.tolist(),
                                  network.caps.tolist()))
    certificate = check_answer(graph, result)
    assert certificate.ok, certificate.problems
    assert result.flow_value == expected == certificate.cut_capacity
    return result


def test_cycles_parallel_arcs_self_loops_and_unreachable_vertices_end_at_the_maximum():
    big = 2**62
    # a saturated 2-cycle of huge arcs and a surplus of 4 at vertex 1: Reduce_InFlow must
    # return it to the source (the least inflow), not send it round the cycle 2^60 times
    assert _certified(Network.from_arcs(4, 0, 3, [(0, 1, 5), (1, 2, big), (2, 1, big),
                                                  (1, 3, 1)])).counters["rounds"] < 10
    _certified(Network.from_arcs(4, 0, 3, [(0, 1, 5), (1, 2, big), (2, 1, big), (2, 3, 4),
                                           (1, 3, 1)]))
    # cut off from the source: a cycle feeding the sink must be emptied by S4
    _certified(Network.from_arcs(5, 0, 4, [(1, 2, big), (2, 1, big), (2, 4, 1), (1, 4, 3),
                                           (0, 3, 9)]))
    # parallel arcs, a self-loop, arcs into the source and out of the sink, a longer cycle
    # and an isolated vertex
    result = _certified(Network.from_arcs(
        7, 0, 5, [(0, 1, 4), (0, 1, 3), (1, 1, 9), (1, 2, 5), (2, 3, 5), (3, 1, 5), (3, 5, 6),
                  (2, 5, 1), (5, 0, 8), (4, 0, 2), (5, 4, 3)]))
    assert result.counters["rounds"] > 0


def test_a_network_that_needs_more_rounds_than_allowed_is_a_clear_error():
    graph = build_residual(generators.make("genrmf", a=3, b=4, seed=2))
    with pytest.raises(MaxflowError, match=r"guards still hold after 3 rounds \(--max-rounds\)"):
        solve(graph, max_rounds=3)
    assert solve(graph).counters["rounds"] > 3


def test_the_round_bound_through_the_cli_is_one_line_and_exit_code_2():
    path = known_instances()[0][0]
    result = CliRunner().invoke(main, ["solve", str(path), "--solver", "self-stabilizing",
                                       "--device", "cpu", "--max-rounds", "1"])
    assert result.exit_code == 2
    assert "guards still hold after 1 rounds" in result.output
    assert "Traceback" not in result.output


INSTANCES = known_instances()


@pytest.mark.parametrize("path,expected", INSTANCES, ids=[p.name for p, _ in INSTANCES])
def test_solve_json_on_every_known_instance(path, expected):
    result = CliRunner().invoke(main, ["solve", str(path), "--solver", "self-stabilizing",
                                       "--device", "cpu", "--json", "--check"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)  # warnings (a generator's seed line) go to stderr
    assert report["flow_value"] == expected
    assert report["check"]["ok"] is True


FAMILIES = st.one_of(
    st.builds(lambda a, b, seed: ("genrmf", {"a": a, "b": b, "seed": seed}),
              st.integers(2, 4), st.integers(1, 5), st.integers(0, 10**6)),
    st.builds(lambda rows, levels, seed: ("washington-rlg", {"rows": rows, "levels": levels,
                                                             "cap": 50, "seed": seed}),
              st.integers(3, 6), st.integers(1, 8), st.integers(0, 10**6)),
    st.builds(lambda n, seed: ("acyclic-dense", {"n": n, "seed": seed}),
              st.integers(2, 30), st.integers(0, 10**6)))


@settings(max_examples=40, deadline=None)
@given(family=FAMILIES)
def test_generator_instances_against_hipr(family):
    name, params = family
    graph = build_residual(generators.make(name, **params))
    hipr = get_solver("hipr")
    expected = hipr.solve(graph, hipr.resolve(SolveOptions())).flow_value
    result = solve(graph)
    assert result.flow_value == expected
    assert check_answer(graph, result).ok


@pytest.mark.gpu
def test_the_kernels_leave_the_twins_arrays_batch_after_batch():
    if kernels.gpu_unavailable():
        pytest.skip(kernels.gpu_unavailable())
    graph = build_residual(generators.make("washington-rlg", rows=16, levels=32, cap=1000,
                                           seed=4))
    gpu = StabilizingKernels("gpu", graph)
    cpu = StabilizingKernels("cpu", graph)
    try:
        res_gpu = np.empty(graph.head.shape[0], np.int64)
        res_cpu = np.empty_like(res_gpu)
        for first_round in range(0, 20 * BATCH, BATCH):
            busy_gpu = gpu.batch(first_round, BATCH)
            busy_cpu = cpu.batch(first_round, BATCH)
            np.testing.assert_array_equal(busy_gpu, busy_cpu)
            gpu.download(res_gpu)
            cpu.download(res_cpu)
            np.testing.assert_array_equal(res_gpu, res_cpu)
            assert gpu.moves() == cpu.moves()
        assert sum(cpu.moves().values()) > 0
    finally:
        gpu.close()
        cpu.close()
