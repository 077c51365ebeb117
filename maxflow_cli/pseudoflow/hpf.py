"""Hochbaum's pseudoflow algorithm, highest label with FIFO buckets (HPF), in Numba.

Hochbaum 2008 (Operations Research 56(4)); Chandran & Hochbaum 2009 (Operations Research
57(2)), run as the authors' pseudo-max code and PBBS's pseudoSeq run it. Simple
initialisation: every source arc and every sink arc saturated, each other vertex a tree of its
own; those with excess are strong roots, filed in FIFO buckets by label (1; weak vertices 0).
Each step takes a strong root of the highest label L and searches, depth first, its tree's
vertices of label L for an out-of-tree residual arc to a vertex of label L-1 (a merger arc).
Found: the strong branch hangs under that vertex (the path to its root reversed) and its
root's excess is pushed up to the new root, the tree splitting below every arc that saturates
(the excess left below roots a new strong tree). Not found: the vertices searched are
relabelled to L+1. A bucket with no vertex one label below (a gap) lifts its trees out, to
label n.

Phase 1 ends with the minimum cut (the lifted vertices and the source) and leaves a pseudoflow:
the deficits of weak roots are taken back out of their arcs into the sink (saturated at first,
they bound every deficit), which makes it a maximum preflow. Phase 2, the recovery of a flow,
returns the strong vertices' excesses to the source (hi_pr's stage 2 does that).

Arcs are the residual graph's. As in pseudo-max, each vertex keeps a list of its out-of-tree
arcs with residual capacity (in its own range of the arc slots: it has as many arcs as pairs
of arcs meet it), arcs to the source and sink left out, listed in pseudo-max's order (see
_list_out_of_tree): the search takes the first merger arc it meets, so the order decides the
mergers, and with it the two codes do the same operations. Vertex n
stands for none (no parent, child, sibling or root). As in hipr's core, vertex and arc
numbers are unsigned (Numba guards a signed index against negative values). The arrays:
graph (first, head, rev; and the capacities for the set-up's listing), tree (a row a vertex,
its columns PARENT .. OUT_END: parent, up (the arc to it), first child, next and previous
sibling, next child to scan, current out-of-tree arc, end of its out-of-tree arcs), labels
(label, vertices per label), out_arcs (the out-of-tree arcs), buckets (first, last, next
strong root).
"""

import math
import time

import numba
import numpy as np

from maxflow_cli.registry import search_calling_for_help
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import timed

NO_ARC = np.uint32(2**32 - 1)  # arc numbers stay below 2^31
NO_BOUND = (2**62, 0)  # phase 1 never pauses (see help_bound)
FRESH_MAPPING_BYTES = 32 << 20
"""hpf_setup writes its new arrays on every thread (_fresh_arrays) from this many bytes on:
glibc's largest mmap threshold. An allocation this large is mapped afresh at every solve, and
the first touch of its pages (the kernel's faults) is most of the set-up, which the threads
share; a smaller one may come back from the heap with its pages in place, where the parallel
writing is a pass more and a thread team's start (over shapes-small, seeds 1-3, the set-up
took 1.00-1.65x its serial time, geometric mean 1.27; README, "hpf's fresh arrays")."""


def help_bound(m: int) -> tuple[int, int]:
    """(pushes, pushes per strong root): phase 1 calls for help (hpf_preflow) once its pushes
    pass m plus log2 m a strong root processed. A merger pushes along the tree's path from
    the merger arc to the root; where the trees grow deep, as on Goldberg's bad case (a path
    of n/4 arcs a root) and Cheriyan's graph, its work is O(n^2), where push-relabel's is
    O(m). On the suite's other shapes the pushes stayed under a third of that bound, up to
    10 M arcs (README, "The CPU default"); the m pushes allowed beside it cover the first
    roots, before their count says anything."""
    return m, int(math.log2(max(m, 2)))


# Slots of the counters array: mergers, pushes along tree arcs, splits (pushes that saturate
# an arc and leave a new strong root), relabels, trees lifted at gaps, strong roots processed.
MERGERS, PUSHES, SPLITS, RELABELS, GAPS, ROOTS = range(6)
COUNTER_NAMES = ("mergers", "pushes", "splits", "relabels", "gaps", "strong_roots")


# Columns of `tree` (_views): each vertex's parent, up (the arc to its parent), first child,
# next and previous sibling, next child to scan, current out-of-tree arc and the end of its
# out-of-tree arcs. Unsigned, as the vertex numbers are.
PARENT, UP, FIRST_CHILD, NEXT_SIBLING, PREV_SIBLING, NEXT_SCAN, CURRENT, OUT_END = (
    np.uint64(column) for column in range(8))


@numba.njit(cache=True, inline="always")
def _attach(child, parent, tree):
    """Make `child` (a root) the first child of `parent`."""
    n = tree.shape[0]
    sibling = tree[parent, FIRST_CHILD]
    tree[child, PARENT] = parent
    tree[child, NEXT_SIBLING] = sibling
    tree[child, PREV_SIBLING] = n
    if sibling != n:
        tree[sibling, PREV_SIBLING] = child
    tree[parent, FIRST_CHILD] = child


@numba.njit(cache=True, inline="always")
def _detach(child, tree):
    """Cut `child` from its parent: it becomes a root."""
    n = tree.shape[0]
    before = tree[child, PREV_SIBLING]
    after = tree[child, NEXT_SIBLING]
    if before == n:
        tree[tree[child, PARENT], FIRST_CHILD] = after
    else:
        tree[before, NEXT_SIBLING] = after
    if after != n:
        tree[after, PREV_SIBLING] = before
    tree[child, PARENT] = n


@numba.njit(cache=True, inline="always")
def _enqueue(v, level, buckets):
    """File strong root v at the back of bucket `level`."""
    bucket_first, bucket_last, bucket_next = buckets
    n = bucket_next.shape[0]
    bucket_next[v] = n
    if bucket_first[level] == n:
        bucket_first[level] = v
    else:
        bucket_next[bucket_last[level]] = v
    bucket_last[level] = v


@numba.njit(cache=True, inline="always")
def _dequeue(level, buckets):
    """Take the strong root at the front of bucket `level` (not empty)."""
    bucket_first, _, bucket_next = buckets
    v = bucket_first[level]
    bucket_first[level] = bucket_next[v]
    return v


@numba.njit(cache=True, inline="always")
def _relabel(v, first, labels, tree, counters):
    """Raise v's label by one; its arc scan starts over."""
    label, label_count = labels
    d = label[v]  # read once: label and label_count are views of one buffer, so a store to
    label_count[d] -= 1  # one would make the compiled code read the other again
    label[v] = d + 1
    label_count[d + 1] += 1
    tree[v, CURRENT] = first[v]
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
def _weak_roots(first, labels, tree, buckets, source, sink):
    """Every vertex a weak root of its own at label 0 (its arc scan at its first arc), the
    source and the sink at n, the buckets empty: pseudo-max's node set-up."""
    label, label_count = labels
    n = label.shape[0]
    label_count[:] = 0
    buckets[0][:] = n
    for v in range(n):
        tree[v, CURRENT] = first[v]
        label[v] = 0
    label[source] = n
    label[sink] = n
    label_count[0] = n - 2


@numba.njit(cache=True)
def _file_strong_roots(excess, labels, buckets, source, sink):
    """The simple initialisation's forest: each vertex with excess (the saturated arcs'
    heads) a strong root at label 1, in bucket 1 in vertex order."""
    label, label_count = labels
    for v in range(excess.shape[0]):
        if excess[v] > 0 and v != source and v != sink:
            label[v] = 1
            label_count[0] -= 1
            label_count[1] += 1
            _enqueue(v, 1, buckets)


@numba.njit(cache=True)
def _list_out_of_tree(graph, arc_of_input, out_arcs, tree, source, sink):
    """Each vertex's out-of-tree arcs at the start, its input arcs of positive capacity to
    other vertices but the source and sink, in pseudo-max's order: it files each input arc
    at the front of its arc array when its ends' numbers sum to an odd number, else at the
    back, and lists a vertex's arcs as they lie there: the odd ones in input order, then the
    even ones in reverse. Here, in one pass over the input, odd ones fill a vertex's range
    from the bottom and even ones from the top down; then the even ones move down behind
    the odd ones. `graph` holds the capacities (cap, 0 at a reverse arc)."""
    first, head, rev, cap = graph
    n = first.shape[0] - 1
    back = np.empty(n, np.int64)  # the lowest slot of the even arcs
    for v in range(n):
        tree[v, OUT_END] = first[v]
        back[v] = first[v + 1]
    for i in range(arc_of_input.shape[0]):
        a = arc_of_input[i]
        u, v = head[rev[a]], head[a]
        if _listed(u, v, cap[a], source, sink):
            if (u + v) & 1:
                out_arcs[tree[u, OUT_END]] = a
                tree[u, OUT_END] += 1
            else:
                back[u] -= 1
                out_arcs[back[u]] = a
    for v in range(n):
        tree[v, OUT_END] = _evens_behind_odds(out_arcs, tree[v, OUT_END], back[v],
                                                   first[v + 1])


@numba.njit(cache=True)
def _list_out_of_tree_by_vertex(graph, out_arcs, tree, source, sink):
    """_list_out_of_tree where each vertex's input arcs lie in input order among its arcs
    (ResidualGraph.input_ordered): vertex by vertex, its arcs read in place, without the
    loads of a tail that an arc taken in input order costs (two, the second one anywhere in
    the arrays)."""
    first, head, _, cap = graph
    for u in range(first.shape[0] - 1):
        end, back = np.int64(first[u]), np.int64(first[u + 1])
        for a in range(first[u], first[u + 1]):
            v = head[a]
            if _listed(u, v, cap[a], source, sink):
                if (u + v) & 1:
                    out_arcs[end] = a
                    end += 1
                else:
                    back -= 1
                    out_arcs[back] = a
        tree[u, OUT_END] = _evens_behind_odds(out_arcs, end, back, first[u + 1])


@numba.njit(cache=True, inline="always")
def _listed(u, v, capacity, source, sink) -> bool:
    """Whether arc u -> v of `capacity` starts out of the tree (self-loops, arcs into the
    terminals and reverse arcs aside)."""
    return capacity > 0 and u != v and v != source and v != sink


@numba.njit(cache=True, inline="always")
def _evens_behind_odds(out_arcs, end, back, stop):
    """Move the even arcs (slots back .. stop - 1) down to slot `end`, behind the odd ones:
    the end of the vertex's list."""
    end = np.int64(end)
    for p in range(back, stop):
        out_arcs[end] = out_arcs[p]
        end += 1
    return end


@numba.njit(cache=True, inline="always")
def _find_merger_arc(u, head, label, tree, out_arcs):
    """Take from u's out-of-tree arcs the next, from its current one on, to a vertex one
    label below u's (the last arc fills its place); NO_ARC when there is none left."""
    wanted = label[u] - 1
    end = tree[u, OUT_END]
    for i in range(tree[u, CURRENT], end):
        a = out_arcs[i]
        if label[head[a]] == wanted:
            tree[u, CURRENT] = i
            out_arcs[i] = out_arcs[end - 1]
            tree[u, OUT_END] = end - 1
            return a
    tree[u, CURRENT] = end
    return NO_ARC


@numba.njit(cache=True, inline="always")
def _next_child_or_relabel(u, first, labels, tree, counters):
    """Move u's scan pointer to its next child of u's label (still to search); relabel u when
    none is left (pseudo-max's checkChildren)."""
    label = labels[0]
    n = label.shape[0]
    child = tree[u, NEXT_SCAN]
    while child != n and label[child] != label[u]:
        child = tree[child, NEXT_SIBLING]
    tree[u, NEXT_SCAN] = child
    if child == n:
        _relabel(u, first, labels, tree, counters)


@numba.njit(cache=True, inline="always")
def _merge(strong, weak, arc, rev, tree):
    """Hang the strong branch under `weak` through `arc` (strong -> weak): the path from
    `strong` to its root is reversed, so that `strong` becomes the branch's root."""
    n = tree.shape[0]
    node = strong
    new_parent = weak
    new_up = arc
    while tree[node, PARENT] != n:
        old_parent = tree[node, PARENT]
        old_up = tree[node, UP]
        _detach(node, tree)
        _attach(node, new_parent, tree)
        tree[node, UP] = new_up
        new_parent = node
        new_up = rev[old_up]
        node = old_parent
    _attach(node, new_parent, tree)
    tree[node, UP] = new_up


@numba.njit(cache=True, inline="always")
def _split(node, rev, label, tree, out_arcs, buckets):
    """Cut `node`, left with excess, off its parent: the saturated arc between them becomes
    an out-of-tree arc of the parent (the way it has residual capacity) and `node` roots a
    new strong tree."""
    parent = tree[node, PARENT]
    end = tree[parent, OUT_END]
    out_arcs[end] = rev[tree[node, UP]]
    tree[parent, OUT_END] = end + 1
    _detach(node, tree)
    _enqueue(node, label[node], buckets)


@numba.njit(cache=True, inline="always")
def _push_excess(start, rev, res, excess, label, tree, out_arcs, buckets, counters):
    """Push `start`'s excess (a vertex below its root) up its tree to the root, splitting
    the tree below each arc with less residual capacity than the excess. A root that turns
    strong (it had no excess) is filed in its bucket. Only roots hold excess (the tree is
    normalized), so the excess is carried up in a register and stored where it stops."""
    n = label.shape[0]
    node, carried = start, excess[start]
    excess[start] = 0
    pushes = splits = 0
    parent = tree[node, PARENT]
    while parent != n and carried > 0:
        node, parent, whole = _push_whole(node, parent, carried, rev, res, tree)
        pushes += whole
        if parent == n:
            break
        carried = _push_saturating(node, carried, rev, res, excess, label, tree, out_arcs,
                                   buckets)
        pushes += 1
        splits += 1
        node, parent = parent, tree[parent, PARENT]
    previous_excess = excess[node]
    excess[node] = previous_excess + carried
    counters[PUSHES] += pushes
    counters[SPLITS] += splits
    if node != start and previous_excess <= 0 < previous_excess + carried:
        _enqueue(node, label[node], buckets)


@numba.njit(cache=True, inline="always")
def _push_whole(node, parent, carried, rev, res, tree):
    """Push `carried` up from `node` (its parent `parent`) across each arc that takes all of
    it, nearly every push; stop at the root or below an arc that would saturate. Returns
    (that vertex, its parent, the pushes). A loop of few values, which the compiled code
    keeps in registers: with the splits in it, it reloaded most of them at every push
    (README, "hpf's pushes")."""
    n = tree.shape[0]
    pushes = 0
    while parent != n:
        a = tree[node, UP]
        residual = res[a]
        if residual < carried:
            break
        res[a] = residual - carried
        res[rev[a]] += carried
        pushes += 1
        node, parent = parent, tree[parent, PARENT]
    return node, parent, pushes


@numba.njit(cache=True, inline="always")
def _push_saturating(node, carried, rev, res, excess, label, tree, out_arcs, buckets):
    """Push what the arc up from `node` takes, less than `carried`: the arc saturates, and
    `node` keeps the rest and splits off as a strong root. Returns what was pushed."""
    a = tree[node, UP]
    residual = res[a]
    res[a] = 0
    res[rev[a]] += residual
    excess[node] = carried - residual
    _split(node, rev, label, tree, out_arcs, buckets)
    return residual


@numba.njit(cache=True, inline="always")
def _lift_tree(root, labels, tree):
    """Lift every vertex of root's tree to label n (out of the search for good)."""
    label, label_count = labels
    n = label.shape[0]
    label_count[label[root]] -= 1
    label[root] = n
    tree[root, NEXT_SCAN] = tree[root, FIRST_CHILD]
    node = root
    while node != n:
        while tree[node, NEXT_SCAN] != n:
            child = tree[node, NEXT_SCAN]
            tree[node, NEXT_SCAN] = tree[child, NEXT_SIBLING]
            node = child
            tree[node, NEXT_SCAN] = tree[node, FIRST_CHILD]
            label_count[label[node]] -= 1
            label[node] = n
        node = tree[node, PARENT]


@numba.njit(cache=True, inline="always")
def _next_strong_root(highest, first, labels, tree, buckets, counters):
    """The strong root at the front of the highest nonempty bucket (FIFO), lifting the trees
    of buckets at a gap; when only bucket 0 holds roots, they move to label 1. Returns (root,
    its label), root n when no strong root is left."""
    label_count = labels[1]
    bucket_first = buckets[0]
    n = label_count.shape[0] - 1
    for level in range(highest, 0, -1):
        if bucket_first[level] == n:
            continue
        if label_count[level - 1] > 0:
            return _dequeue(level, buckets), level
        while bucket_first[level] != n:
            _lift_tree(_dequeue(level, buckets), labels, tree)
            counters[GAPS] += 1
    if bucket_first[0] == n:
        return n, 0
    while bucket_first[0] != n:
        root = _dequeue(0, buckets)
        _relabel(root, first, labels, tree, counters)
        _enqueue(root, 1, buckets)
    return _dequeue(1, buckets), 1


@numba.njit(cache=True, inline="always")
def _process_root(root, graph, res, excess, labels, tree, out_arcs, buckets, counters):
    """Depth-first search of root's vertices at its label for a merger arc: merge and push
    at the first found (returns False), else every vertex searched is relabelled (returns
    True: the root's label went up by one)."""
    first, head, rev = graph
    label = labels[0]
    n = label.shape[0]
    tree[root, NEXT_SCAN] = tree[root, FIRST_CHILD]
    node = root
    while True:
        arc = _find_merger_arc(node, head, label, tree, out_arcs)
        if arc != NO_ARC:
            counters[MERGERS] += 1
            _merge(node, head[arc], arc, rev, tree)
            _push_excess(root, rev, res, excess, label, tree, out_arcs, buckets, counters)
            return False
        _next_child_or_relabel(node, first, labels, tree, counters)
        while tree[node, NEXT_SCAN] == n:  # climb back to a vertex with children to search
            if node == root:
                return True
            node = tree[node, PARENT]
            _next_child_or_relabel(node, first, labels, tree, counters)
        child = tree[node, NEXT_SCAN]
        tree[node, NEXT_SCAN] = tree[child, NEXT_SIBLING]
        node = child
        tree[node, NEXT_SCAN] = tree[node, FIRST_CHILD]


@numba.njit(cache=True, _nrt=False)
def _phase_one(graph, res, excess, labels, tree, out_arcs, buckets, counters, stop, highest,
               bound):
    """The main loop of phase 1, on the forest: strong roots processed, highest label first
    (from bucket `highest` down), until none is left or stop[0] is set, or (paused) the
    pushes pass bound = (pushes, pushes per strong root processed); returns True when
    paused. A pause leaves the forest and the buckets as they are: the loop resumes from any
    `highest` at or above the highest strong root's label and does the same operations.

    Compiled without Numba's reference counting (as Numba's own sort and string kernels
    are): it allocates nothing, and the counting of the arrays that its inlined helpers bind
    (atomic increments) took ten times the algorithm's own work."""
    label = labels[0]
    n = label.shape[0]
    while not stop[0]:
        if counters[PUSHES] > bound[0] + bound[1] * counters[ROOTS]:
            return True
        root, highest = _next_strong_root(highest, graph[0], labels, tree, buckets, counters)
        if root == n:
            return False
        counters[ROOTS] += 1
        if _process_root(root, graph, res, excess, labels, tree, out_arcs, buckets, counters):
            highest = label[root]
            _enqueue(root, highest, buckets)
    return False


@numba.njit(cache=True, nogil=True)
def settle_deficits(first, head, rev, sink_caps, res, excess, source, sink):
    """Take each vertex's deficit back out of its arcs into the sink, which makes the
    pseudoflow a preflow (the source's arcs stay saturated); the sink's excess becomes the
    flow value. `sink_caps`: the capacities of the sink's arcs (hpf_setup's)."""
    inflow = 0
    for b in range(first[sink], first[sink + 1]):
        v = head[b]
        cap = sink_caps[b - first[sink]]
        if cap == 0 and excess[v] < 0 and res[b] > 0 and v != source:  # b: v -> sink's
            delta = min(res[b], -excess[v])
            res[b] -= delta
            res[rev[b]] += delta
            excess[v] += delta
        inflow += res[b] - cap
    excess[sink] = inflow


@numba.njit(cache=True, inline="always")
def _views(work, n):
    """The search's arrays as views of one buffer of 13n + 3 + m numbers (so that they cross
    between compiled and Python code as one array): labels (label, vertices per label), tree
    (a vertex's row, its columns PARENT .. OUT_END each stored apart, as a column-major
    array: one array where eight would cross the compiled calls; README, "hpf's tree
    columns"), buckets (first, last, next), the out-of-tree arcs."""
    t = 8 * n
    labels = (work[t:t + n], work[t + n:t + 2 * n + 1])
    b = t + 2 * n + 1
    buckets = (work[b:b + n + 1], work[b + n + 1:b + 2 * n + 2], work[b + 2 * n + 2:b + 3 * n + 2])
    return labels, work[:t].reshape((8, n)).T, buckets, work[b + 3 * n + 2:]


def hpf_setup(first, head, rev, cap, arc_of_input, source, sink, input_ordered):
    """What pseudo-max builds before its clock starts (PBBS pseudoSeq's initDS): the
    search's arrays, every one written here so that phase 1 finds its pages in memory; each
    vertex a weak root with its out-of-tree arcs listed. `cap`: the capacities (the
    residuals before phase 1 will do); `input_ordered`: ResidualGraph.input_ordered.
    Returns the excesses (zeros), the buffer of the search's arrays (see _views) and the
    capacities of the sink's arcs (settle_deficits needs no more of them)."""
    n = first.shape[0] - 1
    words = 13 * n + 3 + head.shape[0]
    fresh = _fresh_arrays if 4 * words >= FRESH_MAPPING_BYTES else _new_arrays
    excess, work = fresh(n, head.shape[0])
    _file_forest(first, head, rev, cap, arc_of_input, source, sink, input_ordered, work)
    return excess, work, cap[first[sink]:first[sink + 1]].copy()


@numba.njit(cache=True, parallel=True)
def _fresh_arrays(n, arcs):
    """The excesses (zeros) and the search's buffer, its vertices' words n (no parent,
    child, sibling or strong root) and its arc slots 0, written on every thread: most of
    their cost is the first touch of new pages (the kernel's faults), which the threads
    share (13 n words took 16 ms at n = 10^6 on one core of the 2-core machine, 8.5 on
    two); the listing then writes the arc slots again, in pages already there."""
    excess = np.empty(n, np.int64)
    work = np.empty(13 * n + 3 + arcs, np.uint32)
    for v in numba.prange(n):
        excess[v] = 0
    for i in numba.prange(13 * n + 3):
        work[i] = n
    for i in numba.prange(13 * n + 3, work.shape[0]):
        work[i] = 0
    return excess, work


def compile_set_up() -> float:
    """Compile hpf_setup's parallel writing, which a tiny graph does not reach (Numba
    compiles a function at its first call): the seconds it took."""
    started = time.perf_counter()
    _fresh_arrays(2, 1)
    return time.perf_counter() - started


@numba.njit(cache=True, nogil=True)
def _new_arrays(n, arcs):
    """_fresh_arrays on this thread, the arc slots left to the listing."""
    work = np.empty(13 * n + 3 + arcs, np.uint32)
    work[:13 * n + 3] = n
    return np.zeros(n, np.int64), work


@numba.njit(cache=True, nogil=True)
def _file_forest(first, head, rev, cap, arc_of_input, source, sink, input_ordered, work):
    """Every vertex a weak root, its out-of-tree arcs listed, in the buffer `work`."""
    n = first.shape[0] - 1
    labels, tree, buckets, out_arcs = _views(work, n)
    _weak_roots(first, labels, tree, buckets, source, sink)
    graph = (first.view(np.uint32), head.view(np.uint32), rev.view(np.uint32), cap)
    if input_ordered:
        _list_out_of_tree_by_vertex(graph, out_arcs, tree, source, sink)
    else:
        _list_out_of_tree(graph, arc_of_input.view(np.uint32), out_arcs, tree, source, sink)


@numba.njit(cache=True, nogil=True)
def hpf_phase_one(first, head, rev, res, excess, work, source, sink, counters, stop, bound,
                  resume):
    """Phase 1 from hpf_setup's excesses and buffer `work`, as pseudo-max's clock times it:
    the simple initialisation (unless `resume`) and the main loop. `res` (the capacities) and
    `excess` end as a pseudoflow whose minimum cut is found (settle_deficits makes it a
    maximum preflow), unless stop[0] is set before, or the pushes pass `bound` (see
    _phase_one; NO_BOUND: never): it then pauses, and called again with `resume`, goes on.
    Returns (the labels: n on the minimum cut's source side, whether it paused)."""
    n = excess.shape[0]
    graph = (first.view(np.uint32), head.view(np.uint32), rev.view(np.uint32))
    labels, tree, buckets, out_arcs = _views(work, n)
    if not resume:
        _saturate_terminal_arcs(first, head, rev, res, excess, source, sink)
        _file_strong_roots(excess, labels, buckets, source, sink)
    paused = _phase_one(graph, res, excess, labels, tree, out_arcs, buckets, counters, stop,
                        n - 1 if resume else 1, bound)
    return labels[0].view(np.int32), paused


def hpf_preflow(graph: ResidualGraph, res: np.ndarray, stop, times: dict,
                call_for_help=None) -> tuple[np.ndarray, dict]:
    """Phase 1 on `graph`, `res` (the capacities) updated in place to a maximum preflow (its
    sink excess the maximum flow value), unless `stop` (a flag array or None) is set first;
    the seconds of its set-up, of phase 1 (stage1) and of settling the deficits into
    `times`. Once its pushes pass help_bound(m), call_for_help(pushes) (when given) is
    called and phase 1 goes on (until `stop`, which the call may set). Returns the excesses and the
    counters."""
    arrays = (graph.first, graph.head, graph.rev)
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    excess, work, sink_caps = timed(times, "setup", hpf_setup, *arrays, res,
                                    graph.arc_of_input, graph.source, graph.sink,
                                    graph.input_ordered)
    flag = np.zeros(1, np.uint8) if stop is None else stop

    def step(bound, resume: bool) -> bool:
        return hpf_phase_one(*arrays, res, excess, work, graph.source, graph.sink, counters,
                             flag, bound, resume)[1]

    timed(times, "stage1", search_calling_for_help, step, False, help_bound(graph.m),
          NO_BOUND, flag, call_for_help, lambda: int(counters[PUSHES]))
    timed(times, "settle", settle_deficits, *arrays, sink_caps, res, excess, graph.source,
          graph.sink)
    return excess, dict(zip(COUNTER_NAMES, counters.tolist()))
