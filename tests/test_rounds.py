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
    """Algorithm 5's state after a hipr round, a kernel round and a hipr round: a valid
    preflow with valid labels each time, and the same one on the device as on the host;
    after a hipr round no arc violates the labels (why
    global_relabel skips it there)."""
    options = resolved("hybrid", device)
    graph = build_residual(generators.make("genrmf", a=5, b=8, seed=4))
    with threads_in_use(options.params["threads"]), HandOver(graph, options) as state:
        opened = state.device
        device_copy = [np.empty_like(state.res), np.empty_like(state.excess)]
        for step in ("cpu", "gpu", "cpu"):
            assert state.unfinished()
            before = (state.res.copy(), state.excess.copy())
            if step == "cpu":
                operations = state.cpu_round()
                tails = np.repeat(np.arange(graph.n), np.diff(graph.first))
                violating = (state.res > 0) & (state.label[tails] > state.label[graph.head] + 1)
                assert not violating.any()
            else:
                operations = state.gpu_round(lambda: opened.push_relabel(2))
                opened.to_host("res", device_copy[0])
                opened.to_host("excess", device_copy[1])
                assert (device_copy[0] == state.res).all()
                assert (device_copy[1] == state.excess).all()
            assert operations > 0 and state.last_device == step
            assert not (state.res == before[0]).all() or not (state.excess == before[1]).all()
            state.global_relabel()
            assert_valid_preflow(graph, state.res, state.excess, state.label)
