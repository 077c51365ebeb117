"""`openmp-cuda`: Alvino 2015, Algorithm 9 (the OpenMP-GPU hybrid), with Algorithms 10-14.

- Algorithm 10 (initialize): a parallel global labeling (Algorithm 13) of the initial
  residual graph, each vertex's arcs sorted by the label h of their heads, then hi_pr's
  labels (1; the sink 0, the source n) before the source arcs are saturated. The solve runs
  on the sorted copy of the graph; its residuals go back to the input's arc order at the end.
  The sort is by increasing h, heads nearest the sink first, so that hipr, which scans arcs
  in their stored order, meets admissible arcs first. Algorithm 10 gives no direction;
  §4.1.6's prose says decreasing distance but calls the sort an improvement, which only the
  increasing order is (README, GPU solvers).
- Algorithm 9: while e(s) + e(t) < ExcessTotal, a round on the CPU when fewer than
  ``--active-threshold`` vertices are active (fixed, as in §4.1.6: his 17000 is for a GRID
  K520), else on the GPU. Every round ends with the parallel global labeling (Algorithm 13's
  BFS and marking), which counts the active vertices; after a GPU round He & Hong's violation
  cancellation (2010, Program 4 lines 1-8) precedes it. The state passes between the two
  through pushrelabel.rounds.HandOver.
- Algorithm 11 (pushrelabel-cpu): hipr until it would run a global update, whose place the
  round's parallel global labeling takes; gaps by Algorithm 14.
- Algorithm 12 (pushrelabel-gpu): kernels/single_loop.cu, the vertices split in 4 launches on
  4 streams (§4.1.2), unrolled loops (§4.1.3). A GPU round sweeps the kernel over the
  vertices again and again on the device until Algorithm 11's global-update rule, as a CPU
  round does (sweep_until_global_update): our departure from one launch per round, which
  gave a GPU round 1/45 to 1/65 of a CPU round's pushes and relabels (the twin, Genrmf and
  Washington-RLG) for the same parallel global labeling.

With ``--device cpu`` the kernel's Numba twin plays the GPU.
"""

import time

import numba
import numpy as np
from numba import prange

from maxflow_cli.kernels.preflow import SINGLE_LOOP_STREAMS
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

MOST_SWEEPS_QUEUED = 16  # sweeps a GPU round queues between two looks at the counters
SHORT_LIST = 32  # arcs up to which a vertex's list is sorted in place by insertion; longer
# ones by counting where their heads' distances span few values, else by a merge sort


@numba.njit(cache=True)
def _sort_arcs(head, label, lo, hi, order):
    """Arcs lo .. hi-1 stably sorted by the label of their heads into order[lo:hi]."""
    if hi - lo <= SHORT_LIST:
        for k in range(lo, hi):
            key = label[head[k]]
            j = k
            while j > lo and label[head[order[j - 1]]] > key:
                order[j] = order[j - 1]
                j -= 1
            order[j] = k
        return
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


@numba.njit(parallel=True, cache=True)
def _arcs_by_head_label(first, head, rev, arc_of_input, label):
    """Each vertex's arcs stably sorted by the label of their heads, all vertices in parallel:
    the permuted head, rev and arc_of_input, and `where` (arc a is now arc where[a])."""
    n = first.shape[0] - 1
    arcs = head.shape[0]
    order = np.empty(arcs, np.int32)  # sorted arc k is arc order[k]
    for u in prange(n):
        _sort_arcs(head, label, first[u], first[u + 1], order)
    where = np.empty(arcs, np.int32)
    for k in prange(arcs):
        where[order[k]] = k
    sorted_head, sorted_rev = np.empty_like(head), np.empty_like(rev)
    for k in prange(arcs):
        a = order[k]
        sorted_head[k] = head[a]
        sorted_rev[k] = where[rev[a]]
    sorted_input = np.empty_like(arc_of_input)
    for i in prange(arc_of_input.shape[0]):
        sorted_input[i] = where[arc_of_input[i]]
    return sorted_head, sorted_rev, sorted_input, where


def sorted_by_head_label(graph: ResidualGraph, space: Workspace,
                         threads: int) -> tuple[ResidualGraph, np.ndarray]:
    """Algorithm 10 lines 1-2: the graph with each vertex's arcs sorted by increasing
    distance of their heads to the sink (a stable sort: ties keep their order), and `where`:
    arc a of `graph` is arc where[a] of the sorted one. `space` is the BFS's scratch."""
    label = np.empty(graph.n, np.int32)
    parallel_reverse_bfs(graph.first, graph.head, graph.rev, graph.cap, graph.sink, label,
                         space.order, space.claimed, space.buffer, threads)
    head, rev, arc_of_input, where = _arcs_by_head_label(
        graph.first, graph.head, graph.rev, graph.arc_of_input, label)
    return ResidualGraph(graph.n, graph.source, graph.sink, graph.first, head, rev, graph.caps,
                         arc_of_input), where


def sweep_until_global_update(device, graph: ResidualGraph, params: dict) -> None:
    """Algorithm 12 swept over every vertex, again and again on the device, until a sweep
    does nothing (no push, no relabel), finds fewer than --active-threshold vertices active
    (Algorithm 9 line 5 sends the next round to the CPU), or the work since the round began
    reaches the rule of Algorithm 11 line 9 with hi_pr's constants, the rule that ends a CPU
    round: work * global_update_frequency > alpha * n + m, a relabel charged beta plus its
    arc scan (the average out-degree here: the kernel counts relabels, not arcs). The host
    looks at the counters after 1, 2, 4, ... sweeps queued at once (at most
    MOST_SWEEPS_QUEUED), so that a round of many short sweeps does not wait on the host
    between them; the stop is tested on the last sweep of a batch.

    Alvino's Algorithm 9 launches the kernel once per round. One sweep discharges each vertex
    once, and excess a vertex receives after its thread ended waits for the next sweep, so a
    round of one sweep does little work and pays a whole parallel global labeling and the
    state's round trip over the bus for it. Sweeping on the device keeps the state there:
    only 4 bytes (the active count) and the 3 counters cross per batch of sweeps."""
    arcs = graph.head.shape[0]
    limit = params["alpha"] * graph.n + arcs
    relabel_work = params["beta"] + arcs / graph.n
    threshold, frequency = params["active_threshold"], params["global_update_frequency"]
    work, sweeps = 0.0, 1
    counters = device.counters()
    while True:
        active = device.single_loop(sweeps)
        before, counters = counters, device.counters()
        relabels = counters["relabels"] - before["relabels"]
        work += relabels * relabel_work
        if counters["pushes"] - before["pushes"] + relabels == 0 or active < threshold or \
                work * frequency > limit:
            return
        sweeps = min(2 * sweeps, MOST_SWEEPS_QUEUED)


def solve_openmp_cuda(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Alvino's Algorithm 9, on --threads CPU threads and the GPU or the kernel's twin."""
    params = options.params
    with threads_in_use(params["threads"]) as threads:
        started = time.perf_counter()
        space = Workspace(graph)  # the sorted graph has the same sizes
        work, where = sorted_by_head_label(graph, space, threads)
        with HandOver(work, options, parallel_gap=True, space=space) as state:
            threshold = params["active_threshold"]
            while state.unfinished(state.active, "openmp-cuda"):
                active = state.active
                round_started = time.perf_counter()
                launches = state.device.launches
                if active < threshold:
                    engine, operations = "cpu", state.cpu_round()
                else:
                    engine, operations = "gpu", state.gpu_round(
                        lambda: sweep_until_global_update(state.device, work, params))
                state.global_relabel()
                state.record(engine, active, threshold, operations,
                             time.perf_counter() - round_started,
                             sweeps=(state.device.launches - launches) // SINGLE_LOOP_STREAMS)
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
                  "a round goes to the GPU when at least this many vertices are "
                  "active (Alvino's 17000, tuned for a 2013 GPU; see the README for newer "
                  "ones)",
                  minimum=0),
    ))
