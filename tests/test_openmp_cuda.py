"""`openmp-cuda` (Alvino 2015, Algorithms 9-12): on the kernel's Numba twin (CI) and on the GPU
(marked gpu) against hipr and the certificate at thresholds that send every round to either
engine or mix them; Algorithm 10's arc sort; Algorithm 12's kernel keeps a valid preflow."""

import numpy as np
import pytest
from test_cuda import DEVICES, FAMILY_CASES
from test_hybrid import assert_valid_preflow, hybrid_results, resolved

from maxflow_cli import generators
from maxflow_cli.kernels.preflow import PreflowKernels, quarters
from maxflow_cli.network import Network
from maxflow_cli.pushrelabel.highest_label import hipr_initialize
from maxflow_cli.pushrelabel.parallel_relabel import Workspace
from maxflow_cli.residual import build_residual
from maxflow_cli.solvers.openmp_cuda import sorted_by_head_label, sweep_until_global_update
from maxflow_cli.steps import reverse_bfs


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("family,params", FAMILY_CASES)
@pytest.mark.parametrize("active_threshold", [0, 5, 10**9])
def test_every_family_like_hipr(device, family, params, active_threshold):
    network = generators.make(family, **params)
    for result in hybrid_results("openmp-cuda", device, network, threads=2,
                                 active_threshold=active_threshold):
        trace = result.trace
        assert [entry["device"] for entry in trace] == [
            "cpu" if entry["active"] < active_threshold else "gpu" for entry in trace]
        assert result.counters["kernel_launches"] == 4 * sum(  # one per stream
            entry["sweeps"] for entry in trace)
        assert all((entry["sweeps"] >= 1) == (entry["device"] == "gpu") for entry in trace)
        assert all(min(entry["kernel_s"], entry["transfer_s"], entry["relabel_s"]) >= 0 and
                   entry["kernel_s"] + entry["transfer_s"] + entry["relabel_s"] <=
                   entry["seconds"] for entry in trace)


def _hub_on_a_path(length=200, step=5):
    """A path 0 -> ... -> length (the sink) and a hub with an arc to every step-th vertex:
    the hub's heads are far more distances apart than it has arcs."""
    hub = length + 1
    arcs = [(v, v + 1, 3) for v in range(length)] + [(hub, v, 1) for v in range(0, length, step)]
    return Network.from_arcs(length + 2, 0, length, arcs + [(0, hub, 9)])


@pytest.mark.parametrize("network", [
    generators.make("washington-rlg", rows=6, levels=7, seed=3),  # short lists
    generators.make("acyclic-dense", n=50, seed=3),  # long lists of few distances
    _hub_on_a_path(),  # a long list of many distances
])
def test_arcs_sorted_by_increasing_head_distance(network):
    graph = build_residual(network)
    sorted_graph, where = sorted_by_head_label(graph, Workspace(graph), 2)
    label = np.empty(graph.n, np.int32)
    reverse_bfs(graph.first, graph.head, graph.rev, graph.cap, graph.sink, label,
                np.empty(graph.n, np.int32))
    arcs = np.arange(graph.head.shape[0])
    tail = np.repeat(np.arange(graph.n), np.diff(graph.first))
    stable = np.lexsort((label[graph.head], tail))  # ties keep their order
    assert (where[stable] == arcs).all()
    assert (sorted_graph.head[where] == graph.head).all()
    assert (sorted_graph.cap[where] == graph.cap).all()
    assert (sorted_graph.rev[where] == where[graph.rev]).all()
    assert (sorted_graph.rev[sorted_graph.rev] == arcs).all()
    assert (sorted_graph.arc_of_input == where[graph.arc_of_input]).all()
    for u in range(graph.n):
        heads = sorted_graph.head[sorted_graph.first[u]:sorted_graph.first[u + 1]]
        assert (np.diff(label[heads]) >= 0).all()
        assert sorted(heads) == sorted(graph.head[graph.first[u]:graph.first[u + 1]])


def _opened_on_initial_state(device):
    """A device holding a Genrmf graph and hi_pr's initial state, and that state."""
    graph = build_residual(generators.make("genrmf", a=4, b=5, seed=7))
    res, excess, label = graph.initial_residuals(), np.zeros(graph.n, np.int64), \
        np.empty(graph.n, np.int32)
    hipr_initialize(graph.first, graph.head, graph.rev, res, excess, label, graph.source,
                    graph.sink)
    opened = PreflowKernels(resolved("openmp-cuda", device).device, graph, 64)
    for name, host in (("res", res), ("excess", excess), ("label", label)):
        opened.to_device(name, host)
    return graph, opened, (res, excess, label)


def _fetched(opened, state):
    after = tuple(np.empty_like(host) for host in state)
    for name, host in zip(("res", "excess", "label"), after):
        opened.to_host(name, host)
    return after


@pytest.mark.parametrize("device", DEVICES)
def test_single_loop_kernel_keeps_a_valid_preflow(device):
    """Algorithm 12 on hi_pr's initial state: pushes and relabels happen, the preflow stays
    valid, no relabel lowers a label, and the sweep counts at least the vertices active
    before it (others can become active while it runs) and no more than there are."""
    graph, opened, state = _opened_on_initial_state(device)
    try:
        found = opened.single_loop()
        after = _fetched(opened, state)
        counters = opened.counters()
    finally:
        opened.close()
    excess, label = state[1], state[2]
    assert np.count_nonzero(excess > 0) - (excess[graph.sink] > 0) <= found <= graph.n - 2
    assert counters["pushes"] > 0 and counters["relabels"] > 0
    assert counters["kernel_launches"] == len(quarters(graph.n)) == 4
    assert_valid_preflow(graph, *after)
    assert (after[2] >= label).all()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("threshold,frequency,sweeps", [
    (10**9, 0.0, 1),  # fewer active than the threshold after one sweep: back to the CPU
    (0, 10**6, 1),  # the work bound passed by the first sweep's relabels
    (0, 0.0, None),  # no bound: until a sweep does nothing
])
def test_sweeps_stop_at_the_threshold_the_work_bound_or_no_work(device, threshold, frequency,
                                                                sweeps):
    graph, opened, state = _opened_on_initial_state(device)
    params = {"alpha": 6, "beta": 12, "active_threshold": threshold,
              "global_update_frequency": frequency}
    try:
        sweep_until_global_update(opened, graph, params)
        launches, counters = opened.launches, opened.counters()
        opened.single_loop()  # one more: does it find work?
        again = opened.counters()
        after = _fetched(opened, state)
    finally:
        opened.close()
    if sweeps is None:
        assert launches > 4
        assert again["pushes"] + again["relabels"] == counters["pushes"] + counters["relabels"]
    else:  # after one sweep that worked, so not for want of work
        assert launches == 4 * sweeps and counters["relabels"] > 0
    assert_valid_preflow(graph, *after)


def test_queued_sweeps_count_the_last_one_alone():
    """single_loop(3) on the twin is three sweeps, and its count that of the third: as two
    sweeps and then one on another device holding the same state."""
    graph, batched, state = _opened_on_initial_state("cpu")
    _, stepped, _ = _opened_on_initial_state("cpu")
    found = batched.single_loop(3)
    stepped.single_loop(2)
    assert found == stepped.single_loop() > 0
    assert batched.launches == stepped.launches == 3 * len(quarters(graph.n))
    for ours, theirs in zip(_fetched(batched, state), _fetched(stepped, state)):
        assert (ours == theirs).all()
