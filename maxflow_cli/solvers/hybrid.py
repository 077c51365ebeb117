"""`hybrid`: He & Hong 2010, Algorithm 5 (hybrid_mf): hipr on the CPU or the `cuda` kernel on
the GPU, round by round, where the efficiency model of §IV says the work is done fastest.

The rounds work on one state (pushrelabel.rounds.HandOver): a CPU round is hipr from the
current labels until its next global update (§V), a GPU round one `cuda` round (Algorithm 1
lines 4-8). Each ends with a global relabel on ``--threads`` CPU threads that counts the
active vertices (aSize) and takes stranded excess out of ExcessTotal. The loop stops when
e(s) + e(t) == ExcessTotal.

The arbiter (Algorithm 5 line 4) sends the next round to the GPU when aSize > Threshold. The
CPU starts (§V) and Threshold starts small (``--initial-threshold``), so that the first rounds
measure both engines; from then on eq. 3 (line 19) re-tunes it after every round:

    Threshold = T_overhead * C_cuda * C_cpu / (C_cuda - C_cpu),

C_cpu and C_cuda being the push/relabel operations per second of each engine's latest round
(its wall time without transfers, its global relabel included) and T_overhead the bytes of a
GPU round (3|V| + |E| words) over the bandwidth measured so far. Where C_cuda <= C_cpu the
threshold is infinite; C_cpu is still measured every round, and a CPU round slower than the
last GPU round makes it finite again.

Each round is recorded in the trace (He & Hong's figure 1). With ``--device cpu`` the kernel's
Numba twin plays the GPU.
"""

import math
import time

from maxflow_cli.pushrelabel.parallel_relabel import threads_in_use
from maxflow_cli.pushrelabel.rounds import HandOver
from maxflow_cli.registry import (
    HIPR_PARAMETERS,
    KERNEL_CYCLES,
    THREADS_PARAMETER,
    Parameter,
    SolveOptions,
    block_size_parameter,
    register_with_kernels,
)
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def eq3_threshold(t_overhead: float, c_cuda: float, c_cpu: float) -> float:
    """He & Hong 2010, eq. 3: the aSize above which the GPU's efficiency (eq. 1) beats the
    CPU's (eq. 2); infinite when the GPU is not faster at all."""
    if c_cuda <= c_cpu:
        return math.inf
    return t_overhead * c_cuda * c_cpu / (c_cuda - c_cpu)


def solve_hybrid(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """He & Hong's Algorithm 5, on the GPU or on the kernel's twin."""
    params = options.params
    with threads_in_use(params["threads"]):
        started = time.perf_counter()  # after the thread count is chosen, as lockfree's
        with HandOver(graph, options) as state:
            device = state.device
            threshold = float(params["initial_threshold"])
            round_bytes = 2 * state.label.nbytes + state.excess.nbytes + state.res.nbytes
            graph_seconds = device.seconds["transfer"]  # the graph's own copy, not a round's
            rate = {}  # operations per second of each engine's latest round
            while state.unfinished(state.active, "hybrid"):
                active = state.active
                round_started = time.perf_counter()
                transfer_before = device.seconds["transfer"]
                if active > threshold and state.trace:
                    engine = "gpu"
                    operations = state.gpu_round(
                        lambda: device.push_relabel(params["kernel_cycles"]))
                else:
                    engine = "cpu"
                    operations = state.cpu_round()
                state.global_relabel()
                transferred = device.seconds["transfer"] - transfer_before
                seconds = time.perf_counter() - round_started - transferred
                rate[engine] = operations / max(seconds, 1e-9)
                state.record(engine, active, threshold, operations, seconds,
                             transfer_seconds=transferred)
                if len(rate) == 2:
                    bandwidth = state.bytes_moved / max(device.seconds["transfer"] - graph_seconds,
                                                        1e-9)
                    threshold = eq3_threshold(round_bytes / bandwidth, rate["gpu"], rate["cpu"])
            return state.result("hybrid", options.want_flow, started)


register_with_kernels(
    "hybrid", "hipr on the CPU or the cuda kernel on the GPU, round by round, as the measured "
    "rates say (eq. 3)", "He & Hong 2010, Algorithm 5 and eq. 1-3 (hybrid_mf)", solve_hybrid,
    HIPR_PARAMETERS + (
        KERNEL_CYCLES, THREADS_PARAMETER, block_size_parameter(32, "small, as He & Hong advise"),
        Parameter("initial_threshold", int, 64,
                  "active vertices above which a round goes to the GPU until both "
                  "engines are measured (He & Hong: 'a small value'); eq. 3 re-tunes it after "
                  "every round", minimum=0),
    ))
