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

from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels.devices import default_device, device_unavailable, open_device
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult
from maxflow_cli.solvers import Parameter, SolveOptions, SolverSpec, register
from maxflow_cli.solvers.hipr import compile_on_tiny_graph, hipr_stage_two
from maxflow_cli.solvers.relabel import global_relabel_cpu, saturate_source_arcs


def require_positive(params: dict, *names: str) -> None:
    """ParameterError for a named parameter below 1 (a kernel that runs no cycle never ends)."""
    for name in names:
        if params[name] < 1:
            raise ParameterError(f"--{name.replace('_', '-')} {params[name]}: must be at least 1")


def block_size_parameter(default: int) -> Parameter:
    """--block-size, shared by the solvers with kernels; each has its seed's default."""
    return Parameter("block_size", int, default,
                     "threads per CUDA block, a multiple of 32 (cuda: 32, small as He & Hong "
                     "advise; gpu-bfs: 1024, Gutiérrez Mota's)")


def initialize(graph: ResidualGraph, device):
    """He & Hong 2010, Program 2 (Gutiérrez Mota 2012, alg. 4.2) in the device's host arrays:
    (res, excess, label, ExcessTotal)."""
    res = device.host_array(graph.cap.shape[0], np.int64)
    res[:] = graph.cap
    excess = device.host_array(graph.n, np.int64)
    excess[:] = 0
    label = device.host_array(graph.n, np.int32)
    label[:] = 0
    label[graph.source] = graph.n
    excess_total = saturate_source_arcs(graph.first, graph.head, graph.rev, res, excess,
                                        graph.source)
    return res, excess, label, excess_total


def finish(name: str, graph: ResidualGraph, device, res, excess, want_flow: bool,
           times: dict, counters: dict, trace: list) -> SolveResult:
    """The SolveResult of a stage-1 preflow, after hi_pr's stage 2 when a flow is wanted."""
    flow_value = int(excess[graph.sink])
    if want_flow:
        started = time.perf_counter()
        hipr_stage_two(graph.first, graph.head, graph.rev, res, graph.cap, excess,
                       graph.source, graph.sink)
        times["stage2"] = time.perf_counter() - started
    times.update(device.seconds)
    return SolveResult(name, flow_value, np.array(res), want_flow, times,
                       device.counters() | counters, trace)


def solve_cuda(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """He & Hong's Algorithm 1, on the GPU or on the kernels' twins."""
    params = options.params
    require_positive(params, "kernel_cycles")
    started = time.perf_counter()
    device = open_device(options.device, graph, params["block_size"])
    try:
        source, sink = graph.source, graph.sink
        res, excess, label, excess_total = initialize(graph, device)
        initial_total = excess_total
        device.to_device("res", res)
        device.to_device("excess", excess)
        marked = np.zeros(graph.n, np.bool_)
        order = np.empty(graph.n, np.int32)
        relabel_seconds = 0.0
        cancelled_arcs = 0
        trace = []
        while excess[source] + initial_total + excess[sink] < excess_total:
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
            if active == 0 and excess[source] + initial_total + excess[sink] != excess_total:
                raise RuntimeError("cuda: no active vertex is left but e(s) + e(t) != "
                                   "ExcessTotal: the excess accounting is broken (a bug)")
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
    register(SolverSpec(name, summary, citation, solve,
                        prepare=lambda options: compile_on_tiny_graph(solve, options),
                        parameters=parameters, devices=("gpu", "cpu"),
                        unavailable=device_unavailable, default_device=default_device))


register_with_kernels(
    "cuda", "lock-free push-relabel kernel on the GPU, global relabeling on the CPU",
    "He & Hong 2010, Algorithm 1 and Programs 2-4 (cuda_mf)", solve_cuda, (
        Parameter("kernel_cycles", int, 4096,
                  "cuda: push/relabel iterations per thread per kernel launch (He & Hong's "
                  "KERNEL_CYCLES: 4096 for Genrmf and Washington-RLG, 32 for Acyclic-Dense)"),
        block_size_parameter(32),
    ))
