"""`cuda`: He & Hong 2010, Algorithm 1 (cuda_mf): lock-free push-relabel on the GPU, global
relabeling on the CPU.

Program 2 initialises on the host (labels 0, the source's n; source arcs saturated;
ExcessTotal their sum) and the residuals and excesses go to the device once. Each round
copies the labels in, runs push_relabel_kernel (Program 3, KERNEL_CYCLES iterations per
thread), copies residuals, labels and excesses back and runs global_relabel_cpu (Program 4);
when violation cancellation changed residuals and excesses, they go back to the device too.
The loop stops when e(s) + e(t) == ExcessTotal: no active vertex is left. He & Hong's e(s)
is the flow returned to the source, which here (excess = inflow - outflow everywhere) is the
source's excess plus the initial ExcessTotal. The flow value is e(t); hi_pr's stage 2 makes a
flow of the preflow when asked. With ``--device cpu`` the same host loop drives the kernels'
Numba twins.

On a recent GPU an idle thread's iteration costs far less than a push, so the threads ahead
of the excess finish their KERNEL_CYCLES before it reaches them, and relabels that race with
pushes lift a few vertices to n or more: each launch moves excess a few hundred hops, and
Genrmf or Washington-RLG instances take a thousand rounds or more, each with an O(m) global
relabel on the CPU (see README, GPU solvers).
"""

import time

import numpy as np

from maxflow_cli.kernels.devices import default_device, device_unavailable, open_device
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult
from maxflow_cli.registry import INT32_MAX, Parameter, SolveOptions, register_compiled
from maxflow_cli.pushrelabel.highest_label import timed_stage_two
from maxflow_cli.pushrelabel.relabel import global_relabel_cpu, initialize_preflow, unfinished


def cycles_parameter(name: str, default: int, help: str) -> Parameter:
    """A count of kernel iterations or launches: at least 1 (a kernel that runs no cycle
    never ends), at most INT32_MAX (the kernels take it as an int)."""
    return Parameter(name, int, default, help, minimum=1, maximum=INT32_MAX)


# Shared by cuda and hybrid (the cuda kernel is hybrid's GPU round).
KERNEL_CYCLES = cycles_parameter(
    "kernel_cycles", 4096,
    "cuda, hybrid: push/relabel iterations per thread per kernel launch (He & Hong's "
    "KERNEL_CYCLES: 4096 for Genrmf and Washington-RLG, 32 for Acyclic-Dense)")


def block_size_parameter(default: int) -> Parameter:
    """--block-size, shared by the solvers with kernels; each has its seed's default. The
    range is checked with the other parameters, the multiple of 32 by open_device."""
    return Parameter("block_size", int, default,
                     "threads per CUDA block, a multiple of 32 (cuda: 32, small as He & Hong "
                     "advise; gpu-bfs: 1024, Gutiérrez Mota's)", minimum=32, maximum=1024)


def finish(name: str, graph: ResidualGraph, device, res, excess, want_flow: bool,
           times: dict, counters: dict, trace: list) -> SolveResult:
    """The SolveResult of a stage-1 preflow, after hi_pr's stage 2 when a flow is wanted."""
    flow_value = int(excess[graph.sink])
    if want_flow:
        timed_stage_two(graph, res, excess, times)
    times.update(device.seconds)
    return SolveResult(name, flow_value, np.array(res), want_flow, times,
                       device.counters() | counters, trace)


def solve_cuda(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """He & Hong's Algorithm 1, on the GPU or on the kernels' twins."""
    params = options.params
    started = time.perf_counter()
    device = open_device(options.device, graph, params["block_size"])
    try:
        source, sink = graph.source, graph.sink
        res, excess, label, excess_total = initialize_preflow(graph, device.host_array)
        initial_total = excess_total
        device.to_device("res", res)
        device.to_device("excess", excess)
        marked = np.zeros(graph.n, np.bool_)
        order = np.empty(graph.n, np.int32)
        relabel_seconds = 0.0
        cancelled_arcs = 0
        trace = []
        while unfinished(excess, source, sink, initial_total, excess_total):
            device.to_device("label", label)
            device.push_relabel(params["kernel_cycles"])
            for name, host in (("res", res), ("label", label), ("excess", excess)):
                device.to_host(name, host)
            relabel_started = time.perf_counter()
            cancelled, stranded, active = global_relabel_cpu(
                graph.first, graph.head, graph.rev, res, excess, label, source, sink, marked,
                order)
            relabel_seconds += time.perf_counter() - relabel_started
            excess_total -= stranded
            unfinished(excess, source, sink, initial_total, excess_total, active, "cuda")
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
        return finish("cuda", graph, device, res, excess, options.want_flow, times, counters,
                      trace)
    finally:
        device.close()


def register_with_kernels(name: str, summary: str, citation: str, solve,
                          parameters: tuple[Parameter, ...]) -> None:
    """Register a solver whose kernels run on the GPU (the default where one can) or, with
    --device cpu, as their Numba twins."""
    register_compiled(name, summary, citation, solve, parameters, devices=("gpu", "cpu"),
                      unavailable=device_unavailable, default_device=default_device)


register_with_kernels(
    "cuda", "lock-free push-relabel kernel on the GPU, global relabeling on the CPU",
    "He & Hong 2010, Algorithm 1 and Programs 2-4 (cuda_mf)", solve_cuda,
    (KERNEL_CYCLES, block_size_parameter(32)))
