// The lock-free push-relabel kernel: He & Hong 2010, Program 3 (Gutiérrez Mota 2012, alg. 4.3).
// One thread per vertex runs `cycles` iterations; in each, an active vertex u (excess > 0,
// label < n, neither source nor sink) pushes min(e(u), c_f(u, v)) to its lowest residual
// neighbour v when label(u) > label(v), with four 64-bit atomic updates, or else relabels to
// label(v) + 1. Only u's thread lowers e(u) or the residuals of u's arcs, so its reads of them
// are lower bounds and the preflow stays valid; a vertex's label is written by its own
// thread alone. Numba twin: push_relabel_cpu.py (same step, same arrays).

#include <climits>

#include "common.cuh"  // atomic_add, add_warp_counts

#define PUSHED 0
#define RELABELED 1
#define WAITING 2

// Program 3 lines 4-21 for an active vertex u with excess e and label h. Shared state is
// read through volatile pointers: other threads change it while this one runs.
static __device__ int push_relabel_step(int u, long long e, int h, const int *first,
                                        const int *head, const int *rev, long long *res,
                                        long long *excess, int *label)
{
    const volatile long long *res_now = res;
    volatile int *label_now = label;
    int lowest_label = INT_MAX;
    int lowest_arc = -1;
    for (int a = first[u]; a < first[u + 1]; ++a) {
        int v = head[a];
        if (v != u && res_now[a] > 0) {  // self-loops carry nothing
            int h_v = label_now[v];
            if (h_v < lowest_label) {
                lowest_label = h_v;
                lowest_arc = a;
            }
        }
    }
    if (lowest_arc < 0)  // the pushes that gave u its excess are not visible yet
        return WAITING;
    if (h > lowest_label) {
        long long delta = min(e, res_now[lowest_arc]);
        atomic_add(&res[rev[lowest_arc]], delta);
        atomic_add(&res[lowest_arc], -delta);
        atomic_add(&excess[head[lowest_arc]], delta);
        atomic_add(&excess[u], -delta);
        return PUSHED;
    }
    label_now[u] = lowest_label + 1;
    return RELABELED;
}

// Sets *active_seen when some thread found its vertex active; adds the pushes and relabels
// done to counts[COUNT_PUSHES] and counts[COUNT_RELABELS] (one atomic per warp).
extern "C" __global__ void push_relabel_kernel(int n, int source, int sink, int cycles,
                                               const int *first, const int *head,
                                               const int *rev, long long *res,
                                               long long *excess, int *label,
                                               int *active_seen, unsigned long long *counts)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int pushes = 0;
    unsigned int relabels = 0;
    bool active = false;
    if (u < n && u != source && u != sink) {
        const volatile long long *excess_now = excess;
        const volatile int *label_now = label;
        for (int cycle = 0; cycle < cycles; ++cycle) {
            long long e = excess_now[u];
            int h = label_now[u];
            if (e > 0 && h < n) {
                int outcome = push_relabel_step(u, e, h, first, head, rev, res, excess, label);
                pushes += outcome == PUSHED;
                relabels += outcome == RELABELED;
                active = true;
            }
        }
    }
    if (active)
        *active_seen = 1;
    add_warp_counts(pushes, relabels, counts);
}
