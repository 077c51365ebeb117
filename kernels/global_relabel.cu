// Global relabeling on the GPU: Gutiérrez Mota 2012, alg. 4.4-4.8 (violation cancellation as
// in He & Hong 2010, Program 4 lines 1-8). One thread per vertex in every kernel.
// Numba twins: global_relabel_cpu.py (same per-vertex steps, same arrays).

#include "common.cuh"  // atomic_add, COUNT_CANCELLED

// Alg. 4.5: push along every residual arc (u, v) with label[u] > label[v] + 1, at most u's
// excess (the source: the whole residual). The seeds push the whole residual, which leaves a
// deficit at u when u has sent its excess elsewhere, and an unpaid deficit adds to the sink's
// flow value; an arc left violating is harmless, the BFS that follows sets exact labels.
// Labels do not change here, and the arcs (u, v) and (v, u) are touched by u's thread alone
// (both cannot violate); only u's thread lowers e(u), but several threads may move excess
// into one vertex: excess updates are atomic. Adds the arcs pushed along to
// counts[COUNT_CANCELLED].
extern "C" __global__ void cancel_violations_kernel(int n, int source, const int *first,
                                                    const int *head, const int *rev,
                                                    long long *res, long long *excess,
                                                    const int *label,
                                                    unsigned long long *counts)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n)
        return;
    const volatile long long *excess_now = excess;
    for (int a = first[u]; a < first[u + 1]; ++a) {
        long long delta = res[a];
        if (u != source)
            delta = min(delta, max(excess_now[u], 0LL));
        if (delta > 0 && label[u] > label[head[a]] + 1) {
            res[a] -= delta;
            res[rev[a]] += delta;
            atomic_add(&excess[u], -delta);
            atomic_add(&excess[head[a]], delta);
            atomicAdd(&counts[COUNT_CANCELLED], 1ULL);
        }
    }
}

// Alg. 4.6: every label to `unreached`, the source's to n and the sink's to 0.
extern "C" __global__ void reset_labels_kernel(int n, int source, int sink, int unreached,
                                               int *label)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u < n)
        label[u] = u == source ? n : (u == sink ? 0 : unreached);
}

// Alg. 4.8: one level of a reverse BFS over residual arcs. Every vertex at `level` gives
// label level + 1 to its unreached neighbours v with a residual arc (v, u); threads that
// label one vertex write the same value. Sets *changed when it labelled a vertex.
extern "C" __global__ void bfs_level_kernel(int n, int level, int unreached, const int *first,
                                            const int *head, const int *rev,
                                            const long long *res, int *label, int *changed)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n || label[u] != level)
        return;
    for (int a = first[u]; a < first[u + 1]; ++a) {
        int v = head[a];
        if (label[v] == unreached && res[rev[a]] > 0) {
            label[v] = level + 1;
            *changed = 1;
        }
    }
}
