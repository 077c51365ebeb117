"""`hybrid`: He & Hong 2010, Algorithm 5 (hybrid_mf): hipr on the CPU or the `cuda` kernel on
the GPU, round by round, where the efficiency model of §IV says the work is done fastest.

One state (residuals, excesses, labels, ExcessTotal) passes between the two engines as is
(``HandOver``). A CPU round is the resumable hipr from the current labels until hi_pr would
run its next global update (§V: "CPU will do all the push/relabel operations until aSize
reaches Threshold", checked at each global relabel); a GPU round is one `cuda` round
(Algorithm 1 lines 4-6: labels in, push_relabel_kernel, residuals, labels and excesses out;
residuals and excesses go in only when the last round was on the CPU, lines 5-8). Either
round ends with a global relabel that counts the active vertices (aSize) and takes stranded
excess out of ExcessTotal: after a GPU round He & Hong's global_relabel_cpu (Program 4:
violation cancellation, reverse BFS, marking; Algorithm 5 line 12), after a CPU round the
global update hi_pr was about to run (Algorithm 5 line 17 runs hi_pr "including global and
gap relabeling"; §V: "we have modified the code of Goldberg's version to track the value of
aSize"). The latter skips Program 4's violation cancellation: hipr keeps its labels valid
(no residual arc (u, v) with h(u) > h(v) + 1, label n included), so it would find nothing.
The loop stops when e(s) + e(t) == ExcessTotal. Program 4 runs on ``--threads`` CPU threads
(its violation cancellation and Alvino's Algorithm 13 for its BFS), with the same outcome as
the sequential code; ``--threads 1`` runs both on one thread, the BFS as the sequential one.
He & Hong's is sequential, and on a machine whose GPU rounds lose (eq. 3 then keeps every
round on the CPU) the relabels are where the CPU cores help.

The arbiter (Algorithm 5 line 4) sends the next round to the GPU when aSize > Threshold.
The first round is hipr's (§V: the CPU starts) and Threshold starts small
(``--initial-threshold``), so that the first rounds measure both engines; once both have run,
it is re-tuned after every round by eq. 3 (line 19),

    Threshold = T_overhead * C_cuda * C_cpu / (C_cuda - C_cpu),

with C_cpu and C_cuda the push/relabel operations per second of each engine's latest round
(its wall time without transfers, global relabel included: every round needs one), and
T_overhead the bytes of a GPU round (He & Hong's 3|V| + |E| words: labels in; residuals,
labels, excesses out) over the bandwidth measured on the transfers so far. Where
C_cuda <= C_cpu no aSize makes the GPU worth it and the threshold is infinite.

An infinite threshold keeps the GPU from running; C_cpu is still re-measured every round,
and a CPU round slower than the last GPU round makes eq. 3 finite again.

Each round is recorded in the trace (He & Hong's figure 1): device, active vertices before
and after, threshold, operations, seconds. With ``--device cpu`` the kernel's Numba twin
plays the GPU.
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
    started = time.perf_counter()
    with threads_in_use(params["threads"]), \
            HandOver(graph, options) as state:
        device = state.device
        threshold = float(params["initial_threshold"])
        round_bytes = 2 * state.label.nbytes + state.excess.nbytes + state.res.nbytes
        graph_seconds = device.seconds["transfer"]  # the graph's own copy, not a round's
        rate = {}  # operations per second of each engine's latest round
        while state.unfinished():
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
        KERNEL_CYCLES, THREADS_PARAMETER, block_size_parameter(32),
        Parameter("initial_threshold", int, 64,
                  "hybrid: active vertices above which a round goes to the GPU until both "
                  "engines are measured (He & Hong: 'a small value'); eq. 3 re-tunes it after "
                  "every round", minimum=0),
    ))
