"""`openmp-cuda`: Alvino 2015, Algorithm 9 (the OpenMP-GPU hybrid), with Algorithms 10-13.

- Algorithm 10 (initialize): a parallel global labeling (Algorithm 13) of the initial
  residual graph, each vertex's arcs sorted by the label of their heads, in decreasing order
  of distance to the sink as §4.1.6 says, and the labels then reset to hi_pr's (1; the sink
  0, the source n) before the source arcs are saturated. The solve runs on the sorted copy of
  the graph; its residuals go back to the input's arc order at the end.
- Algorithm 9: while e(s) + e(t) < ExcessTotal, a round on the CPU when the active vertices
  are fewer than ``--active-threshold`` (a fixed parameter, as in Alvino), else on the GPU;
  every round ends with the parallel global labeling (He & Hong's Program 4 with
  Algorithm 13 as its BFS: ``parallel_global_relabel``), which also counts the active
  vertices. The state passes between the two through ``hybrid.HandOver``.
- Algorithm 11 (pushrelabel-cpu): hipr until it would run a global update (k > nm in
  Alvino's words, hi_pr's work rule here), where the round's parallel global labeling takes
  its place; gap relabeling stays hipr's own.
- Algorithm 12 (pushrelabel-gpu): kernels/single_loop.cu, each vertex discharged in one loop
  that pushes and finds the lowest neighbour together, the vertices split in 4 launches on 4
  streams (§4.1.2), unrolled loops (§4.1.3).

With ``--device cpu`` the kernel's Numba twin plays the GPU.
"""

import time

import numpy as np

from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult
from maxflow_cli.solvers import Parameter, SolveOptions
from maxflow_cli.solvers.cuda import block_size_parameter, register_with_kernels
from maxflow_cli.solvers.hipr import HIPR_PARAMETERS
from maxflow_cli.solvers.hybrid import HandOver
from maxflow_cli.solvers.parallel_relabel import (THREADS_PARAMETER, Workspace,
                                                  parallel_global_relabel,
                                                  parallel_reverse_bfs, threads_in_use)


def sorted_by_head_label(graph: ResidualGraph, threads: int) -> tuple[ResidualGraph, np.ndarray]:
    """Algorithm 10 lines 1-2: the graph with each vertex's arcs sorted by decreasing
    distance of their heads to the sink (a stable sort: ties keep their order), and `where`:
    arc a of `graph` is arc where[a] of the sorted one."""
    space = Workspace(graph)
    label = np.empty(graph.n, np.int32)
    parallel_reverse_bfs(graph.first, graph.head, graph.rev, graph.cap, graph.sink, label,
                         space.order, space.degree_end, space.buffer, threads)
    tail = np.repeat(np.arange(graph.n, dtype=np.int32), np.diff(graph.first))
    order = np.lexsort((-label[graph.head], tail))  # sorted arc k is arc order[k]
    where = np.empty_like(order)
    where[order] = np.arange(order.shape[0])
    where = where.astype(np.int32)
    return ResidualGraph(graph.n, graph.source, graph.sink, graph.first, graph.head[order],
                         where[graph.rev[order]], graph.cap[order], where[graph.arc_of_input],
                         graph.network), where


def solve_openmp_cuda(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Alvino's Algorithm 9, on --threads CPU threads and the GPU or the kernel's twin."""
    params = options.params
    with threads_in_use(params["threads"]):
        started = time.perf_counter()
        work, where = sorted_by_head_label(graph, params["threads"])
        space = Workspace(work)
        with HandOver(work, options, lambda res, excess, label, marked: parallel_global_relabel(
                work.first, work.head, work.rev, res, excess, label, work.source, work.sink,
                marked, space.order, space.degree_end, space.buffer, space.active,
                params["threads"])) as state:
            threshold = params["active_threshold"]
            while state.unfinished():
                active = state.active
                round_started = time.perf_counter()
                if active < threshold:
                    engine, operations = "cpu", state.cpu_round()
                else:
                    engine, operations = "gpu", state.gpu_round(state.device.single_loop)
                state.global_relabel()
                state.record(engine, active, threshold, operations,
                             time.perf_counter() - round_started)
            result = state.result("openmp-cuda", options.want_flow, started)
    result.res = result.res[where]
    return result


register_with_kernels(
    "openmp-cuda", "hipr with parallel global labeling on the CPU, a single-loop kernel on the "
    "GPU (4 streams) above a fixed number of active vertices",
    "Alvino 2015, Algorithms 9-14 (openmp-cuda)", solve_openmp_cuda,
    HIPR_PARAMETERS + (
        THREADS_PARAMETER, block_size_parameter(256),
        Parameter("active_threshold", int, 17000,
                  "openmp-cuda: a round goes to the GPU when at least this many vertices are "
                  "active (Alvino's 17000 was for a 2013 GPU)"),
    ))
