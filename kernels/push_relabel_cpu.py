"""Numba twin of push_relabel.cu: He & Hong 2010, Program 3, on the CPU.

The same per-vertex step on the same arrays. A launch runs the threads' iterations one cycle
at a time, stepping in each cycle the vertices that were active at its start or became so
during the cycle before: a sequential interleaving of the threads, one of the executions the
lock-free algorithm allows (Hong 2008); the other threads would find their vertex inactive.
A cycle with no active vertex ends the launch, as nothing can change any more.
"""

import numba
import numpy as np

from maxflow_cli.kernels.declarations import PREFLOW_COUNTS
from maxflow_cli.steps import lowest_neighbour

RELABELED, WAITING = -1, -2
PUSHES, RELABELS = PREFLOW_COUNTS.slot("pushes"), PREFLOW_COUNTS.slot("relabels")


@numba.njit(cache=True)
def push_relabel_step(u, e, h, first, head, rev, res, excess, label):
    """Program 3 lines 4-21 for an active vertex u with excess e and label h: push to the
    lowest residual neighbour, or relabel to its label + 1. Returns the arc pushed along, or
    RELABELED (WAITING where u has no residual arc, as the kernel does: on the GPU the
    pushes that gave u its excess may not be visible yet)."""
    lowest_arc, lowest_label = lowest_neighbour(u, first, head, res, label)
    if lowest_arc < 0:
        return WAITING
    if h > lowest_label:
        delta = min(e, res[lowest_arc])
        res[rev[lowest_arc]] += delta
        res[lowest_arc] -= delta
        excess[head[lowest_arc]] += delta
        excess[u] -= delta
        return lowest_arc
    label[u] = lowest_label + 1
    return RELABELED


@numba.njit(cache=True)
def push_relabel_kernel(n, source, sink, cycles, first, head, rev, res, excess, label,
                        active_seen, counts):
    """Twin of push_relabel_kernel: `cycles` iterations of every thread but the source's and
    the sink's. Adds the pushes and relabels to their counts; sets active_seen[0]
    when an active vertex was seen."""
    current = np.empty(n, np.int32)
    following = np.empty(n, np.int32)
    queued_for = np.full(n, -1, np.int32)  # the last cycle a vertex was queued for
    queued_for[source] = queued_for[sink] = cycles  # never queued
    size = 0
    for u in range(n):
        if excess[u] > 0 and label[u] < n and queued_for[u] < 0:
            queued_for[u] = 0
            current[size] = u
            size += 1
    for cycle in range(cycles):
        following_size = 0
        for k in range(size):
            u = current[k]
            e = excess[u]
            h = label[u]
            if e <= 0 or h >= n:
                continue
            active_seen[0] = 1
            arc = push_relabel_step(u, e, h, first, head, rev, res, excess, label)
            if arc == WAITING:
                continue
            if arc == RELABELED:
                counts[RELABELS] += 1
                v = u
            else:
                counts[PUSHES] += 1
                v = head[arc]
            for w in (u, v):  # the vertices that can be active in the next cycle
                if queued_for[w] <= cycle:
                    queued_for[w] = cycle + 1
                    following[following_size] = w
                    following_size += 1
        if following_size == 0:
            break
        current, following = following, current
        size = following_size
