"""Numba twin of gpu_sync.cu: the same global relabel and rounds on the CPU, the vertices of a
round discharged in parallel (prange) with the kernel's atomic updates.

It is the synchronous parallel push-relabel on CPU threads (Baumstark, Blelloch & Shun 2015,
rounds over an active list; He & Hong 2010's lock-free discharge rule), and the reference the
kernel is tested against. The stats slots are the kernel's (see gpu_sync.cu).
"""

import time

import numba
import numpy as np
from numba import prange

from maxflow_cli.atomics import atomic_add, atomic_cas, atomic_load
from maxflow_cli.kernels.declarations import source_constant

# The slots of the kernels' stats, and the steps a vertex takes in a round, as gpu_sync.cu
# defines them.
WORK, PUSHES, RELABELS, ROUND, BFS_LEVELS, ACTIVE, STOP, BFS_OPEN, COUNTS = (
    source_constant("gpu_sync", name) for name in
    ("WORK", "PUSHES", "RELABELS", "ROUND", "BFS_LEVELS", "ACTIVE", "STOP", "BFS_OPEN",
     "COUNTS"))
STATS_SLOTS = source_constant("gpu_sync", "GENERATION") + 8  # up to its own cache line
MAX_STEPS = source_constant("gpu_sync", "MAX_STEPS")


@numba.njit(cache=True)
def _bfs_levels(n, source, max_levels, first, head, rev, res, label, list0, list1, stats):
    """The kernel's reverse BFS from where stats[BFS_OPEN] left it, level by level through
    the two lists and the rotating counts, up to `max_levels` levels; True when it is done."""
    level = stats[BFS_OPEN]
    done = 0
    while stats[COUNTS + level % 3] > 0:
        if done == max_levels:
            stats[BFS_OPEN] = level
            stats[BFS_LEVELS] += done
            return False
        stats[COUNTS + (level + 2) % 3] = 0
        frontier = list1 if level % 2 else list0
        next_list = list0 if level % 2 else list1
        slot = COUNTS + (level + 1) % 3
        for i in range(stats[COUNTS + level % 3]):
            u = frontier[i]
            for a in range(first[u], first[u + 1]):
                w = head[a]
                if w != source and label[w] == n and res[rev[a]] > 0:
                    label[w] = level + 1
                    next_list[stats[slot]] = w
                    stats[slot] += 1
        level += 1
        done += 1
    stats[BFS_OPEN] = 0
    stats[BFS_LEVELS] += done
    return True


@numba.njit(cache=True)
def global_relabel_kernel(n, source, sink, width, max_levels, first, head, rev, res, excess,
                          label, queued, list0, list1, stats):
    """Twin of global_relabel_kernel: exact distances to the sink over residual arcs (n out of
    reach; the source keeps n), up to `max_levels` levels a call, then the active list of
    round stats[ROUND]. (`width`, the kernel's lanes per vertex, has no meaning here.)"""
    if stats[BFS_OPEN] == 0:
        label[:] = n
        label[sink] = 0
        list0[0] = sink
        stats[COUNTS] = 1
        stats[COUNTS + 1] = 0
    if not _bfs_levels(n, source, max_levels, first, head, rev, res, label, list0, list1,
                       stats):
        return
    round_ = stats[ROUND]
    active = list1 if round_ % 2 else list0
    count = 0
    for v in range(n):
        if v != source and v != sink and label[v] < n and excess[v] > 0:
            queued[v] = round_
            active[count] = v
            count += 1
    stats[COUNTS + round_ % 3] = count
    stats[COUNTS + (round_ + 1) % 3] = 0
    stats[ACTIVE] = count
    stats[WORK] = 0
    stats[STOP] = 0


@numba.njit(cache=True, inline="always")
def _enqueue(v, round_, queued, next_list, stats, slot):
    """Queues v for round `round_` once (queued[v] is the round it was last queued for)."""
    while True:
        seen = atomic_load(queued, v)
        if seen == round_:
            return
        if atomic_cas(queued, v, seen, round_) == seen:
            break
    next_list[atomic_add(stats, slot, 1)] = v


@numba.njit(cache=True)
def discharge(u, round_, n, source, sink, beta, first, head, rev, res, excess, label, queued,
              next_list, stats, slot):
    """Twin of the kernel's discharge, by one thread: up to MAX_STEPS steps, each finding
    the lowest residual neighbour, then pushing along every arc at that label, or
    relabeling. Returns (work, pushes, relabels)."""
    begin, end = first[u], first[u + 1]
    h = label[u]
    e = atomic_load(excess, u)
    work = 0
    pushes = 0
    relabels = 0
    for _ in range(MAX_STEPS):
        if e <= 0 or h >= n:
            break
        lowest = 2 * n
        for a in range(begin, end):
            if atomic_load(res, a) > 0:
                lowest = min(lowest, atomic_load(label, head[a]))
        work += end - begin
        if lowest >= 2 * n:
            break
        if h > lowest:
            for a in range(begin, end):
                if e <= 0:
                    break
                r = atomic_load(res, a)
                w = head[a]
                if r > 0 and atomic_load(label, w) == lowest:
                    delta = min(e, r)
                    atomic_add(res, rev[a], delta)
                    atomic_add(res, a, -delta)
                    atomic_add(excess, u, -delta)
                    before = atomic_add(excess, w, delta)
                    if before <= 0 and w != sink and w != source and \
                            atomic_load(label, w) < n:
                        _enqueue(w, round_, queued, next_list, stats, slot)
                    e -= delta
                    pushes += 1
            e = atomic_load(excess, u)
        else:
            h = lowest + 1
            label[u] = h
            work += beta
            relabels += 1
    return work, pushes, relabels


@numba.njit(cache=True)
def _now_ns() -> int:
    """Twin of the kernel's now_ns (%globaltimer): the CPU's clock in nanoseconds."""
    with numba.objmode(now="int64"):
        now = time.perf_counter_ns()
    return now


@numba.njit(parallel=True, cache=True)
def rounds_kernel(n, source, sink, width, beta, budget, max_ns, max_rounds, first, head, rev,
                  res, excess, label, queued, list0, list1, stats):
    """Twin of rounds_kernel: rounds over the active list until it is empty, the work since
    the last global relabel reaches `budget`, the call has run `max_ns` nanoseconds, or
    `max_rounds` rounds ran; the vertices of a round in parallel, each discharged by one
    thread."""
    started = _now_ns()
    for _ in range(max_rounds):
        round_ = stats[ROUND]
        count = stats[COUNTS + round_ % 3]
        if count == 0 or stats[STOP]:
            break
        current = list1 if round_ % 2 else list0
        next_list = list0 if round_ % 2 else list1
        slot = COUNTS + (round_ + 1) % 3
        stats[COUNTS + (round_ + 2) % 3] = 0
        work = 0
        pushes = 0
        relabels = 0
        for i in prange(count):
            u = current[i]
            done, pushed, relabeled = discharge(u, round_ + 1, n, source, sink, beta, first,
                                                head, rev, res, excess, label, queued,
                                                next_list, stats, slot)
            work += done
            pushes += pushed
            relabels += relabeled
            if atomic_load(excess, u) > 0 and atomic_load(label, u) < n:
                _enqueue(u, round_ + 1, queued, next_list, stats, slot)
        stats[WORK] += work
        stats[PUSHES] += pushes
        stats[RELABELS] += relabels
        stats[ROUND] = round_ + 1
        stats[ACTIVE] = stats[slot]
        stats[STOP] = stats[WORK] >= budget or _now_ns() - started >= max_ns


def new_stats() -> np.ndarray:
    return np.zeros(STATS_SLOTS, np.int64)
