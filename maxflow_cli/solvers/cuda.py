"""`cuda`: He & Hong 2010, Algorithm 1 (cuda_mf): lock-free push-relabel on the GPU, global
relabeling on the CPU.

Program 2 initialises on the host, and the residuals and excesses go to the device once. Each
round copies the labels in, runs push_relabel_kernel (Program 3, KERNEL_CYCLES iterations per
thread), copies residuals, labels and excesses back and runs global_relabel_cpu (Program 4);
residuals and excesses go back to the device only when violation cancellation changed them.
The loop stops when e(s) + e(t) == ExcessTotal (relabel.unfinished). With ``--device cpu``
the same host loop drives the kernels' Numba twins.

On a recent GPU the threads ahead of the excess finish their KERNEL_CYCLES before it reaches
them, so a launch moves excess a few hundred hops, and Genrmf or Washington-RLG instances take
a thousand rounds or more (README, GPU solvers).
"""

import time

import numpy as np

from maxflow_cli.pushrelabel.relabel import global_relabel_cpu
from maxflow_cli.pushrelabel.rounds import DevicePreflow
from maxflow_cli.registry import (
    KERNEL_CYCLES,
    SolveOptions,
    block_size_parameter,
    register_with_kernels,
)
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def solve_cuda(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """He & Hong's Algorithm 1, on the GPU or on the kernels' twins."""
    params = options.params
    started = time.perf_counter()
    with DevicePreflow(graph, options) as state:
        device, res, excess, label = state.device, state.res, state.excess, state.label
        device.to_device("res", res)
        device.to_device("excess", excess)
        marked = np.zeros(graph.n, np.bool_)
        order = np.empty(graph.n, np.int32)
        relabel_seconds = 0.0
        cancelled_arcs = 0
        trace = []
        active = None  # known after the first global relabel
        while state.unfinished(active, "cuda"):
            device.to_device("label", label)
            device.push_relabel(params["kernel_cycles"])
            for name, host in (("res", res), ("label", label), ("excess", excess)):
                device.to_host(name, host)
            relabel_started = time.perf_counter()
            cancelled, stranded, active = global_relabel_cpu(
                graph.first, graph.head, graph.rev, res, excess, label, graph.source,
                graph.sink, marked, order)
            relabel_seconds += time.perf_counter() - relabel_started
            state.excess_total -= stranded
            if cancelled:
                device.to_device("res", res)
                device.to_device("excess", excess)
            cancelled_arcs += cancelled
            trace.append({"round": len(trace) + 1, "active": active, "cancelled": cancelled,
                          "stranded": int(stranded)})
        times = {"stage1": time.perf_counter() - started, "global_relabel": relabel_seconds}
        counters = {"rounds": len(trace), "global_relabels": len(trace),
                    "violations_cancelled": cancelled_arcs,
                    "unreachable_vertices": int(marked.sum())}
        return state.finish("cuda", options.want_flow, times, counters, trace)


register_with_kernels(
    "cuda", "lock-free push-relabel kernel on the GPU, global relabeling on the CPU",
    "He & Hong 2010, Algorithm 1 and Programs 2-4 (cuda_mf)", solve_cuda,
    (KERNEL_CYCLES, block_size_parameter(32, "small, as He & Hong advise")))
