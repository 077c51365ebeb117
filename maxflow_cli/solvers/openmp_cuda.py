"""`openmp-cuda`: Alvino 2015, Algorithm 9 (the OpenMP-GPU hybrid), with Algorithms 10-13.

- Algorithm 10 (initialize): a parallel global labeling (Algorithm 13) of the initial
  residual graph, each vertex's arcs sorted by the label h of their heads, and the labels
  then reset to hi_pr's (1; the sink 0, the source n) before the source arcs are saturated.
  The solve runs on the sorted copy of the graph; its residuals go back to the input's arc
  order at the end. The order is increasing h, heads nearest the sink first: Algorithm 10
  line 2 says "sort its adjacency by h" with no direction, while §4.1.6's prose says "ordem
  decrescente das distâncias em relação ao sorvedouro" (decreasing distance). The two
  disagree, and the same paragraph calls the sort "uma melhoria" (an improvement), which
  only the increasing order is: on this port's CPU path (threshold above every active count,
  2 threads, washington-rlg and genrmf) the decreasing order does 0.9-1.6x hipr's pushes and
  relabels (1.5-1.6x on washington-rlg) and runs 0.6-0.9x hipr's speed, the increasing one
  does 0.7-0.9x hipr's operations and runs 1.0-1.35x hipr's speed; on an H100 (16 threads)
  it took washington-rlg-long-512x1024 from 0.41x to 1.0x hipr and washington-rlg-wide-1024
  from over 8 s to 2.2x. hipr scans arcs in their stored order, so heads nearest the sink
  first means admissible arcs are met first.
- Algorithm 9: while e(s) + e(t) < ExcessTotal, a round on the CPU when the active vertices
  are fewer than ``--active-threshold`` (a fixed parameter, as in Alvino, §4.1.6: it depends
  on the GPU; his is 17000, for a GRID K520), else on the GPU. On an H100 (16 CPU threads,
  the five paper families) no threshold helped: 0 (every round on the GPU) ran 0.1-0.2x
  hipr, 4000 sent genrmf-wide-64's rounds to the GPU at 0.64x, and the runs that never used
  the GPU were the fastest. Every round ends with the parallel global labeling (Algorithm
  13's BFS and marking), which also counts the active vertices; after a GPU round it is
  preceded by He & Hong's violation cancellation (Program 4 lines 1-8: the kernel may leave
  arcs with h(u) > h(v) + 1), which hipr's valid labels never need. The state passes
  between the two through ``hybrid.HandOver``.
- Algorithm 11 (pushrelabel-cpu): hipr until it would run a global update (k > nm in
  Alvino's words, hi_pr's work rule here), where the round's parallel global labeling takes
  its place; its gaps are relabeled by Algorithm 14 (the buckets above the empty one in
  parallel).
- Algorithm 12 (pushrelabel-gpu): kernels/single_loop.cu, each vertex discharged in one loop
  that pushes and finds the lowest neighbour together, the vertices split in 4 launches on 4
  streams (§4.1.2), unrolled loops (§4.1.3).

With ``--device cpu`` the kernel's Numba twin plays the GPU.
"""

import time

import numba
import numpy as np
from numba import prange

from maxflow_cli.pushrelabel.parallel_relabel import Workspace, parallel_reverse_bfs, threads_in_use
from maxflow_cli.pushrelabel.rounds import HandOver
from maxflow_cli.registry import (
    HIPR_PARAMETERS,
    THREADS_PARAMETER,
    Parameter,
    SolveOptions,
    block_size_parameter,
    register_with_kernels,
)
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult

SHORT_LIST = 32  # arcs up to which a vertex's list is sorted in place by insertion; longer
# ones by counting where their heads' distances span few values, else by a merge sort


@numba.njit(parallel=True, cache=True)
def _arcs_by_head_label(first, head, rev, cap, arc_of_input, label):
    """Each vertex's arcs stably sorted by the label of their heads, all vertices in parallel:
    the permuted head, rev, cap and arc_of_input, and `where` (arc a is now arc where[a])."""
    n = first.shape[0] - 1
    arcs = head.shape[0]
    order = np.empty(arcs, np.int32)  # sorted arc k is arc order[k]
    for u in prange(n):
        lo, hi = first[u], first[u + 1]
        if hi - lo <= SHORT_LIST:
            for k in range(lo, hi):
                a, key = k, label[head[k]]
                j = k
                while j > lo and label[head[order[j - 1]]] > key:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = a
        else:
            keys = label[head[lo:hi]]
            low, high = keys.min(), keys.max()
            if high - low <= 4 * (hi - lo):  # a counting sort: few distinct distances
                starts = np.zeros(high - low + 2, np.int64)
                for key in keys:
                    starts[key - low + 1] += 1
                starts = np.cumsum(starts)
                for k in range(hi - lo):
                    slot = keys[k] - low
                    order[lo + starts[slot]] = lo + k
                    starts[slot] += 1
            else:
                ranks = np.argsort(keys, kind="mergesort")
                for k in range(hi - lo):
                    order[lo + k] = lo + ranks[k]
    where = np.empty(arcs, np.int32)
    for k in prange(arcs):
        where[order[k]] = k
    sorted_head, sorted_rev, sorted_cap = np.empty_like(head), np.empty_like(rev), \
        np.empty_like(cap)
    for k in prange(arcs):
        a = order[k]
        sorted_head[k] = head[a]
        sorted_rev[k] = where[rev[a]]
        sorted_cap[k] = cap[a]
    sorted_input = np.empty_like(arc_of_input)
    for i in prange(arc_of_input.shape[0]):
        sorted_input[i] = where[arc_of_input[i]]
    return sorted_head, sorted_rev, sorted_cap, sorted_input, where


def sorted_by_head_label(graph: ResidualGraph, space: Workspace,
                         threads: int) -> tuple[ResidualGraph, np.ndarray]:
    """Algorithm 10 lines 1-2: the graph with each vertex's arcs sorted by increasing
    distance of their heads to the sink (a stable sort: ties keep their order), and `where`:
    arc a of `graph` is arc where[a] of the sorted one. `space` is the BFS's scratch."""
    label = np.empty(graph.n, np.int32)
    parallel_reverse_bfs(graph.first, graph.head, graph.rev, graph.cap, graph.sink, label,
                         space.order, space.claimed, space.buffer, threads)
    head, rev, cap, arc_of_input, where = _arcs_by_head_label(
        graph.first, graph.head, graph.rev, graph.cap, graph.arc_of_input, label)
    return ResidualGraph(graph.n, graph.source, graph.sink, graph.first, head, rev, cap,
                         arc_of_input, graph.network), where


def solve_openmp_cuda(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Alvino's Algorithm 9, on --threads CPU threads and the GPU or the kernel's twin."""
    params = options.params
    with threads_in_use(params["threads"]):
        started = time.perf_counter()
        space = Workspace(graph)  # the sorted graph has the same sizes
        work, where = sorted_by_head_label(graph, space, params["threads"])
        with HandOver(work, options, parallel_gap=True, space=space) as state:
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
                  "active (Alvino's 17000, tuned for a 2013 GPU; on an H100 no crossover was "
                  "found: every threshold that sent rounds to the GPU ran slower than none)",
                  minimum=0),
    ))
