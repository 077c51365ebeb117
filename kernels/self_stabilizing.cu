// self-stabilizing: da Silva's CUDA max flow after Ghosh, Gupta & Pemmaraju (Alvino 2015,
// §3.2.2, Algorithms 7-8), one thread per vertex, three launches per round:
// - labels_kernel (S1): next_label(u) = min({label(p) + 1 : p -> u residual} U {n}), the
//   source 0, from the labels every vertex published last round (double-buffered: a
//   synchronous round of the distance-to-the-source rule);
// - guards_kernel: demand(u) = outflow - inflow (the sink's is infinite) and which of S2-S4
//   holds at u, from the labels just published;
// - moves_kernel: every vertex whose guard holds and whose key beats every neighbour whose
//   guard holds runs that action, one arc at a time while it holds: S2 Reduce_InFlow
//   (Algorithm 7), S3 pull along supplier arcs, S4 Reduce_OutFlow (Algorithm 8). No two
//   neighbours move in one round, so a move reads and writes arcs no other move touches:
//   no atomics, and the round is a serial execution of its moves (a central daemon's).
// A round with no label change and no guard is a fixpoint: a maximum flow. The argument and
// the choices where the seed is silent: maxflow_cli/solvers/self_stabilizing.py.
// Numba twin: self_stabilizing_cpu.py (the same rounds, vertex after vertex, same arrays).

#define BLOCK 256
#define BATCH 32        // rounds the host launches between two looks at `busy`
#define LIMIT (1LL << 62)  // |demand| at or past it: more than any arc can carry

// The guards, as guards_kernel writes them into guard[u].
#define IDLE 0
#define REDUCE_INFLOW 1   // S2
#define PULL 2            // S3
#define REDUCE_OUTFLOW 3  // S4

// stats[guard - 1] (64-bit) counts the arcs that moves of S2, S3 and S4 changed: its slots
// (declarations.MOVE_COUNTS reads them).
#define MOVES_REDUCE_INFLOW 0
#define MOVES_PULL 1
#define MOVES_REDUCE_OUTFLOW 2
static_assert(MOVES_REDUCE_INFLOW == REDUCE_INFLOW - 1 && MOVES_PULL == PULL - 1 &&
              MOVES_REDUCE_OUTFLOW == REDUCE_OUTFLOW - 1, "a guard's moves count in its slot");

typedef unsigned long long u64;

static __device__ __forceinline__ int thread_vertex()
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

// The round's pseudo-random key of vertex u: the daemon's choice among neighbours, fair
// because it changes every round. Wrapping 32-bit arithmetic, as the twin's masks give.
static __device__ __forceinline__ unsigned int vertex_key(int u, int round_number)
{
    unsigned int x = static_cast<unsigned int>(u) +
                     static_cast<unsigned int>(round_number) * 0x27D4EB2Fu;
    x = ((x >> 16) ^ x) * 0x45D9F3Bu;
    x = ((x >> 16) ^ x) * 0x45D9F3Bu;
    return (x >> 16) ^ x;
}

// Whether w goes before u in the round: a larger key, ties broken by the larger index.
static __device__ __forceinline__ bool goes_before(int w, int u, int round_number)
{
    unsigned int kw = vertex_key(w, round_number), ku = vertex_key(u, round_number);
    return kw > ku || (kw == ku && w > u);
}

// outflow(u) - inflow(u), clamped to [-LIMIT, LIMIT]: the sum is carried in units of LIMIT
// so that no partial sum overflows (each arc's flow lies in [-LIMIT, LIMIT]).
static __device__ long long clamped_demand(int u, const int *first, const long long *cap,
                                           const long long *res)
{
    long long low = 0, units = 0;
    for (int a = first[u]; a < first[u + 1]; a++) {
        low += cap[a] - res[a];
        if (low >= LIMIT) {
            low -= LIMIT;
            units++;
        } else if (low <= -LIMIT) {
            low += LIMIT;
            units--;
        }
    }
    if (units > 1)
        return LIMIT;
    if (units < -1)
        return -LIMIT;
    long long total = units * LIMIT + low;
    return total > LIMIT ? LIMIT : total < -LIMIT ? -LIMIT : total;
}

// The arc of u whose flow out of u (direction 1) or into u (direction -1) is positive and
// least, the first of equals; one exists where the guard of S2 or S4 holds.
static __device__ int least_flow_arc(int begin, int end, long long direction,
                                     const long long *cap, const long long *res)
{
    int chosen = -1;
    long long least = 0;
    for (int a = begin; a < end; a++) {
        long long flow = direction * (cap[a] - res[a]);
        if (flow > 0 && (chosen < 0 || flow < least)) {
            chosen = a;
            least = flow;
        }
    }
    return chosen;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
labels_kernel(int n, int source, int round_number, const int *first, const int *head,
              const int *rev, const long long *res, const int *label, int *next_label, int *busy)
{
    int u = thread_vertex();
    if (u >= n)
        return;
    int h = n;
    if (u == source) {
        h = 0;
    } else {
        for (int a = first[u]; a < first[u + 1]; a++)
            if (res[rev[a]] > 0)
                h = min(h, label[head[a]] + 1);
    }
    next_label[u] = h;
    if (h != label[u])
        busy[round_number % BATCH] = 1;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
guards_kernel(int n, int source, int sink, int round_number, const int *first,
              const int *head, const int *rev, const long long *cap, const long long *res,
              const int *label, long long *demand, int *guard, int *busy)
{
    int u = thread_vertex();
    if (u >= n)
        return;
    long long d = u == sink ? LIMIT : clamped_demand(u, first, cap, res);
    int g = IDLE;
    if (u != source && d < 0) {
        g = REDUCE_INFLOW;
    } else if (u != source && d > 0) {
        int h = label[u];
        if (h == n) {
            g = u == sink ? IDLE : REDUCE_OUTFLOW;
        } else {
            for (int a = first[u]; a < first[u + 1] && g == IDLE; a++)
                if (res[rev[a]] > 0 && label[head[a]] == h - 1)
                    g = PULL;
        }
    }
    demand[u] = d;
    guard[u] = g;
    if (g != IDLE)
        busy[round_number % BATCH] = 1;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
moves_kernel(int n, int sink, int round_number, const int *first, const int *head,
             const int *rev, const long long *cap, long long *res, const int *label,
             const long long *demand, const int *guard, long long *stats)
{
    int u = thread_vertex();
    if (u >= n || guard[u] == IDLE)
        return;
    int begin = first[u], end = first[u + 1];
    for (int a = begin; a < end; a++) {
        int w = head[a];
        if (w != u && guard[w] != IDLE && goes_before(w, u, round_number))
            return;
    }
    // Each step pushes `amount` along one residual arc x (res[x] -= amount, res[rev[x]] +=
    // amount): S2 sends inflow back along u's arc; S3 and S4 move flow towards u along the
    // reverse of u's arc (more from a supplier, less to a receiver). The move repeats the
    // step while the guard holds at u, its neighbours standing still.
    int g = guard[u];
    long long d = demand[u];
    long long steps = 0;
    if (g == PULL) {  // S3: the suppliers one level nearer the source, in arc order
        for (int a = begin; a < end && d > 0; a++) {
            int x = rev[a];
            if (res[x] > 0 && label[head[a]] == label[u] - 1) {
                long long amount = min(d, res[x]);
                res[x] -= amount;
                res[a] += amount;
                if (u != sink)  // the sink's demand stays infinite
                    d -= amount;
                steps++;
            }
        }
    } else {  // S2, S4: the arc carrying the least flow into (S2) or out of (S4) u, each time
        long long direction = g == REDUCE_INFLOW ? -1 : 1;
        for (int a; d != 0 && (a = least_flow_arc(begin, end, direction, cap, res)) >= 0;) {
            long long amount = min(direction * d, direction * (cap[a] - res[a]));
            int x = g == REDUCE_INFLOW ? a : rev[a];
            res[x] -= amount;
            res[rev[x]] += amount;
            d -= direction * amount;
            steps++;
        }
    }
    atomicAdd(reinterpret_cast<u64 *>(&stats[g - 1]), static_cast<u64>(steps));
}
