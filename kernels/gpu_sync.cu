// gpu-sync: device-resident push-relabel in synchronous rounds over a compacted active list.
//
// Two persistent kernels, each a loop of grid-wide steps separated by a grid barrier of our
// own (every block resident: the host sizes the grid from __launch_bounds__):
// - global_relabel_kernel: exact labels by a queue-based reverse BFS from the sink, up to
//   `max_levels` levels a launch (Goldberg's global update; vertices it does not reach keep
//   label n and leave the active set, the gap heuristic for free), then the active list of
//   the next round. A BFS left open resumes at its next level in the next launch, so that
//   the host sees the stats at least every `max_levels` levels.
// - rounds_kernel: rounds of discharges of the listed vertices, each round building the next
//   list (Baumstark, Blelloch & Shun 2015, synchronous rounds), until the list is empty, the
//   work since the last relabel passes the host's budget (hi_pr's global-update rule), or
//   `max_rounds` rounds ran.
// A discharge follows He & Hong 2010's lock-free rule (Program 3): push to the lowest residual
// neighbour when it is lower, else relabel to its label + 1; here every arc at that lowest
// label takes a push in one pass. Only u's group lowers e(u) and the residuals of u's arcs,
// so its reads of them are lower bounds and the preflow stays valid; others only add.
// Work is mapped to degree: a group of `width` lanes of a warp (a power of two up to 32, from
// the mean degree: 8 on Washington-RLG, 32 on acyclic-dense) takes each listed vertex, a lane
// per arc, so that the loads of its arcs are in flight together.
// RES_T (unsigned short, int or long long) is the residual type, chosen by the host from the
// capacities;
// ARC_T (int, or long long past 2^31 - 1 residual arcs) the type of arc numbers (first, rev).
// Numba twin: gpu_sync_cpu.py (same steps, vertices of a round in parallel on CPU threads).

#include <cooperative_groups.h>

#include "common.cuh"  // atomic_add, warp_sum

namespace cg = cooperative_groups;

#ifndef RES_T
#define RES_T long long
#endif
#ifndef ARC_T
#define ARC_T int
#endif

#define BLOCK 512
#define MIN_BLOCKS 2        // blocks of BLOCK threads resident per multiprocessor
#define MAX_STEPS 64        // push or relabel steps per vertex per round
#define UNROLL 4            // arcs per lane whose loads are issued together

// Slots of `stats` (64-bit), shared with the host (kernels/gpu_sync.py).
#define WORK 0          // arcs scanned + BETA per relabel since the last global relabel
#define PUSHES 1
#define RELABELS 2
#define ROUND 3         // rounds run so far: round r reads list r % 2 and count slot r % 3
#define BFS_LEVELS 4
#define ACTIVE 5        // vertices in the current list
#define STOP 6          // set when WORK reached the budget or the launch its time (written
                        // between two barriers)
#define BFS_OPEN 7      // the next level of a BFS that max_levels left open; 0: none is
#define COUNTS 8        // 3 rotating list counts: slots COUNTS .. COUNTS + 2
#define ARRIVED 16      // grid barrier: the two words on cache lines of their own
#define GENERATION 32

typedef unsigned long long u64;


// *address += value, atomically. A 16-bit residual is added to through the 32-bit word that
// holds it and its neighbour, the value shifted to its half: the sum is exact modulo 2^32,
// and no carry or borrow crosses into the neighbour as long as the residual stays within
// 0 .. 65535 throughout (the host's choice of RES_T guarantees it).
static __device__ __forceinline__ void add_res(RES_T *address, long long value)
{
    if constexpr (sizeof(RES_T) == 2) {
        auto at = reinterpret_cast<unsigned long long>(address);
        atomicAdd(reinterpret_cast<unsigned int *>(at & ~3ULL),
                  static_cast<unsigned int>(value) << ((at & 2) * 8));
    } else if constexpr (sizeof(RES_T) == 4) {
        atomicAdd(reinterpret_cast<int *>(address), static_cast<int>(value));
    } else {
        atomic_add(reinterpret_cast<long long *>(address), value);
    }
}

// The GPU's nanosecond clock, the same on every multiprocessor.
static __device__ __forceinline__ long long now_ns()
{
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return static_cast<long long>(ns);
}

// All threads of the grid wait here until every thread has arrived; memory written before
// is visible after. Needs every block resident.
static __device__ void grid_barrier(long long *stats)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile long long *generation = &stats[GENERATION];
        long long seen = *generation;
        __threadfence();
        if (atomicAdd(reinterpret_cast<u64 *>(&stats[ARRIVED]), 1ULL) == gridDim.x - 1) {
            stats[ARRIVED] = 0;
            __threadfence();
            atomicAdd(reinterpret_cast<u64 *>(&stats[GENERATION]), 1ULL);
        } else {
            while (*generation == seen)
                __nanosleep(32);
        }
        __threadfence();
    }
    __syncthreads();
}

// list[count++] = value for each calling thread, one atomic per group of converged lanes.
static __device__ void append(int *list, long long *count, int value)
{
    cg::coalesced_group lanes = cg::coalesced_threads();
    long long base = 0;
    if (lanes.thread_rank() == 0)
        base = static_cast<long long>(
            atomicAdd(reinterpret_cast<u64 *>(count), static_cast<u64>(lanes.size())));
    base = lanes.shfl(base, 0);
    list[base + lanes.thread_rank()] = value;
}

// Reads of state other threads change: from L2 (coherent), never from a stale L1 line.
template <typename T> static __device__ __forceinline__ T fresh(const T *address)
{
    return __ldcg(address);
}

// A control value read once per block and shared with its threads (every thread calls it).
static __device__ long long block_read(const long long *address)
{
    __shared__ long long value;
    __syncthreads();  // the last value has been used
    if (threadIdx.x == 0)
        value = fresh(address);
    __syncthreads();
    return value;
}

// ---------------------------------------------------------------- lane groups

// The lanes of a warp split in groups of `width` (a power of two): this lane's rank in its
// group and the mask of its group, for the shuffles.
struct Group {
    int width;
    int rank;
    unsigned int mask;
};

static __device__ __forceinline__ Group group_of(int width)
{
    int lane = threadIdx.x & 31;
    unsigned int lanes = width == 32 ? 0xffffffffu : ((1u << width) - 1) << (lane & ~(width - 1));
    return {width, lane & (width - 1), lanes};
}

static __device__ __forceinline__ int group_min(Group g, int value)
{
    for (int offset = g.width / 2; offset > 0; offset /= 2)
        value = min(value, __shfl_xor_sync(g.mask, value, offset, g.width));
    return value;
}

static __device__ __forceinline__ long long group_broadcast(Group g, long long value)
{
    return __shfl_sync(g.mask, value, 0, g.width);
}

// ---------------------------------------------------------------- global relabel

// Labels w = level + 1 through the arcs a, a + width, ... (up to UNROLL of them, below end) of
// a frontier vertex, for each open arc (w, u); queues each w once. The loads of all of them
// are issued before the first label is claimed.
static __device__ __forceinline__ void visit(long long a, ARC_T end, int width, int level,
                                             int n, int source, const int *head, const ARC_T *rev,
                                             const RES_T *res, int *label, int *next,
                                             long long *next_count)
{
    int w[UNROLL];
    bool open[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        long long b = a + static_cast<long long>(k) * width;  // no overflow near 2^31 arcs
        w[k] = b < end ? __ldg(&head[b]) : source;
        open[k] = b < end && __ldg(&res[__ldg(&rev[b])]) > 0;
    }
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        if (w[k] != source && open[k] && fresh(&label[w[k]]) == n
            && atomicCAS(&label[w[k]], n, level + 1) == n)
            append(next, next_count, w[k]);
    }
}

// Exact distances to the sink over residual arcs (n where the sink is out of reach; the
// source keeps n), up to `max_levels` levels from where the last launch left the BFS open
// (BFS_OPEN: its frontier's list and count are as that launch left them); then, when the
// BFS is done, the list of active vertices (excess > 0, label < n) for round ROUND.
extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
global_relabel_kernel(int n, int source, int sink, int width, int max_levels,
                      const ARC_T *first, const int *head, const ARC_T *rev,
                      const RES_T *res, const long long *excess, int *label, int *queued,
                      int *list0,
                      int *list1, long long *stats)
{
    int threads = gridDim.x * blockDim.x;
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    int level = static_cast<int>(block_read(&stats[BFS_OPEN]));
    if (level == 0) {
        for (int v = id; v < n; v += threads)
            label[v] = v == sink ? 0 : n;
        if (id == 0) {
            list0[0] = sink;
            stats[COUNTS] = 1;
            stats[COUNTS + 1] = 0;
        }
        grid_barrier(stats);
    }
    for (int done = 0;; ++level, ++done) {
        long long count = block_read(&stats[COUNTS + level % 3]);
        if (count == 0) {
            if (id == 0)
                stats[BFS_LEVELS] += done;
            break;
        }
        if (done == max_levels) {  // every thread has read the count; only these two change
            if (id == 0) {
                stats[BFS_OPEN] = level;
                stats[BFS_LEVELS] += done;
            }
            return;
        }
        if (id == 0)
            stats[COUNTS + (level + 2) % 3] = 0;
        const int *frontier = level % 2 ? list1 : list0;
        int *next = level % 2 ? list0 : list1;
        long long *next_count = &stats[COUNTS + (level + 1) % 3];
        // lanes per frontier vertex: the group's, or on a narrow frontier as many as the grid
        // has to spare (a hub, such as a sink joined to every vertex, is scanned by the grid
        // rather than by one group)
        int lanes = width;
        while (2LL * lanes * count <= threads)
            lanes *= 2;
        int groups = threads / lanes;
        for (long long i = id / lanes; i < count && id < groups * lanes; i += groups) {
            int u = frontier[i];
            ARC_T end = first[u + 1];
            for (long long a = first[u] + id % lanes; a < end; a += UNROLL * lanes)
                visit(a, end, lanes, level, n, source, head, rev, res, label, next, next_count);
        }
        grid_barrier(stats);
    }
    // the active list of the next round
    long long round = block_read(&stats[ROUND]);
    int *list = round % 2 ? list1 : list0;
    long long *count = &stats[COUNTS + round % 3];
    grid_barrier(stats);  // every thread has read the last level's (empty) count
    if (id == 0) {
        stats[COUNTS + round % 3] = 0;
        stats[BFS_OPEN] = 0;
        stats[WORK] = 0;
        stats[STOP] = 0;
    }
    grid_barrier(stats);
    for (int v = id; v < n; v += threads) {
        if (v != source && v != sink && fresh(&label[v]) < n && excess[v] > 0) {
            queued[v] = static_cast<int>(round);
            append(list, count, v);
        }
    }
    grid_barrier(stats);
    if (id == 0) {
        stats[ACTIVE] = *count;
        stats[COUNTS + (round + 1) % 3] = 0;
    }
}

// ---------------------------------------------------------------- rounds

// Queues v for round `round` once (`queued` holds the round a vertex was last queued for).
static __device__ __forceinline__ void enqueue(int v, int round, int *queued, int *next,
                                               long long *next_count)
{
    if (atomicExch(&queued[v], round) != round)
        append(next, next_count, v);
}

// Moves delta along arc a of u (u's group alone lowers res[a] and e(u)) and queues the head
// when it turned active.
static __device__ __forceinline__ void push(int u, ARC_T a, long long delta, int round, int n,
                                            int source, int sink, const int *head,
                                            const ARC_T *rev, RES_T *res, long long *excess,
                                            const int *label, int *queued, int *next,
                                            long long *next_count)
{
    int w = head[a];
    add_res(&res[rev[a]], delta);
    add_res(&res[a], -delta);
    atomic_add(&excess[u], -delta);
    long long before = static_cast<long long>(
        atomicAdd(reinterpret_cast<u64 *>(&excess[w]), static_cast<u64>(delta)));
    if (before <= 0 && w != sink && w != source && fresh(&label[w]) < n)
        enqueue(w, round, queued, next, next_count);
}

// A group discharges u: up to MAX_STEPS steps, each finding the lowest residual neighbour (a
// group minimum), then pushing along every arc at that label in arc order (a group prefix
// sum of their residuals says how much each takes), or relabeling. Every lane of the group
// calls it with the same u; the values that steer the loop are the group's alike. Returns
// the work done (arcs scanned, beta per relabel) on rank 0; counts pushes and relabels.
static __device__ long long discharge(Group g, int u, int round, int n, int source, int sink,
                                      int beta, const ARC_T *first, const int *head,
                                      const ARC_T *rev, RES_T *res, long long *excess,
                                      int *label, int *queued, int *next,
                                      long long *next_count, unsigned int *pushes,
                                      unsigned int *relabels)
{
    ARC_T begin = first[u], end = first[u + 1];
    int h = fresh(&label[u]);
    long long e = group_broadcast(g, fresh(&excess[u]));
    long long work = 0;
    for (int step = 0; step < MAX_STEPS && e > 0 && h < n; ++step) {
        int lowest = 2 * n;
#pragma unroll 4  // UNROLL
        for (ARC_T a = begin + g.rank; a < end; a += g.width) {
            int l = fresh(&label[__ldg(&head[a])]);  // loaded whatever the residual: in flight
            if (fresh(&res[a]) > 0)                   // together with it
                lowest = min(lowest, l);
        }
        lowest = group_min(g, lowest);
        work += end - begin;
        if (lowest >= 2 * n)
            break;  // the pushes that gave u its excess are not visible yet
        if (h > lowest) {
            for (ARC_T chunk = begin; chunk < end && e > 0; chunk += g.width) {
                ARC_T a = chunk + g.rank;
                long long r = 0;
                if (a < end) {
                    r = fresh(&res[a]);
                    if (r > 0 && fresh(&label[head[a]]) != lowest)
                        r = 0;
                }
                long long upto = r;  // inclusive prefix sum of the pushable residuals
                for (int offset = 1; offset < g.width; offset *= 2) {
                    long long below = __shfl_up_sync(g.mask, upto, offset, g.width);
                    if (g.rank >= offset)
                        upto += below;
                }
                long long total = __shfl_sync(g.mask, upto, g.width - 1, g.width);
                long long delta = min(r, max(e - (upto - r), 0LL));
                if (delta > 0) {
                    push(u, a, delta, round, n, source, sink, head, rev, res, excess, label,
                         queued, next, next_count);
                    ++*pushes;
                }
                e -= min(e, total);
            }
            __syncwarp(g.mask);
            e = group_broadcast(g, fresh(&excess[u]));
        } else {
            h = lowest + 1;
            if (g.rank == 0) {
                label[u] = h;
                ++*relabels;
            }
            work += beta;
        }
    }
    return g.rank == 0 ? work : 0;
}

// Rounds over the active list until it is empty, the work since the last global relabel
// reaches `budget`, the launch has run `max_ns` nanoseconds, or `max_rounds` rounds ran (the
// host launches it with STOP clear). Every thread decides alike: what the loop test reads
// changes only between two barriers. Round r discharges list r % 2 and builds list
// (r + 1) % 2: the vertices that stay active and those its pushes made active.
extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
rounds_kernel(int n, int source, int sink, int width, int beta, long long budget,
              long long max_ns, int max_rounds, const ARC_T *first, const int *head,
              const ARC_T *rev, RES_T *res, long long *excess, int *label, int *queued,
              int *list0, int *list1, long long *stats)
{
    int threads = gridDim.x * blockDim.x;
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    Group g = group_of(width);
    unsigned int pushes = 0, relabels = 0;
    long long work = 0;
    long long started = id == 0 ? now_ns() : 0;
    for (int done = 0; done < max_rounds; ++done) {
        long long round = block_read(&stats[ROUND]);
        long long count = block_read(&stats[COUNTS + round % 3]);
        if (count == 0 || block_read(&stats[STOP]))
            break;
        const int *list = round % 2 ? list1 : list0;
        int *next = round % 2 ? list0 : list1;
        long long *next_count = &stats[COUNTS + (round + 1) % 3];
        int next_round = static_cast<int>(round + 1);
        if (id == 0)
            stats[COUNTS + (round + 2) % 3] = 0;
        for (long long i = id / width; i < count; i += threads / width) {
            int u = list[i];
            work += discharge(g, u, next_round, n, source, sink, beta, first, head, rev, res,
                              excess, label, queued, next, next_count, &pushes, &relabels);
            // a discharged vertex still active goes to the next round (once)
            if (g.rank == 0 && fresh(&excess[u]) > 0 && fresh(&label[u]) < n)
                enqueue(u, next_round, queued, next, next_count);
        }
        long long warp_work = work;
        for (int offset = 16; offset > 0; offset /= 2)
            warp_work += __shfl_down_sync(0xffffffffu, warp_work, offset);
        if (lane == 0 && warp_work > 0)
            atomicAdd(reinterpret_cast<u64 *>(&stats[WORK]), static_cast<u64>(warp_work));
        work = 0;
        grid_barrier(stats);
        if (id == 0) {
            stats[ROUND] = round + 1;
            stats[ACTIVE] = *next_count;
            stats[STOP] = stats[WORK] >= budget || now_ns() - started >= max_ns;
        }
        grid_barrier(stats);
    }
    pushes = warp_sum(pushes);
    relabels = warp_sum(relabels);
    if (lane == 0 && pushes + relabels > 0) {
        atomicAdd(reinterpret_cast<u64 *>(&stats[PUSHES]), static_cast<u64>(pushes));
        atomicAdd(reinterpret_cast<u64 *>(&stats[RELABELS]), static_cast<u64>(relabels));
    }
}
