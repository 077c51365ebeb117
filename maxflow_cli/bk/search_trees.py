"""Boykov-Kolmogorov maximum flow in Numba, on the shared residual graph.

Boykov & Kolmogorov, "An experimental comparison of min-cut/max-flow algorithms for energy
minimization in vision" (IEEE TPAMI 26(9), 2004), §3. Two search trees are kept from one
augmentation to the next: S, rooted at the source, whose tree arcs are residual from parent
to child, and T, rooted at the sink, residual from child to parent. Growth: an active vertex
scans its arcs and takes free vertices it reaches into its tree; an arc that meets the other
tree closes an augmenting path. Augmentation pushes the path's bottleneck; the tree arcs it
saturates leave orphans. Adoption: an orphan looks for a parent in its own tree whose own
path reaches the root; failing that it becomes free, its children become orphans and the
neighbours that could reach it become active. The distance and timestamp of each vertex
(§3.3's heuristics, as in the authors' maxflow 3) make the root check short and prefer
parents close to the root.

The source and the sink are vertices like any other (the roots), so every DIMACS network,
terminal arcs of any kind included, is solved as it stands. The residuals end as a maximum
flow.

State, passed in this order where a function takes them: the graph (first, head, rev, res),
tree (1 in S, -1 in T, 0 free), parent (the arc of the vertex's own list that leads to its
parent; ROOT for the source and the sink, ORPHAN while an orphan), stamp and dist (the
heuristics' timestamp and distance), the active ring (its vertices, their flags, `ends`), the orphan
queue, and counters.
"""

import numba
import numpy as np

ROOT, ORPHAN = -2, -1
FAR = np.iinfo(np.int64).max
AUGMENTATIONS, GROWN, ORPHANS, ADOPTIONS, FREED = range(5)
COUNTER_NAMES = ("augmentations", "grown", "orphans", "adoptions", "freed")
DONE, STOPPED = 0, 1
HEAD, LENGTH, GROWING, RESCAN = range(4)
"""Slots of `ends`: the active ring's head and length, the vertex being grown (-1: none)
and whether its scan must start over."""

_jit = numba.njit(cache=True, nogil=True, _nrt=False)
"""The search allocates nothing, so it runs without Numba's reference counting (as eibfs's
does: with it, every call that passes arrays on counts references to them atomically)."""


@_jit
def _open_towards(res, rev, a, side):
    """Whether arc a (p -> q) carries flow in tree direction `side` from p's tree: p -> q in
    S, q -> p in T."""
    return res[a] > 0 if side > 0 else res[rev[a]] > 0


@_jit
def _push(ring, ends, v):
    """Append v to a ring (ends[HEAD]: its first slot, ends[LENGTH]: how many it holds)."""
    ring[(ends[HEAD] + ends[LENGTH]) % ring.shape[0]] = v
    ends[LENGTH] += 1


@_jit
def _pop(ring, ends):
    """Take the ring's first vertex."""
    v = ring[ends[HEAD]]
    ends[HEAD] = (ends[HEAD] + 1) % ring.shape[0]
    ends[LENGTH] -= 1
    return v


@_jit
def _activate(v, active, queued, ends):
    """Append v to the active ring unless it is there; if v is the vertex being grown, its
    scan starts over (an arc it passed may lead to a vertex freed since)."""
    if queued[v]:
        if v == ends[GROWING]:
            ends[RESCAN] = 1
        return
    queued[v] = 1
    _push(active, ends, v)


@_jit
def _next_active(tree, active, queued, ends):
    """The first vertex of the ring still in a tree (freed ones are dropped); -1 if none."""
    while ends[LENGTH] > 0:
        v = _pop(active, ends)
        if tree[v] != 0:
            return v
        queued[v] = 0
    return -1


@_jit
def _grow(p, start, first, head, rev, res, tree, parent, stamp, dist, active, queued, ends,
          counters):
    """Scan p's arcs from `start`: take free vertices into p's tree, shorten links by the
    heuristics; return the arc that meets the other tree, or -1."""
    side = tree[p]
    for a in range(start, first[p + 1]):
        if not _open_towards(res, rev, a, side):
            continue
        q = head[a]
        if tree[q] == 0:
            tree[q], parent[q] = side, rev[a]
            stamp[q], dist[q] = stamp[p], dist[p] + 1
            counters[GROWN] += 1
            _activate(q, active, queued, ends)
        elif tree[q] == -side:
            return a
        elif stamp[q] <= stamp[p] and dist[q] > dist[p] and parent[q] >= 0:
            parent[q], stamp[q], dist[q] = rev[a], stamp[p], dist[p] + 1
    return -1


@_jit
def _bottleneck(bridge, head, rev, res, parent):
    """The smallest residual on the path source -> ... -> bridge -> ... -> sink."""
    delta = res[bridge]
    v = head[rev[bridge]]
    while parent[v] != ROOT:
        a = parent[v]
        delta = min(delta, res[rev[a]])
        v = head[a]
    v = head[bridge]
    while parent[v] != ROOT:
        a = parent[v]
        delta = min(delta, res[a])
        v = head[a]
    return delta


@_jit
def _orphan(v, parent, orphans, orphan_ends, counters):
    """Cut v from its parent and append it to the orphan ring."""
    parent[v] = ORPHAN
    _push(orphans, orphan_ends, v)
    counters[ORPHANS] += 1


@_jit
def _augment(bridge, head, rev, res, parent, orphans, orphan_ends, counters):
    """Push the path's bottleneck; each tree arc it saturates makes its child an orphan."""
    delta = _bottleneck(bridge, head, rev, res, parent)
    res[bridge] -= delta
    res[rev[bridge]] += delta
    for side in (1, -1):
        v = head[rev[bridge]] if side > 0 else head[bridge]
        while parent[v] != ROOT:
            a = parent[v]
            along = rev[a] if side > 0 else a  # the tree arc, in the direction flow goes
            res[along] -= delta
            res[rev[along]] += delta
            if res[along] == 0:
                _orphan(v, parent, orphans, orphan_ends, counters)
            v = head[a]
    counters[AUGMENTATIONS] += 1
    return delta


@_jit
def _root_distance(q, time, head, parent, stamp, dist):
    """q's distance to its root through valid parents, FAR if its path meets an orphan; the
    vertices on a valid path get this time's stamp and their distance."""
    d, j = 0, q
    while stamp[j] != time:
        a = parent[j]
        if a == ROOT:
            stamp[j], dist[j] = time, 0
            break
        if a == ORPHAN:
            return FAR
        d += 1
        j = head[a]
    d += dist[j]
    total, j = d, q
    while stamp[j] != time:
        stamp[j], dist[j] = time, d
        d -= 1
        j = head[parent[j]]
    return total


@_jit
def _adopt(p, time, first, head, rev, res, tree, parent, stamp, dist, active, queued, ends,
           orphans, orphan_ends, counters):
    """Give orphan p the valid parent nearest to the root, or free it: its children become
    orphans, the neighbours that could reach it become active."""
    side, best, nearest = tree[p], -1, FAR
    for a in range(first[p], first[p + 1]):
        q = head[a]
        if tree[q] == side and _open_towards(res, rev, rev[a], side):
            d = _root_distance(q, time, head, parent, stamp, dist)
            if d < nearest:
                best, nearest = a, d
    if best >= 0:
        parent[p], stamp[p], dist[p] = best, time, nearest + 1
        counters[ADOPTIONS] += 1
        return
    counters[FREED] += 1
    tree[p] = 0
    for a in range(first[p], first[p + 1]):
        q = head[a]
        if tree[q] != side:
            continue
        if _open_towards(res, rev, rev[a], side):
            _activate(q, active, queued, ends)
        if parent[q] >= 0 and head[parent[q]] == p:
            _orphan(q, parent, orphans, orphan_ends, counters)


def bk_max_flow(first, head, rev, res, source, sink, counters, stop):
    """The maximum flow from source to sink, `res` left as its residuals (BK 2004, §3).
    Returns (value, DONE), or (value so far, STOPPED) once `stop[0]` is set."""
    n = first.shape[0] - 1
    tree, parent = np.zeros(n, np.int8), np.full(n, ORPHAN, np.int32)
    tree[source], tree[sink], parent[source], parent[sink] = 1, -1, ROOT, ROOT
    return _search(first, head, rev, res, source, sink, tree, parent, np.zeros(n, np.int64),
                   np.zeros(n, np.int64), np.empty(n, np.int32), np.zeros(n, np.uint8),
                   np.array([0, 0, -1, 0], np.int64), np.empty(n, np.int32),
                   np.zeros(2, np.int64), counters, stop)


@_jit
def _search(first, head, rev, res, source, sink, tree, parent, stamp, dist, active, queued,
            ends, orphans, orphan_ends, counters, stop):
    """Growth, augmentation and adoption until no active vertex is left or `stop` is set."""
    _activate(source, active, queued, ends)
    _activate(sink, active, queued, ends)
    flow, time, p, start = 0, 0, -1, 0
    while not stop[0]:
        if p >= 0 and tree[p] == 0:  # freed by the last adoption: it may come back active
            queued[p], p = 0, -1
        if p < 0:
            p = _next_active(tree, active, queued, ends)
            if p < 0:
                return flow, DONE
            start, ends[GROWING] = first[p], p
        a = _grow(p, start, first, head, rev, res, tree, parent, stamp, dist, active, queued,
                  ends, counters)
        if a < 0:
            queued[p], p, ends[GROWING] = 0, -1, -1
            continue
        time += 1
        flow += _augment(a if tree[p] > 0 else rev[a], head, rev, res, parent, orphans,
                         orphan_ends, counters)
        _adopt_orphans(time, first, head, rev, res, tree, parent, stamp, dist, active, queued,
                       ends, orphans, orphan_ends, counters)
        start, ends[RESCAN] = first[p] if ends[RESCAN] else a, 0
    return flow, STOPPED


@_jit
def _adopt_orphans(time, first, head, rev, res, tree, parent, stamp, dist, active, queued,
                   ends, orphans, orphan_ends, counters):
    """Adopt or free the orphans in the order they came (BK 2004, §3.2)."""
    while orphan_ends[LENGTH] > 0:
        _adopt(_pop(orphans, orphan_ends), time, first, head, rev, res, tree, parent, stamp,
               dist, active, queued, ends, orphans, orphan_ends, counters)


@numba.njit(cache=True, nogil=True)
def net_inflows(first, cap, res):
    """Each vertex's flow in less its flow out (an arc's flow is cap - res, its reverse's
    the negative): the sink's is the flow value."""
    n = first.shape[0] - 1
    inflow = np.zeros(n, np.int64)
    for v in range(n):
        for a in range(first[v], first[v + 1]):
            inflow[v] -= cap[a] - res[a]
    return inflow
