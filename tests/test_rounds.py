"""pushrelabel.rounds: the state the hybrids hand over stays a valid preflow, the same on the
device as on the host, through CPU and GPU rounds."""

import numpy as np
import pytest
from test_cuda import DEVICES
from test_hybrid import assert_valid_preflow, resolved

from maxflow_cli import generators
from maxflow_cli.pushrelabel.parallel_relabel import threads_in_use
from maxflow_cli.pushrelabel.rounds import HandOver
from maxflow_cli.residual import build_residual


@pytest.mark.parametrize("device", DEVICES)
def test_hand_over_cpu_gpu_cpu_keeps_a_valid_preflow(device):
    """Algorithm 5's state after hipr rounds and kernel rounds: a valid preflow with valid
    labels each time, the same one on the device as on the host when a kernel starts (the
    host's changes, cancelled arcs included, sent only then) and after it; after a hipr round
    no arc violates the labels (why global_relabel skips it there)."""
    options = resolved("hybrid", device)
    graph = build_residual(generators.make("genrmf", a=5, b=8, seed=4))
    with threads_in_use(options.params["threads"]), HandOver(graph, options) as state:
        opened = state.device
        device_copy = [np.empty_like(state.res), np.empty_like(state.excess)]

        def launch_on_the_hosts_state():
            for name, host, copy in zip(("res", "excess", "label"),
                                        (state.res, state.excess, state.label),
                                        device_copy + [np.empty_like(state.label)]):
                opened.to_host(name, copy)
                assert (copy == host).all()
            opened.push_relabel(2)
            # as a kernel stopped mid-flight leaves it: an active vertex's label too high,
            # so that the global relabel cancels arcs (on the host)
            label, excess = np.empty_like(state.label), np.empty_like(state.excess)
            opened.to_host("label", label)
            opened.to_host("excess", excess)
            inner = np.arange(graph.n) != graph.sink
            label[np.flatnonzero(inner & (excess > 0) & (label < graph.n - 1))[-1]] = \
                graph.n - 1
            opened.to_device("label", label)

        for step in ("cpu", "gpu", "gpu", "gpu", "cpu", "gpu"):
            assert state.unfinished()
            before = (state.res.copy(), state.excess.copy())
            if step == "cpu":
                operations = state.cpu_round()
                tails = np.repeat(np.arange(graph.n), np.diff(graph.first))
                violating = (state.res > 0) & (state.label[tails] > state.label[graph.head] + 1)
                assert not violating.any()
            else:
                operations = state.gpu_round(launch_on_the_hosts_state)
                opened.to_host("res", device_copy[0])
                opened.to_host("excess", device_copy[1])
                assert (device_copy[0] == state.res).all()
                assert (device_copy[1] == state.excess).all()
            assert operations > 0 and state.last_device == step
            assert not (state.res == before[0]).all() or not (state.excess == before[1]).all()
            state.global_relabel()
            assert_valid_preflow(graph, state.res, state.excess, state.label)
        assert state.cancelled > 0
