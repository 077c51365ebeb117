"""Hochbaum's pseudoflow algorithm, highest label with FIFO buckets (HPF), in Numba.

Hochbaum 2008 (Operations Research 56(4)); Chandran & Hochbaum 2009 (Operations Research
57(2)), run as the authors' pseudo-max code and PBBS's pseudoSeq run it. Simple
initialisation: every source arc and every sink arc saturated, each other vertex a tree of its
own; those with excess are strong roots, filed in FIFO buckets by label (1; weak vertices 0).
Each step takes a strong root of the highest label L and searches, depth first, its tree's
vertices of label L for a residual arc to a vertex of label L-1 (merger arc). Found: the strong
branch hangs under that vertex (the path to its root reversed) and its root's excess is pushed
up to the new root, the tree splitting below every arc that saturates (the excess left below
roots a new strong tree). Not found: the vertices searched are relabelled to L+1. A bucket with
no vertex one label below (a gap) lifts its trees out, to label n.

Phase 1 ends with the minimum cut (the lifted vertices and the source) and leaves a pseudoflow:
the deficits of weak roots are taken back out of their arcs into the sink (saturated at first,
they bound every deficit), which makes it a maximum preflow. Phase 2, the recovery of a flow,
returns the strong vertices' excesses to the source (hi_pr's stage 2 does that).

Arcs are the residual graph's; the source and sink carry label n, so no arc to them is ever a
merger arc. Vertex n stands for none (no parent, child, sibling or root). As in hipr's core,
vertex and arc numbers and labels are unsigned views (Numba guards a signed index against
negative values), and the helpers are inlined into one loop that is given every array (Numba
prunes the reference counting of arrays so given, which a call per step would pay).
"""

import numba
import numpy as np

from maxflow_cli.residual import ResidualGraph

# Slots of the counters array: mergers, pushes along tree arcs, splits (pushes that saturate
# an arc and leave a new strong root), relabels, trees lifted at gaps, strong roots processed.
MERGERS, PUSHES, SPLITS, RELABELS, GAPS, ROOTS = range(6)
COUNTER_NAMES = ("mergers", "pushes", "splits", "relabels", "gaps", "strong_roots")


@numba.njit(cache=True, inline="always")
def _attach(child, parent, parent_of, first_child, next_sibling, prev_sibling):
    """Make `child` (a root) the first child of `parent`."""
    n = parent_of.shape[0]
    sibling = first_child[parent]
    parent_of[child] = parent
    next_sibling[child] = sibling
    prev_sibling[child] = n
    if sibling != n:
        prev_sibling[sibling] = child
    first_child[parent] = child


@numba.njit(cache=True, inline="always")
def _detach(child, parent_of, first_child, next_sibling, prev_sibling):
    """Cut `child` from its parent: it becomes a root."""
    n = parent_of.shape[0]
    before = prev_sibling[child]
    after = next_sibling[child]
    if before == n:
        first_child[parent_of[child]] = after
    else:
        next_sibling[before] = after
    if after != n:
        prev_sibling[after] = before
    parent_of[child] = n


@numba.njit(cache=True, inline="always")
def _enqueue(v, level, bucket_first, bucket_last, bucket_next):
    """File strong root v at the back of bucket `level`."""
    n = bucket_next.shape[0]
    bucket_next[v] = n
    if bucket_first[level] == n:
        bucket_first[level] = v
    else:
        bucket_next[bucket_last[level]] = v
    bucket_last[level] = v


@numba.njit(cache=True, inline="always")
def _dequeue(level, bucket_first, bucket_next):
    """Take the strong root at the front of bucket `level` (not empty)."""
    v = bucket_first[level]
    bucket_first[level] = bucket_next[v]
    return v


@numba.njit(cache=True, inline="always")
def _relabel(v, first, label, label_count, current, counters):
    """Raise v's label by one; its arc scan starts over."""
    label_count[label[v]] -= 1
    label[v] += 1
    label_count[label[v]] += 1
    current[v] = first[v]
    counters[RELABELS] += 1


@numba.njit(cache=True)
def _saturate_terminal_arcs(first, head, rev, res, excess, source, sink):
    """The simple initialisation's flow: every arc out of the source and every arc into the
    sink saturated (self-loops aside); excess = inflow - outflow but at the sink.

    A vertex's deficit is held at most the source's total capacity, which bounds all the
    excess phase 1 can ever bring to it: a vertex held so stays weak (on the sink side) and
    no excess overflows int64 (the sink's arcs may sum past it; build_residual bounds the
    source's)."""
    for a in range(first[source], first[source + 1]):
        if head[a] != source and res[a] > 0:
            excess[head[a]] += res[a]
            res[rev[a]] += res[a]
            excess[source] -= res[a]
            res[a] = 0
    bound = -excess[source]
    for b in range(first[sink], first[sink + 1]):
        a = rev[b]  # head[b] -> sink
        v = head[b]
        if v != sink and v != source and res[a] > 0:
            delta = res[a] if res[a] - bound <= excess[v] else excess[v] + bound
            excess[v] -= delta
            res[b] += delta
            res[a] -= delta


@numba.njit(cache=True)
def _initial_forest(excess, label, label_count, bucket_first, bucket_last, bucket_next,
                    source, sink):
    """Every vertex a root of its own (the tree arrays are set to none by the caller); strong
    ones (excess > 0) at label 1 in bucket 1 in vertex order, weak ones at 0; the source and
    sink at n."""
    n = label.shape[0]
    label_count[:] = 0
    bucket_first[:] = n
    for v in range(n):
        if v == source or v == sink:
            label[v] = n
            continue
        label[v] = 1 if excess[v] > 0 else 0
        label_count[label[v]] += 1
        if excess[v] > 0:
            _enqueue(v, 1, bucket_first, bucket_last, bucket_next)


@numba.njit(cache=True, inline="always")
def _find_merger_arc(u, first, head, res, label, current):
    """Move u's current arc to its next residual arc to a vertex one label below u's; False
    when there is none left (the current arc then rests at the end)."""
    wanted = label[u] - 1
    stop = first[u + 1]
    for a in range(current[u], stop):
        if res[a] > 0 and label[head[a]] == wanted:
            current[u] = a
            return True
    current[u] = stop
    return False


@numba.njit(cache=True, inline="always")
def _next_child_or_relabel(u, first, label, label_count, current, next_sibling, next_scan,
                           counters):
    """Move u's scan pointer to its next child of u's label (still to search); relabel u when
    none is left (pseudo-max's checkChildren)."""
    n = label.shape[0]
    child = next_scan[u]
    while child != n and label[child] != label[u]:
        child = next_sibling[child]
    next_scan[u] = child
    if child == n:
        _relabel(u, first, label, label_count, current, counters)


@numba.njit(cache=True, inline="always")
def _merge(strong, weak, arc, rev, parent_of, up, first_child, next_sibling, prev_sibling):
    """Hang the strong branch under `weak` through `arc` (strong -> weak): the path from
    `strong` to its root is reversed, so that `strong` becomes the branch's root."""
    n = parent_of.shape[0]
    node = strong
    new_parent = weak
    new_up = arc
    while parent_of[node] != n:
        old_parent = parent_of[node]
        old_up = up[node]
        _detach(node, parent_of, first_child, next_sibling, prev_sibling)
        _attach(node, new_parent, parent_of, first_child, next_sibling, prev_sibling)
        up[node] = new_up
        new_parent = node
        new_up = rev[old_up]
        node = old_parent
    _attach(node, new_parent, parent_of, first_child, next_sibling, prev_sibling)
    up[node] = new_up


@numba.njit(cache=True, inline="always")
def _push_excess(start, rev, res, excess, label, parent_of, up, first_child, next_sibling,
                 prev_sibling, bucket_first, bucket_last, bucket_next, counters):
    """Push `start`'s excess up its tree to the root. An arc with less residual capacity than
    the excess is saturated and split off: the vertex below roots a new strong tree. A root
    that turns strong (it had none) is filed in its bucket."""
    n = parent_of.shape[0]
    node = start
    previous_excess = 1
    while excess[node] > 0 and parent_of[node] != n:
        parent = parent_of[node]
        previous_excess = excess[parent]
        a = up[node]
        delta = min(excess[node], res[a])
        res[a] -= delta
        res[rev[a]] += delta
        excess[parent] += delta
        excess[node] -= delta
        counters[PUSHES] += 1
        if excess[node] > 0:
            _detach(node, parent_of, first_child, next_sibling, prev_sibling)
            _enqueue(node, label[node], bucket_first, bucket_last, bucket_next)
            counters[SPLITS] += 1
        node = parent
    if excess[node] > 0 and previous_excess <= 0:
        _enqueue(node, label[node], bucket_first, bucket_last, bucket_next)


@numba.njit(cache=True, inline="always")
def _lift_tree(root, label, label_count, parent_of, first_child, next_sibling, next_scan):
    """Lift every vertex of root's tree to label n (out of the search for good)."""
    n = label.shape[0]
    label_count[label[root]] -= 1
    label[root] = n
    next_scan[root] = first_child[root]
    node = root
    while node != n:
        while next_scan[node] != n:
            child = next_scan[node]
            next_scan[node] = next_sibling[child]
            node = child
            next_scan[node] = first_child[node]
            label_count[label[node]] -= 1
            label[node] = n
        node = parent_of[node]


@numba.njit(cache=True, inline="always")
def _next_strong_root(highest, first, label, label_count, current, parent_of, first_child,
                      next_sibling, next_scan, bucket_first, bucket_last, bucket_next,
                      counters):
    """The strong root at the front of the highest nonempty bucket (FIFO), lifting the trees
    of buckets at a gap; when only bucket 0 holds roots, they move to label 1. Returns (root,
    its label), root n when no strong root is left."""
    n = label.shape[0]
    for level in range(highest, 0, -1):
        if bucket_first[level] == n:
            continue
        if label_count[level - 1] > 0:
            return _dequeue(level, bucket_first, bucket_next), level
        while bucket_first[level] != n:
            root = _dequeue(level, bucket_first, bucket_next)
            _lift_tree(root, label, label_count, parent_of, first_child, next_sibling,
                       next_scan)
            counters[GAPS] += 1
    if bucket_first[0] == n:
        return n, 0
    while bucket_first[0] != n:
        root = _dequeue(0, bucket_first, bucket_next)
        _relabel(root, first, label, label_count, current, counters)
        _enqueue(root, 1, bucket_first, bucket_last, bucket_next)
    return _dequeue(1, bucket_first, bucket_next), 1


@numba.njit(cache=True, inline="always")
def _process_root(root, first, head, rev, res, excess, label, label_count, current,
                  parent_of, up, first_child, next_sibling, prev_sibling, next_scan,
                  bucket_first, bucket_last, bucket_next, counters):
    """Depth-first search of root's vertices at its label for a merger arc: merge and push
    at the first found (returns False), else every vertex searched is relabelled (returns
    True: the root's label went up by one)."""
    n = label.shape[0]
    next_scan[root] = first_child[root]
    node = root
    while True:
        if _find_merger_arc(node, first, head, res, label, current):
            arc = current[node]
            counters[MERGERS] += 1
            _merge(node, head[arc], arc, rev, parent_of, up, first_child, next_sibling,
                   prev_sibling)
            _push_excess(root, rev, res, excess, label, parent_of, up, first_child,
                         next_sibling, prev_sibling, bucket_first, bucket_last, bucket_next,
                         counters)
            return False
        _next_child_or_relabel(node, first, label, label_count, current, next_sibling,
                               next_scan, counters)
        while next_scan[node] == n:  # climb back to a vertex with children left to search
            if node == root:
                return True
            node = parent_of[node]
            _next_child_or_relabel(node, first, label, label_count, current, next_sibling,
                                   next_scan, counters)
        child = next_scan[node]
        next_scan[node] = next_sibling[child]
        node = child
        next_scan[node] = first_child[node]


@numba.njit(cache=True, _nrt=False)
def _phase_one(first, head, rev, res, excess, label, label_count, current, parent_of, up,
               first_child, next_sibling, prev_sibling, next_scan, bucket_first, bucket_last,
               bucket_next, counters):
    """The main loop of phase 1, on the initial forest: strong roots processed, highest
    label first, until none is left."""
    n = label.shape[0]
    highest = 1
    while True:
        root, highest = _next_strong_root(highest, first, label, label_count, current,
                                          parent_of, first_child, next_sibling, next_scan,
                                          bucket_first, bucket_last, bucket_next, counters)
        if root == n:
            return
        counters[ROOTS] += 1
        if _process_root(root, first, head, rev, res, excess, label, label_count, current,
                         parent_of, up, first_child, next_sibling, prev_sibling, next_scan,
                         bucket_first, bucket_last, bucket_next, counters):
            highest = label[root]
            _enqueue(root, highest, bucket_first, bucket_last, bucket_next)


@numba.njit(cache=True)
def _settle_deficits(first, head, rev, cap, res, excess, source, sink):
    """Take each vertex's deficit back out of its arcs into the sink, which makes the
    pseudoflow a preflow (the source's arcs stay saturated); the sink's excess becomes the
    flow value."""
    inflow = 0
    for b in range(first[sink], first[sink + 1]):
        v = head[b]
        if cap[b] == 0 and excess[v] < 0 and res[b] > 0 and v != source:  # b: v -> sink's
            delta = min(res[b], -excess[v])
            res[b] -= delta
            res[rev[b]] += delta
            excess[v] += delta
        inflow += res[b] - cap[b]
    excess[sink] = inflow


@numba.njit(cache=True)
def hpf_phase_one(first, head, rev, cap, res, excess, source, sink, counters):
    """Phase 1 on residuals `res` (the capacities) and excesses `excess` (zeros), both updated
    in place to a maximum preflow. Returns the labels: n on the minimum cut's source side."""
    n = excess.shape[0]
    label = np.empty(n, np.int32)
    label_count = np.empty(n + 1, np.uint32)
    bucket_first = np.empty(n + 1, np.uint32)
    bucket_last = np.empty(n + 1, np.uint32)
    bucket_next = np.empty(n, np.uint32)
    _saturate_terminal_arcs(first, head, rev, res, excess, source, sink)
    _initial_forest(excess, label.view(np.uint32), label_count, bucket_first, bucket_last,
                    bucket_next, source, sink)
    _phase_one(first.view(np.uint32), head.view(np.uint32), rev.view(np.uint32), res, excess,
               label.view(np.uint32), label_count, first[:n].view(np.uint32).copy(),
               np.full(n, n, np.uint32), np.empty(n, np.uint32), np.full(n, n, np.uint32),
               np.full(n, n, np.uint32), np.full(n, n, np.uint32), np.full(n, n, np.uint32),
               bucket_first, bucket_last, bucket_next, counters)
    _settle_deficits(first, head, rev, cap, res, excess, source, sink)
    return label


def hpf_preflow(graph: ResidualGraph, res: np.ndarray) -> tuple[np.ndarray, dict]:
    """Phase 1 on `graph`, `res` updated in place to a maximum preflow (its sink excess the
    maximum flow value). Returns the excesses and the counters."""
    excess = np.zeros(graph.n, np.int64)
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    hpf_phase_one(graph.first, graph.head, graph.rev, graph.cap, res, excess, graph.source,
                  graph.sink, counters)
    return excess, dict(zip(COUNTER_NAMES, counters.tolist()))
