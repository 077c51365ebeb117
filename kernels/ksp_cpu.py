"""Numba twin of ksp.cu: the same K-shortest-loopless-paths search, one source-target pair at
a time per CPU thread (prange over the pairs), its spur vertices one after the other.

Each step gives the kernel's result exactly: distances are unique, and every choice between
equal keys (the tree arc, the sorted star, the spur path, the next path) takes the lowest arc
or slot index, as the kernel does. The group count (`groups`, the kernel's threads per
candidate) only sizes the scratch arrays here. See ksp.cu for the layout.
"""

import numba
from numba import prange

from maxflow_cli.kernels.declarations import source_constant

INF = 1 << source_constant("ksp", "INF_BITS")
CANDIDATE, CHOSEN, DEAD = (source_constant("ksp", name) for name in ("CANDIDATE", "CHOSEN", "DEAD"))
BLOCKED, FORBIDDEN = source_constant("ksp", "BLOCKED"), source_constant("ksp", "FORBIDDEN")


@numba.njit(cache=True)
def pool_size(n, k):
    """Candidate slots per pair: the first path, then at most n - 1 spurs per path found."""
    return 1 + (k - 1) * max(n - 1, 0)


@numba.njit(cache=True)
def _distances_to(t, tail, head, length, mark, dist):
    """Distances to t (Bellman-Ford over the arcs, backwards) through no BLOCKED vertex."""
    dist[:] = INF
    dist[t] = 0
    changed = True
    while changed:
        changed = False
        for a in range(head.shape[0]):
            u, x = tail[a], head[a]
            if dist[x] == INF or (mark[u] | mark[x]) & BLOCKED:
                continue
            if dist[x] + length[a] < dist[u]:
                dist[u] = dist[x] + length[a]
                changed = True


@numba.njit(cache=True)
def _shortest_path_tree(n, t, first, head, length, dist, tree):
    """Reis et al., Algorithm 1 forwards: tree[v], the lowest arc of v on a shortest path
    to t (-1 at t and where t is out of reach)."""
    for v in range(n):
        tree[v] = -1
        if v == t or dist[v] == INF:
            continue
        for a in range(first[v], first[v + 1]):
            if dist[head[a]] < INF and length[a] + dist[head[a]] == dist[v]:
                tree[v] = a
                break


@numba.njit(cache=True, inline="always")
def _reduced(a, tail, head, length, dist):
    """The reduced length of arc a (Reis et al., section 5.1): INF where its head cannot
    reach t."""
    if dist[head[a]] == INF:
        return INF
    return length[a] + dist[head[a]] - dist[tail[a]]


@numba.njit(cache=True)
def _sorted_star(first, tail, head, length, dist, order):
    """Forward sorted star form (Reis et al., Algorithm 3): each vertex's arcs by reduced
    length, ties by arc index; each arc finds its place by counting the arcs of its segment
    that come before it (one pass, as every thread of the kernel does for its arcs)."""
    for a in range(head.shape[0]):
        u = tail[a]
        key = _reduced(a, tail, head, length, dist)
        rank = 0
        for b in range(first[u], first[u + 1]):
            other = _reduced(b, tail, head, length, dist)
            if other < key or (other == key and b < a):
                rank += 1
        order[first[u] + rank] = a


@numba.njit(cache=True)
def arc_between(first, head, u, x):
    """The first arc from u to x, or -1."""
    for a in range(first[u], first[u + 1]):
        if head[a] == x:
            return a
    return -1


@numba.njit(cache=True)
def _first_allowed(first, head, dist, order, mark, v):
    """The first arc of v's sorted star whose head is neither on the root nor taken from
    there by an earlier path; -1 where no such arc reaches t."""
    for r in range(first[v], first[v + 1]):
        a = order[r]
        if dist[head[a]] == INF:
            return -1  # the rest of the star cannot reach t either
        if mark[head[a]] == 0:
            return a
    return -1


@numba.njit(cache=True)
def _append_tree_path(t, head, tree, row, size, x):
    """Write the tree path from x to t into row from position `size` on (ksp.cu's
    append_tree_path); returns the row's new length."""
    while True:
        row[size] = x
        size += 1
        if x == t:
            return size
        x = head[tree[x]]


@numba.njit(cache=True)
def _tree_path_avoids(t, head, tree, mark, x):
    """Whether the tree path from x to t meets no BLOCKED vertex (Reis et al., Algorithm 5's
    loopless test)."""
    while x != t:
        x = head[tree[x]]
        if mark[x] & BLOCKED:
            return False
    return True


@numba.njit(cache=True)
def _root_key(first, head, length, row, i):
    """The length of the path's first i arcs (the root of a spur at its vertex i)."""
    key = 0
    for j in range(i):
        key += length[arc_between(first, head, row[j], row[j + 1])]
    return key


@numba.njit(cache=True)
def _mark_root(path, parent, i, found, paths_found, pool_len, mark, slot):
    """Reis et al., Algorithm 5 lines 15-28: copy the root (the parent's first i + 1
    vertices) into the slot, mark it BLOCKED and the vertices earlier paths with the same
    root go to next FORBIDDEN."""
    mark[:] = 0
    for j in range(i + 1):
        path[slot, j] = path[parent, j]
        mark[path[parent, j]] |= BLOCKED
    for q in range(paths_found):
        other = found[q]
        if pool_len[other] > i + 1:
            same = True
            for j in range(i + 1):
                if path[other, j] != path[parent, j]:
                    same = False
                    break
            if same:
                mark[path[other, i + 1]] |= FORBIDDEN


SEARCH = -2  # _tree_candidate's answer where the tree path loops: a search must find the spur


@numba.njit(cache=True)
def _tree_candidate(t, first, head, length, dist, tree, order, mark, row, i, pool_len, slot):
    """MPS's candidate (Martins, Pascoal & Santos 1999; Reis et al. Algorithm 5): the first
    allowed arc of the spur vertex's sorted star followed by the tree path, where that path
    is loopless (no path through the root is shorter). Returns its key, -1 where no arc is
    allowed, or SEARCH."""
    a = _first_allowed(first, head, dist, order, mark, row[i])
    if a < 0:
        return -1
    if not _tree_path_avoids(t, head, tree, mark, head[a]):
        return SEARCH
    pool_len[slot] = _append_tree_path(t, head, tree, row, i + 1, head[a])
    return _root_key(first, head, length, row, i) + length[a] + dist[head[a]]


@numba.njit(cache=True)
def _searched_candidate(t, first, head, length, mark, spur_dist, row, i, pool_len, slot):
    """Yen's candidate (and MPS's where the tree path loops): after the search's distances
    to t avoiding the root, the best arc out of the spur vertex, then shortest-path arcs to
    t. Returns its key, or -1 where none reaches t."""
    best, best_arc = INF, -1
    for a in range(first[row[i]], first[row[i] + 1]):
        x = head[a]
        if mark[x] == 0 and spur_dist[x] < INF and length[a] + spur_dist[x] < best:
            best, best_arc = length[a] + spur_dist[x], a
    if best_arc < 0:
        return -1
    size = i + 1
    y = head[best_arc]
    while True:
        row[size] = y
        size += 1
        if y == t:
            break
        for b in range(first[y], first[y + 1]):
            z = head[b]
            if mark[z] & BLOCKED == 0 and spur_dist[z] < INF and \
                    length[b] + spur_dist[z] == spur_dist[y]:
                y = z
                break
    pool_len[slot] = size
    return _root_key(first, head, length, row, i) + best


@numba.njit(cache=True)
def _spur(t, shortcut, first, tail, head, length, dist, tree, order, path, parent, i,
          found, paths_found, pool_len, mark, spur_dist, slot):
    """The candidate deviating from path `parent` at its vertex i (Yen 1971; with `shortcut`,
    MPS) into pool slot `slot`; returns its key, or -1 where no loopless path deviates
    there."""
    _mark_root(path, parent, i, found, paths_found, pool_len, mark, slot)
    if shortcut:
        key = _tree_candidate(t, first, head, length, dist, tree, order, mark, path[slot], i,
                              pool_len, slot)
        if key != SEARCH:
            return key
    _distances_to(t, tail, head, length, mark, spur_dist)
    return _searched_candidate(t, first, head, length, mark, spur_dist, path[slot], i,
                               pool_len, slot)


@numba.njit(cache=True)
def _shortest_candidate(pool_state, pool_key, slots):
    """Algorithm 4, line 27: the shortest candidate of the first `slots` (the lowest slot
    among equal keys); -1 where none is left."""
    best = -1
    for slot in range(slots):
        if pool_state[slot] == CANDIDATE and (best < 0 or pool_key[slot] < pool_key[best]):
            best = slot
    return best


@numba.njit(cache=True)
def _pair(n, k, s, t, shortcut, first, tail, head, length, dist, tree, order, path, pool_len,
          pool_key, pool_dev, pool_state, found, mark, spur_dist, out_path, out_len, out_key):
    """Reis et al., Algorithm 4 for one pair: the tree of shortest paths to t, the sorted
    star, then K - 1 rounds of candidates from the last path's spur vertices (Lawler's rule:
    from its deviation vertex on) and the shortest candidate chosen. Returns paths found."""
    mark[:] = 0
    _distances_to(t, tail, head, length, mark, dist)
    if dist[s] == INF:
        return 0
    _shortest_path_tree(n, t, first, head, length, dist, tree)
    if shortcut:
        _sorted_star(first, tail, head, length, dist, order)
    size = _append_tree_path(t, head, tree, path[0], 0, s)
    pool_len[0], pool_key[0], pool_dev[0], pool_state[0] = size, dist[s], 0, CHOSEN
    found[0] = 0
    paths_found, used = 1, 1
    while paths_found < k:
        parent = found[paths_found - 1]
        for i in range(pool_dev[parent], pool_len[parent] - 1):
            slot = used + i - pool_dev[parent]
            key = _spur(t, shortcut, first, tail, head, length, dist, tree, order, path,
                        parent, i, found, paths_found, pool_len, mark, spur_dist, slot)
            pool_key[slot], pool_dev[slot] = key, i
            pool_state[slot] = CANDIDATE if key >= 0 else DEAD
        used += pool_len[parent] - 1 - pool_dev[parent]
        best = _shortest_candidate(pool_state, pool_key, used)
        if best < 0:
            break
        pool_state[best] = CHOSEN
        found[paths_found] = best
        paths_found += 1
    for r in range(paths_found):
        slot = found[r]
        out_len[r], out_key[r] = pool_len[slot], pool_key[slot]
        out_path[r, :pool_len[slot]] = path[slot, :pool_len[slot]]
    return paths_found


@numba.njit(cache=True, parallel=True)
def ksp_kernel(shortcut, n, k, pairs, groups, first, tail, head, length, sources, targets, dist,
               tree, order, pool_path, pool_len, pool_key, pool_dev, pool_state, found,
               group_dist, group_mark, out_path, out_len, out_key, out_count):
    """Twin of ksp_kernel: every pair's K shortest paths, MPS where `shortcut` is set
    (candidates by the sorted star and the tree first), else Yen (a shortest-path search per
    spur vertex)."""
    m, size = head.shape[0], pool_size(n, k)
    for pair in prange(pairs):
        out_count[pair] = _pair(
            n, k, sources[pair], targets[pair], shortcut, first, tail, head, length,
            dist[pair * n:(pair + 1) * n], tree[pair * n:(pair + 1) * n],
            order[pair * m:(pair + 1) * m],
            pool_path[pair * size * n:(pair + 1) * size * n].reshape(size, n),
            pool_len[pair * size:(pair + 1) * size], pool_key[pair * size:(pair + 1) * size],
            pool_dev[pair * size:(pair + 1) * size], pool_state[pair * size:(pair + 1) * size],
            found[pair * k:(pair + 1) * k],
            group_mark[pair * groups * n:(pair * groups + 1) * n],
            group_dist[pair * groups * n:(pair * groups + 1) * n],
            out_path[pair * k * n:(pair + 1) * k * n].reshape(k, n),
            out_len[pair * k:(pair + 1) * k], out_key[pair * k:(pair + 1) * k])
