"""`gpu-bfs`: Gutiérrez Mota 2012, alg. 4.1-4.8 and appendix B: the whole push-relabel loop on
the GPU.

The host initialises (alg. 4.2, as He & Hong's Program 2) and uploads the state once. Then
push_relabel_kernel runs KERNEL_INNER_CYCLES iterations per thread per launch, and the host
reads back one flag per launch: whether the launch saw an active vertex. Every
KERNEL_OUTER_CYCLES launches the GPU relabels globally (alg. 4.4): violation cancellation
(alg. 4.5), label reset (alg. 4.6), then a level-synchronous reverse BFS from the sink and
one from the source with labels n + distance (alg. 4.7-4.8), one launch and one flag read per
level. Nothing else crosses the bus until the final residuals and excesses come back; hi_pr's
stage 2 makes a flow of them when asked. With ``--device cpu`` the same host loop drives the
kernels' Numba twins.

Two departures from the seed, both for correctness. The seed stops at the first launch that
sees no active vertex; but a launch can end with a vertex labelled n or more that could still
reach the sink (its relabel raced a push into it), so here the loop stops only when a launch
right after a global relabel sees no active vertex. Vertices that neither BFS reaches are
labelled 2n, not INT_MAX, whose relabel to INT_MAX + 1 would wrap round.
"""

import time

from maxflow_cli.pushrelabel.rounds import DevicePreflow
from maxflow_cli.registry import (
    SolveOptions,
    block_size_parameter,
    cycles_parameter,
    register_with_kernels,
)
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def global_relabel_gpu(device, n: int) -> int:
    """Gutiérrez Mota's global relabel (alg. 4.4) on the device; returns the BFS levels run.

    Labels become the distance to the sink, else n + the distance to the source, else 2n.
    """
    unreached = 2 * n
    device.cancel_violations()
    device.reset_labels(unreached)
    levels = 0
    for start in (0, n):  # from the sink (label 0), then from the source (label n)
        level = start
        while device.bfs_level(level, unreached):
            level += 1
        levels += level - start + 1
    return levels


def solve_gpu_bfs(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Gutiérrez Mota's all-GPU push-relabel, on the GPU or on the kernels' twins."""
    params = options.params
    started = time.perf_counter()
    with DevicePreflow(graph, options) as state:
        device = state.device
        for name in ("res", "excess", "label"):
            device.to_device(name, getattr(state, name))
        relabel_seconds = 0.0
        push_relabel_launches = 0
        launches = 0  # since the last global relabel
        just_relabeled = False
        trace = []
        while True:
            active = device.push_relabel(params["inner_cycles"])
            push_relabel_launches += 1
            if not active and just_relabeled:
                break
            launches += 1
            just_relabeled = not active or launches == params["outer_cycles"]
            if just_relabeled:
                relabel_started = time.perf_counter()
                levels = global_relabel_gpu(device, graph.n)
                relabel_seconds += time.perf_counter() - relabel_started
                trace.append({"round": len(trace) + 1, "launches": launches,
                              "bfs_levels": levels})
                launches = 0
        device.to_host("res", state.res)
        device.to_host("excess", state.excess)
        times = {"stage1": time.perf_counter() - started, "global_relabel": relabel_seconds}
        counters = {"rounds": len(trace), "global_relabels": len(trace),
                    "push_relabel_launches": push_relabel_launches,
                    "bfs_levels": sum(entry["bfs_levels"] for entry in trace)}
        return state.finish("gpu-bfs", options.want_flow, times, counters, trace)


register_with_kernels(
    "gpu-bfs", "lock-free push-relabel with violation cancellation and reverse BFS, all on the GPU",
    "Gutiérrez Mota 2012, alg. 4.1-4.8 and appendix B", solve_gpu_bfs, (
        cycles_parameter("inner_cycles", 5,
                         "push/relabel iterations per thread per kernel launch "
                         "(Gutiérrez Mota's KERNEL_INNER_CYCLES)"),
        cycles_parameter("outer_cycles", 220,
                         "kernel launches between global relabels "
                         "(KERNEL_OUTER_CYCLES)"),
        block_size_parameter(1024, "Gutiérrez Mota's"),
    ))
