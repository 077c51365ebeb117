"""`gpu-sync`: our device-resident push-relabel, synchronous rounds over a compacted active
list with frequent global relabels on the GPU.

Ideas taken: Baumstark, Blelloch & Shun 2015 (synchronous rounds over the active vertices,
global relabels triggered by work), Goldberg's global-update rule (hi_pr: work since the last
one * frequency > alpha * n + m), He & Hong 2010's lock-free push to the lowest neighbour
(Program 3). The host initialises the preflow (He & Hong's Program 2) and uploads it once;
then it alternates two persistent kernels (kernels/gpu_sync.cu): a global relabel that runs
every BFS level in one launch and lists the active vertices, and rounds until the list is
empty or the work budget is spent. Stage 1 ends when a global relabel finds no active vertex:
then no vertex with excess reaches the sink, and the vertices that do form the sink side of a
minimum cut. Only the kernels' stats cross the bus in between. With ``--device cpu``
the kernels' Numba twins run the same loop on CPU threads.
"""

import time

import numpy as np

from maxflow_cli.kernels import gpu_sync_cpu
from maxflow_cli.kernels.declarations import SYNC_COUNTS
from maxflow_cli.kernels.gpu_sync import SyncKernels, residual_type
from maxflow_cli.pushrelabel.highest_label import timed_stage_two
from maxflow_cli.pushrelabel.relabel import initialize_preflow
from maxflow_cli.registry import Parameter, SolveOptions, register_with_kernels
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult

MAX_ROUNDS = 1 << 20  # rounds per launch: the host looks at the stats at least this often


def solve_gpu_sync(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Global relabel, then rounds and global relabels until a global relabel finds no
    active vertex."""
    params = options.params
    started = time.perf_counter()
    res, excess, _, _ = initialize_preflow(graph, res_type=residual_type(graph))
    frequency = params["global_update_frequency"]
    budget = int((params["alpha"] * graph.n + graph.m) / frequency) if frequency > 0 \
        else 2**62
    device = SyncKernels(options.device, graph, res, excess, params["group_size"])
    try:
        relabels = 1
        stats = device.global_relabel()
        trace = [{"global_relabel": relabels, "active": int(stats[gpu_sync_cpu.ACTIVE])}]
        while stats[gpu_sync_cpu.ACTIVE] > 0:
            stats = device.rounds(params["beta"], budget, MAX_ROUNDS)
            if stats[gpu_sync_cpu.ACTIVE] == 0 or stats[gpu_sync_cpu.STOP]:
                relabels += 1
                stats = device.global_relabel()
                trace.append({"global_relabel": relabels,
                              "rounds": int(stats[gpu_sync_cpu.ROUND]),
                              "active": int(stats[gpu_sync_cpu.ACTIVE])})
        device.download(res, excess)
        times = {"stage1": time.perf_counter() - started} | device.seconds
    finally:
        device.close()
    flow_value = int(excess[graph.sink])
    res = res.astype(np.int64)
    if options.want_flow:
        timed_stage_two(graph, res, excess, times)
    counters = SYNC_COUNTS.read(stats) | {"global_relabels": relabels}
    return SolveResult("gpu-sync", flow_value, res, options.want_flow, times,
                       counters, trace)


register_with_kernels(
    "gpu-sync", "our device-resident push-relabel: synchronous rounds over an active list, "
    "global relabels by a one-launch BFS, all on the GPU",
    "ours, after Baumstark, Blelloch & Shun 2015 and He & Hong 2010", solve_gpu_sync, (
        Parameter("global_update_frequency", float, 0.25,
                  "global relabel when work * this > alpha * n + m (0: only when "
                  "no vertex is active)", minimum=0.0, maximum=1e6),
        Parameter("alpha", int, 6, "weight of n in the global relabel budget",
                  minimum=0, maximum=10**6),
        Parameter("beta", int, 12, "work charged per relabel besides its arc scans",
                  minimum=0, maximum=10**6),
        Parameter("group_size", int, 0, "lanes that discharge a vertex together, a "
                  "power of two up to 32 (0: the mean degree's, rounded up)", minimum=0,
                  maximum=32),
    ))
