// Alvino 2015, Algorithm 12 (pushrelabel-gpu): the single-loop push-relabel kernel of the
// openmp-cuda hybrid. Thread k of a launch of T threads owns VERTICES_PER_THREAD vertices of
// the range [begin, end), begin + k, begin + k + T, ... (Alvino §4.1.3: each thread runs over
// several vertices in an unrolled loop; a stride of T rather than adjacent vertices lets a
// warp read 32 adjacent e(u) and h(u) at once, most of a sweep's reads once few vertices are
// active) and discharges each while it is active: one pass over u's arcs pushes
// min(e, c_f(u, v)) to every residual neighbour v with h(v) < h(u) (hipr's rule) and, in the
// same loop, finds the lowest label among the arcs that stay residual; if excess is left, u
// is relabelled to that label + 1 (Alg. 12 lines 17-21), or its thread stops when none is
// below n. A launch also counts the vertices it found active (*active_count), so that the
// host can sweep again on the device without a round trip of the state (openmp_cuda.py,
// sweep_until_global_update). The four updates of a push are 64-bit atomics; only u's thread
// lowers e(u) or the residuals of u's arcs, and only it writes h(u). The host splits the
// vertices in 4 ranges launched on 4 streams (§4.1.2). Numba twin: single_loop_cpu.py.

#include <climits>

#include "common.cuh"  // atomic_add, add_warp_counts

#define VERTICES_PER_THREAD 4

// Algorithm 12 for vertex u; adds its pushes and relabels to *pushes and *relabels. Returns
// 1 if u was active (e(u) > 0, h(u) < n) when its thread looked, else 0.
static __device__ unsigned int discharge(int u, int n, const int *first, const int *head,
                                 const int *rev, long long *res, long long *excess, int *label,
                                 unsigned int *pushes, unsigned int *relabels)
{
    const volatile long long *res_now = res;
    const volatile long long *excess_now = excess;
    volatile int *label_now = label;
    for (unsigned int looked = 0;; looked = 1) {
        long long e = excess_now[u];
        int h = label_now[u];
        if (e <= 0 || h >= n)
            return looked;
        int lowest = INT_MAX;
#pragma unroll 4
        for (int a = first[u]; a < first[u + 1]; ++a) {
            int v = head[a];
            long long r = res_now[a];
            if (v == u || r <= 0)  // self-loops carry nothing
                continue;
            int h_v = label_now[v];
            if (h_v < h && e > 0) {
                long long delta = min(e, r);
                atomic_add(&res[rev[a]], delta);
                atomic_add(&res[a], -delta);
                atomic_add(&excess[v], delta);
                atomic_add(&excess[u], -delta);
                e -= delta;
                r -= delta;
                *pushes += 1;
            }
            if (r > 0 && h_v < lowest)
                lowest = h_v;
        }
        if (e <= 0)
            continue;  // pushed it all: look again, others may have pushed to u meanwhile
        // excess is left, so every arc to a label below h(u) is saturated: lowest >= h(u)
        if (lowest >= n)
            return 1;  // nothing below n: the next global labeling lifts u
        label_now[u] = lowest + 1;
        *relabels += 1;
    }
}

// Discharges the vertices of [begin, end) but the source and the sink; adds the pushes and
// relabels to counts[COUNT_PUSHES] and counts[COUNT_RELABELS], and the vertices found active to *active_count (one
// atomic each per warp).
extern "C" __global__ void single_loop_kernel(int n, int source, int sink, int begin, int end,
                                              const int *first, const int *head,
                                              const int *rev, long long *res,
                                              long long *excess, int *label,
                                              unsigned long long *counts,
                                              unsigned int *active_count)
{
    int threads = gridDim.x * blockDim.x;  // threads * VERTICES_PER_THREAD >= end - begin
    int base = begin + blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int pushes = 0;
    unsigned int relabels = 0;
    unsigned int active = 0;
#pragma unroll
    for (int k = 0; k < VERTICES_PER_THREAD; ++k) {
        int u = base + k * threads;
        if (u < end && u != source && u != sink)
            active += discharge(u, n, first, head, rev, res, excess, label, &pushes,
                                &relabels);
    }
    add_warp_counts(pushes, relabels, counts);
    active = warp_sum(active);
    if (threadIdx.x % 32 == 0 && active > 0)
        atomicAdd(active_count, active);
}
