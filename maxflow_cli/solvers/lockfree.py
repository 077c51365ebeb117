"""`lockfree`: Hong's lock-free push-relabel on CPU threads (Hong 2008, in Alvino 2015, §3.1,
Algorithm 1): the algorithm of the `cuda` kernel (He & Hong 2010, Program 3), in Numba.

An active vertex u pushes min(e(u), c_f(u, v)) to its lowest residual neighbour v when
h(u) > h(v), or relabels to h(v) + 1; the four updates of a push are atomic read-modify-writes
(maxflow_cli.atomics), and only u's thread writes h(u) or lowers e(u) and the residuals of u's
arcs, so what it reads of them are lower bounds and the preflow stays valid. The threads are
the `--threads` workers of one parallel region: in each pass they discharge the vertices of
the active list (one chunk each), a vertex whose excess a push raises from 0 entering the next
pass's list once (a compare-and-swap on its stamp), local lists merged by a prefix sum as in
Alvino's Algorithm 13. After hi_pr's amount of work (work * frequency > alpha * n + m; a
relabel costs beta plus the arcs it scans) the passes stop for a global relabel: violation
cancellation, the parallel reverse BFS, stranded excess out of ExcessTotal (He & Hong 2010,
Program 4). The loop ends when e(s) + e(t) == ExcessTotal.
"""

import time

import numba
import numpy as np
from numba import prange

from maxflow_cli.atomics import atomic_add, atomic_cas, atomic_load, atomic_store
from maxflow_cli.pushrelabel.highest_label import timed_stage_two
from maxflow_cli.pushrelabel.parallel_relabel import (
    Workspace,
    barrier,
    chunk,
    gather,
    parallel_global_relabel,
    threads_in_use,
)
from maxflow_cli.pushrelabel.relabel import initialize_preflow, unfinished
from maxflow_cli.registry import HIPR_PARAMETERS, THREADS_PARAMETER, SolveOptions, register_compiled
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult
from maxflow_cli.steps import lowest_neighbour

PUSHES, RELABELS, WORK, PASSES = range(4)
COUNTER_NAMES = ("pushes", "relabels", "work", "passes")


@numba.njit(cache=True)
def region(ends, i):
    """Where item i's share of the scratch buffer begins: the out-degrees before it."""
    return ends[i - 1] if i > 0 else 0


@numba.njit(cache=True)
def merge_own_frontier(t, threads, first, found, local, buffer, out, out_ends):
    """Alvino 2015, Algorithm 13 line 15, thread t's share: after a barrier, every thread
    reads the sizes `found` and the out-degree totals (found[threads + k]) of all local
    frontiers, takes their prefix sums, and copies its own from buffer[local:] into its place
    in out, with the cumulative out-degrees into out_ends. Returns the merged size."""
    place = 0
    running = 0
    total = 0
    for k in range(threads):
        if k < t:
            place += found[k]
            running += found[threads + k]
        total += found[k]
    for i in range(found[t]):
        v = buffer[local + i]
        running += first[v + 1] - first[v]
        out[place + i] = v
        out_ends[place + i] = running
    return total


@numba.njit(cache=True)
def lockfree_discharge(u, n, sink, first, head, rev, res, excess, label, beta, stamp, queued,
                       buffer, local, found, t, tally):
    """Hong's Algorithm 1, lines 19-39, for vertex u until it is inactive: the kernel's step
    (push_relabel_cpu.push_relabel_step) with atomic updates. A vertex whose excess a push
    raises from 0 (the sink's never; the source's is never positive) is queued for the next
    pass: thread t's local frontier is buffer[local:],
    found[t] long, the out-degrees of its vertices summed in found[threads + t]."""
    threads = found.shape[0] // 3
    while True:
        e = atomic_load(excess, u)
        h = label[u]
        if e <= 0 or h >= n:
            return
        lowest_arc, lowest_label = lowest_neighbour(u, first, head, res, label)
        if lowest_arc < 0:
            return
        if h > lowest_label:
            delta = min(e, atomic_load(res, lowest_arc))
            v = head[lowest_arc]
            atomic_add(res, rev[lowest_arc], delta)
            atomic_add(res, lowest_arc, -delta)
            if atomic_add(excess, v, delta) <= 0 and v != sink:
                seen = atomic_load(queued, v)
                if seen != stamp and atomic_cas(queued, v, seen, stamp) == seen:
                    buffer[local + found[t]] = v
                    found[t] += 1
                    found[threads + t] += first[v + 1] - first[v]
            atomic_add(excess, u, -delta)
            tally[PUSHES] += 1
        else:
            atomic_store(label, u, lowest_label + 1)
            tally[RELABELS] += 1
            tally[WORK] += beta + first[u + 1] - first[u]


@numba.njit(parallel=True, cache=True)
def lockfree_passes(first, head, rev, res, excess, label, sink, lists, ends, size, queued,
                    stamp, buffer, budget, beta, threads, counters):
    """Passes over the active list lists[0][:size] (cumulative out-degrees in ends[0]) by
    `threads` gathered threads, until it is empty or the work done reaches `budget`; two
    barriers a pass. Adds to `counters`; returns the stamp of the last pass, or -1 where the
    threads could not be gathered (nothing was done)."""
    n = label.shape[0]
    sync = np.zeros(4, np.int64)
    found = np.zeros(3 * threads, np.int64)  # frontier sizes, their degrees, work done
    tallies = np.zeros((threads, 8), np.int64)  # a cache line each
    for worker in prange(threads):
        t = np.int64(worker)  # see parallel_relabel's note on prange indices
        if not gather(sync, threads):
            continue
        tally = tallies[t]
        parity = 0
        length = size
        pass_stamp = stamp
        work = 0
        while length > 0 and work < budget:
            pass_stamp += 1
            tally[PASSES] += 1
            lo, hi = chunk(0, length, threads, t)
            local = region(ends[parity], lo)
            found[t] = 0
            found[threads + t] = 0
            for i in range(lo, hi):
                lockfree_discharge(lists[parity][i], n, sink, first, head, rev, res, excess, label,
                                   beta, pass_stamp, queued, buffer, local, found, t, tally)
            found[2 * threads + t] = tally[WORK]
            barrier(sync, threads)
            work = 0
            for k in range(threads):
                work += found[2 * threads + k]
            length = merge_own_frontier(t, threads, first, found, local, buffer,
                                        lists[1 - parity], ends[1 - parity])
            barrier(sync, threads)
            parity = 1 - parity
        if t == 0:
            sync[3] = pass_stamp
    if sync[0] < 0:
        return -1
    for t in range(threads):
        for k in range(4):
            counters[k] += tallies[t, k]
    return sync[3]


def solve_lockfree(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Hong's lock-free push-relabel on --threads CPU threads, with parallel global relabels."""
    params = options.params
    with threads_in_use(params["threads"]) as threads:
        return _solve(graph, options, params, threads)


def _solve(graph, options, params, threads):
    first, head, rev, source, sink = graph.first, graph.head, graph.rev, graph.source, graph.sink
    started = time.perf_counter()
    res, excess, label, excess_total = initialize_preflow(graph)  # Hong's INIT
    initial_total = excess_total
    space = Workspace(graph)
    lists = np.empty((2, graph.n), np.int32)
    ends = np.empty((2, graph.n), np.int64)
    queued = np.zeros(graph.n, np.int32)
    counters = np.zeros(4, np.int64)
    frequency = params["global_update_frequency"]  # 0: relabel globally only when idle
    budget = (params["alpha"] * graph.n + graph.m) / frequency if frequency else np.inf
    degree = np.diff(first)
    stamp = 0
    relabel_seconds = 0.0
    cancelled_arcs = 0
    trace = []
    while True:
        relabel_started = time.perf_counter()
        cancelled, stranded, active = parallel_global_relabel(
            first, head, rev, res, excess, label, source, sink, space.marked, space.order,
            space.claimed, space.buffer, space.active, threads)
        relabel_seconds += time.perf_counter() - relabel_started
        excess_total -= stranded
        cancelled_arcs += cancelled
        trace.append({"round": len(trace) + 1, "device": "cpu", "active": int(active),
                      "cancelled": int(cancelled)})
        if not unfinished(excess, source, sink, initial_total, excess_total, active,
                          "lockfree"):
            break
        lists[0, :active] = space.active[:active]
        np.cumsum(degree[space.active[:active]], out=ends[0, :active])
        for team in (threads, 1):  # 1: the threading layer did not run them all at once
            stamp_after = lockfree_passes(first, head, rev, res, excess, label, sink, lists,
                                          ends, active, queued, stamp, space.buffer, budget,
                                          params["beta"], team, counters)
            if stamp_after >= 0:
                break
        stamp = stamp_after
    times = {"stage1": time.perf_counter() - started, "global_relabel": relabel_seconds}
    if options.want_flow:
        timed_stage_two(graph, res, excess, times)
    counts = dict(zip(COUNTER_NAMES, counters.tolist()))
    counts.update(rounds=len(trace), global_relabels=len(trace),
                  violations_cancelled=cancelled_arcs, threads=threads)
    return SolveResult("lockfree", int(excess[sink]), res, options.want_flow, times, counts,
                       trace)


register_compiled(
    "lockfree", "Hong's lock-free push-relabel on CPU threads, parallel global relabeling",
    "Hong 2008, in Alvino 2015 §3.1, Algorithm 1 (He & Hong 2010, Programs 2-4)",
    solve_lockfree, (THREADS_PARAMETER,) + HIPR_PARAMETERS)
