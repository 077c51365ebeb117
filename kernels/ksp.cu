// K shortest loopless paths, one source-target pair per block (Reis, Espindola, Souza &
// Milanes, Algorithms 1-6): ksp_kernel, MPS where its `shortcut` is set (candidates from the
// forward sorted star and the tree of shortest paths to t), else Yen (a shortest-path search
// per candidate).
//
// A block runs the whole of Algorithm 4 for its pair: distances to t by a block-wide
// Bellman-Ford over the arcs (backwards), the tree of shortest paths (Algorithm 1), the
// forward sorted star (Algorithm 3: each arc counts the arcs of its tail's segment with a
// smaller reduced length, a segmented sort with no global pass), then K - 1 rounds. A round
// takes the last path found, and its spur vertices (from its deviation vertex on, Lawler's
// rule) are shared among groups of the block's threads: `groups` groups of blockDim / groups
// threads, the minimum share of threads per candidate (Algorithms 5 and 6). A group marks its
// root, the arcs earlier paths take from there, and then (MPS) tests the first allowed arc of
// the sorted star followed by the tree path; where that loops, or always for Yen, it runs a
// Bellman-Ford to t avoiding the root with its threads. The shortest candidate is chosen by a
// block reduction. Every tie takes the lowest arc or slot index, so the result is the Numba
// twin's (ksp_cpu.py) exactly.
//
// Lengths are keys (length * n + 1, kernels' caller): positive, and a path's key orders it
// by cost, then by arcs. Per pair (offsets by blockIdx.x): dist, tree (n), order (m), the
// candidate pool (pool_size slots of a path of up to n vertices, its length, key, deviation
// index, state), found (K slots), out_* (K paths); per group: group_dist, group_mark (n).

#define BLOCK 256
#define INF_BITS 62
#define INF (1LL << INF_BITS)

// Candidate states, and the marks of a group's vertices (shared with ksp_cpu.py).
#define CANDIDATE 0
#define CHOSEN 1
#define DEAD 2
#define BLOCKED 1    // on the root: no candidate passes it
#define FORBIDDEN 2  // an earlier path with the same root goes there next

// Distances to t through no BLOCKED vertex, by the threads lane, lane + lanes, ...; every
// thread of the block calls it, `active` says whether this one takes part.
static __device__ void distances_to(int n, int m, int t, const int *tail, const int *head,
                                    const long long *length, const int *mark, long long *dist,
                                    int lane, int lanes, bool active)
{
    if (active)
        for (int v = lane; v < n; v += lanes)
            dist[v] = v == t ? 0 : INF;
    __syncthreads();
    int changed;
    do {
        changed = 0;
        if (active)
            for (int a = lane; a < m; a += lanes) {
                const int u = tail[a], x = head[a];
                const long long through = *(volatile long long *)&dist[x];
                if (through == INF || ((mark[u] | mark[x]) & BLOCKED))
                    continue;
                if (through + length[a] < *(volatile long long *)&dist[u]) {
                    atomicMin(&dist[u], through + length[a]);
                    changed = 1;
                }
            }
    } while (__syncthreads_or(changed));
}

static __device__ long long reduced(int a, const int *tail, const int *head,
                                    const long long *length, const long long *dist)
{
    return dist[head[a]] == INF ? INF : length[a] + dist[head[a]] - dist[tail[a]];
}

static __device__ int arc_between(const int *first, const int *head, int u, int x)
{
    for (int a = first[u]; a < first[u + 1]; ++a)
        if (head[a] == x)
            return a;
    return -1;
}

// The first arc of v's sorted star whose head is unmarked; -1 where none reaches t.
static __device__ int first_allowed(const int *first, const int *head, const long long *dist,
                                    const int *order, const int *mark, int v)
{
    for (int r = first[v]; r < first[v + 1]; ++r) {
        const int a = order[r];
        if (dist[head[a]] == INF)
            return -1;
        if (mark[head[a]] == 0)
            return a;
    }
    return -1;
}

static __device__ bool tree_path_avoids(int t, const int *head, const int *tree, const int *mark,
                                        int x)
{
    while (x != t) {
        x = head[tree[x]];
        if (mark[x] & BLOCKED)
            return false;
    }
    return true;
}

// Writes x and the tree path from it to t at path[size...]; returns the new size.
static __device__ int append_tree_path(int t, const int *head, const int *tree, int *path,
                                       int size, int x)
{
    while (true) {
        path[size++] = x;
        if (x == t)
            return size;
        x = head[tree[x]];
    }
}

// The graph, as every step reads it.
struct Graph {
    int n, m;
    const int *first, *tail, *head;
    const long long *length;
};

// A pair's candidate pool (its offsets applied): slot r holds a path of up to n vertices at
// path + r * n, its length in vertices, key, deviation index and state; found lists the
// slots of the paths found.
struct Pool {
    int *path, *len, *dev, *state, *found;
    long long *key;
};

// Algorithm 1 (Reis et al.): tree[v], the lowest arc of v on a shortest path to t (-1 at t
// and where t is out of reach); every thread of the block takes its vertices.
static __device__ void shortest_path_tree(const Graph &g, int t, const long long *dist,
                                          int *tree)
{
    for (int v = threadIdx.x; v < g.n; v += blockDim.x) {
        int arc = -1;
        if (v != t && dist[v] != INF)
            for (int a = g.first[v]; a < g.first[v + 1]; ++a)
                if (dist[g.head[a]] != INF && g.length[a] + dist[g.head[a]] == dist[v]) {
                    arc = a;
                    break;
                }
        tree[v] = arc;
    }
}

// Algorithm 3: each arc's rank in its tail's segment by reduced length, ties by arc index.
static __device__ void sorted_star(const Graph &g, const long long *dist, int *order)
{
    for (int a = threadIdx.x; a < g.m; a += blockDim.x) {
        const int u = g.tail[a];
        const long long key = reduced(a, g.tail, g.head, g.length, dist);
        int rank = 0;
        for (int b = g.first[u]; b < g.first[u + 1]; ++b) {
            const long long other = reduced(b, g.tail, g.head, g.length, dist);
            rank += other < key || (other == key && b < a);
        }
        order[g.first[u] + rank] = a;
    }
}

// The length of a path's first i arcs (the root of a spur at its vertex i).
static __device__ long long root_key(const Graph &g, const int *path, int i)
{
    long long key = 0;
    for (int j = 0; j < i; ++j)
        key += g.length[arc_between(g.first, g.head, path[j], path[j + 1])];
    return key;
}

// Algorithm 5, lines 15-28: copy the root (the parent's first i + 1 vertices) into the slot's
// path, mark it BLOCKED and the vertices earlier paths with the same root go to next
// FORBIDDEN. Every thread of the block calls it; `active` ones work, by lanes.
static __device__ void mark_root(const Pool &pool, int n, int paths_found,
                                 const int *parent_path, int *path, int i, int *mark,
                                 int lane, int lanes, bool active)
{
    if (active) {
        for (int v = lane; v < n; v += lanes)
            mark[v] = 0;
        for (int j = lane; j <= i; j += lanes)
            path[j] = parent_path[j];
    }
    __syncthreads();
    if (active)
        for (int j = lane; j <= i; j += lanes)
            mark[parent_path[j]] = BLOCKED;
    __syncthreads();
    if (active)
        for (int q = lane; q < paths_found; q += lanes) {
            const int other = pool.found[q];
            if (pool.len[other] <= i + 1)
                continue;
            const int *other_path = pool.path + (size_t)other * n;
            bool same = true;
            for (int j = 0; j <= i && same; ++j)
                same = other_path[j] == parent_path[j];
            if (same)
                atomicOr(&mark[other_path[i + 1]], FORBIDDEN);
        }
    __syncthreads();
}

// MPS's candidate (Algorithm 5; Martins, Pascoal & Santos 1999): the first allowed arc of the
// spur vertex's sorted star followed by the tree path, where that path is loopless: no path
// through the root is shorter. Returns whether a search is still needed.
static __device__ bool tree_candidate(const Graph &g, const Pool &pool, int t,
                                      const long long *dist, const int *tree, const int *order,
                                      const int *mark, int *path, int i, int slot)
{
    const int a = first_allowed(g.first, g.head, dist, order, mark, path[i]);
    if (a < 0)
        return false;
    if (!tree_path_avoids(t, g.head, tree, mark, g.head[a]))
        return true;
    pool.len[slot] = append_tree_path(t, g.head, tree, path, i + 1, g.head[a]);
    pool.key[slot] = root_key(g, path, i) + g.length[a] + dist[g.head[a]];
    pool.state[slot] = CANDIDATE;
    return false;
}

// Yen's candidate (and MPS's where the tree path loops): after the search's distances to t
// avoiding the root, the best arc out of the spur vertex, then shortest-path arcs to t.
static __device__ void searched_candidate(const Graph &g, const Pool &pool, int t,
                                          const int *mark, const long long *spur_dist,
                                          int *path, int i, int slot)
{
    const int v = path[i];
    long long best = INF;
    int best_arc = -1;
    for (int a = g.first[v]; a < g.first[v + 1]; ++a) {
        const int x = g.head[a];
        if (mark[x] == 0 && spur_dist[x] != INF && g.length[a] + spur_dist[x] < best) {
            best = g.length[a] + spur_dist[x];
            best_arc = a;
        }
    }
    if (best_arc < 0)
        return;
    int size = i + 1, y = g.head[best_arc];
    while (true) {
        path[size++] = y;
        if (y == t)
            break;
        for (int b = g.first[y]; b < g.first[y + 1]; ++b) {
            const int z = g.head[b];
            if (!(mark[z] & BLOCKED) && spur_dist[z] != INF &&
                g.length[b] + spur_dist[z] == spur_dist[y]) {
                y = z;
                break;
            }
        }
    }
    pool.len[slot] = size;
    pool.key[slot] = root_key(g, path, i) + best;
    pool.state[slot] = CANDIDATE;
}

// One round's candidates: the last path's spur vertices, from its deviation vertex on
// (Lawler's rule), dealt to the groups, `groups` at a time (Algorithms 5 and 6).
static __device__ void spur_candidates(bool shortcut, const Graph &g, const Pool &pool,
                                       int t, int groups, const long long *dist,
                                       const int *tree, const int *order, int *mark,
                                       long long *spur_dist, int paths_found, int used)
{
    __shared__ int need_search[BLOCK];
    const int lanes = blockDim.x / groups, group = threadIdx.x / lanes,
              lane = threadIdx.x % lanes;
    const int parent = pool.found[paths_found - 1], deviation = pool.dev[parent];
    const int spurs = pool.len[parent] - 1 - deviation;
    const int *parent_path = pool.path + (size_t)parent * g.n;
    for (int start = 0; start < spurs; start += groups) {
        const int i = deviation + start + group;
        const bool active = group < groups && start + group < spurs;
        const int slot = used + i - deviation;
        int *path = pool.path + (size_t)slot * g.n;
        mark_root(pool, g.n, paths_found, parent_path, path, i, mark, lane, lanes, active);
        if (active && lane == 0) {
            pool.dev[slot] = i;
            pool.state[slot] = DEAD;
            need_search[group] = !shortcut ||
                tree_candidate(g, pool, t, dist, tree, order, mark, path, i, slot);
        }
        __syncthreads();
        const bool search = active && need_search[group];
        distances_to(g.n, g.m, t, g.tail, g.head, g.length, mark, spur_dist, lane, lanes,
                     search);
        if (search && lane == 0)
            searched_candidate(g, pool, t, mark, spur_dist, path, i, slot);
        __syncthreads();
    }
}

// Algorithm 4, line 27: the shortest candidate of the first `slots` (the lowest slot among
// equal keys) by a block reduction; -1 where none is left.
static __device__ int shortest_candidate(const Pool &pool, int slots)
{
    __shared__ long long best_key[BLOCK];
    __shared__ int best_slot[BLOCK];
    long long key = INF;
    int chosen = -1;
    for (int slot = threadIdx.x; slot < slots; slot += blockDim.x)
        if (pool.state[slot] == CANDIDATE && pool.key[slot] < key) {
            key = pool.key[slot];
            chosen = slot;
        }
    best_key[threadIdx.x] = key;
    best_slot[threadIdx.x] = chosen;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            const long long other = best_key[threadIdx.x + half];
            const int other_slot = best_slot[threadIdx.x + half];
            if (other_slot >= 0 && (best_slot[threadIdx.x] < 0 || other < best_key[threadIdx.x] ||
                                    (other == best_key[threadIdx.x] &&
                                     other_slot < best_slot[threadIdx.x]))) {
                best_key[threadIdx.x] = other;
                best_slot[threadIdx.x] = other_slot;
            }
        }
        __syncthreads();
    }
    return best_slot[0];
}

// The paths found, in order, into out_path (k rows of n), out_len and out_key.
static __device__ void write_paths(const Pool &pool, int n, int total, int *out_path,
                                   int *out_len, long long *out_key)
{
    for (int r = 0; r < total; ++r) {
        const int slot = pool.found[r];
        for (int j = threadIdx.x; j < pool.len[slot]; j += blockDim.x)
            out_path[(size_t)r * n + j] = pool.path[(size_t)slot * n + j];
    }
    if (threadIdx.x == 0)
        for (int r = 0; r < total; ++r) {
            out_len[r] = pool.len[pool.found[r]];
            out_key[r] = pool.key[pool.found[r]];
        }
}

// Algorithm 4 for the block's pair: the tree of shortest paths to t, the sorted star (MPS,
// where `shortcut` is set; Yen without it), then K - 1 rounds of candidates and the shortest
// chosen.
extern "C" __global__ void __launch_bounds__(BLOCK) ksp_kernel(
    int shortcut, int n, int k, int pairs, int groups, const int *first, const int *tail,
    const int *head, const long long *length, const int *sources, const int *targets,
    long long *dist, int *tree, int *order, int *pool_path, int *pool_len, long long *pool_key,
    int *pool_dev, int *pool_state, int *found, long long *group_dist, int *group_mark,
    int *out_path, int *out_len, long long *out_key, int *out_count)
{
    __shared__ int paths_found, used;
    const int pair = blockIdx.x;
    if (pair >= pairs)
        return;
    const int m = first[n], size = 1 + (k - 1) * (n > 1 ? n - 1 : 0);
    const Graph g = {n, m, first, tail, head, length};
    const Pool pool = {pool_path + (size_t)pair * size * n, pool_len + (size_t)pair * size,
                       pool_dev + (size_t)pair * size, pool_state + (size_t)pair * size,
                       found + (size_t)pair * k, pool_key + (size_t)pair * size};
    const int s = sources[pair], t = targets[pair];
    const int group = threadIdx.x / (blockDim.x / groups), own = group < groups ? group : 0;
    dist += (size_t)pair * n;
    tree += (size_t)pair * n;
    order += (size_t)pair * m;
    int *mark = group_mark + ((size_t)pair * groups + own) * n;
    long long *spur_dist = group_dist + ((size_t)pair * groups + own) * n;

    // Algorithm 4, lines 3-10: the tree of shortest paths to t. The group marks start clear.
    for (int v = threadIdx.x; v < n; v += blockDim.x)
        group_mark[(size_t)pair * groups * n + v] = 0;
    __syncthreads();
    distances_to(n, m, t, tail, head, length, group_mark + (size_t)pair * groups * n, dist,
                 threadIdx.x, blockDim.x, true);
    if (dist[s] == INF) {
        if (threadIdx.x == 0)
            out_count[pair] = 0;
        return;
    }
    shortest_path_tree(g, t, dist, tree);
    if (shortcut)
        sorted_star(g, dist, order);
    __syncthreads();
    if (threadIdx.x == 0) {
        pool.len[0] = append_tree_path(t, head, tree, pool.path, 0, s);
        pool.key[0] = dist[s];
        pool.dev[0] = 0;
        pool.state[0] = CHOSEN;
        pool.found[0] = 0;
        paths_found = 1;
        used = 1;
    }
    __syncthreads();
    while (paths_found < k) {
        const int parent = pool.found[paths_found - 1];
        const int slots = used + pool.len[parent] - 1 - pool.dev[parent];
        spur_candidates(shortcut, g, pool, t, groups, dist, tree, order, mark, spur_dist,
                        paths_found, used);
        const int best = shortest_candidate(pool, slots);
        if (best < 0)
            break;
        if (threadIdx.x == 0) {
            pool.state[best] = CHOSEN;
            pool.found[paths_found] = best;
            paths_found += 1;
            used = slots;
        }
        __syncthreads();
    }
    write_paths(pool, n, paths_found, out_path + (size_t)pair * k * n,
                out_len + (size_t)pair * k, out_key + (size_t)pair * k);
    if (threadIdx.x == 0)
        out_count[pair] = paths_found;
}
