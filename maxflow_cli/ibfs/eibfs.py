"""EIBFS and IBFS maximum flow in Numba, on the shared residual graph.

Goldberg, Hed, Kaplan, Kohli, Tarjan & Werneck, "Faster and more dynamic maximum flow by
incremental breadth-first search" (ESA 2015). Two trees are grown by breadth-first search, S
from the vertices with excess and T from those with deficit; a label is the distance in S
(> 0), minus the distance in T (< 0) or 0 (free). A growth step scans the top level of one
tree (the one that made fewer orphans so far) and attaches free neighbours; an arc from S to
T it meets is augmented. Orphans (vertices whose tree arc saturated) find a parent at their
level, are relabelled, or, when one augmentation orphans many, relabelled in three passes.
EIBFS pushes the bridge arc's whole residual capacity and leaves what a tree path cannot
carry as excess (in T) or deficit (in S) inside the tree, pushed on towards the roots level
by level ("excesses"); an orphan that keeps such an imbalance and finds no parent joins the
other tree as a root. IBFS (Goldberg, Hed, Kaplan, Tarjan & Werneck, ESA 2011) augments by
the bottleneck of the whole path instead.

Terminal arcs: the source's arcs are saturated and the sink's arcs count as saturated, so a
vertex starts with its source capacity minus its sink capacity as excess. The source and the
sink take labels 1 and -1, which no arc test of either tree can pass: no arc leaving the
source or entering the sink is residual, and no flow enters the source or leaves the sink.
At the end (finish_preflow) the sink arcs carry what the deficits leave of them, and deficits
no sink capacity backs (EIBFS can leave some) go back along the flow out of their vertex, so
that the residuals hold a maximum preflow.
"""

from collections import namedtuple

import numba
import numpy as np

from maxflow_cli.pushrelabel.highest_label import hipr_stage_two

NONE = -1

# Slots of Forest.state: the tree tops, the augmentation stamp, bucket bounds, orphans per
# tree, which rows of Forest.active hold the S and T lists, and each row's length.
TOP_S, TOP_T, AUGMENTATION, ORPHAN_MAX, THREE_PASS_MAX, EXCESS_MAX, EXCESS_MIN, \
    UNIQUE_S, UNIQUE_T, S_ROW, T_ROW, SPARE_ROW, LENGTH = range(13)
STATE_SLOTS = LENGTH + 3

# Slots of the counters array.
AUGMENTATIONS, GROWTHS_S, GROWTHS_T, PUSHES, ORPHANS, ADOPTIONS, RELABELS, THREE_PASS, \
    FREED, EXCESS_PUSHES, DEFICIT_RETURNS = range(11)
COUNTER_NAMES = ("augmentations", "growths_s", "growths_t", "pushes", "orphans", "adoptions",
                 "relabels", "three_pass_relabels", "freed", "excess_pushes",
                 "deficit_returns")

Forest = namedtuple("Forest", (
    "first", "head", "rev", "res",  # the residual graph
    "label", "excess", "parent", "first_son", "next_node", "prev_node", "resume_at_parent",
    "last_orphaned", "excess_next", "excess_prev",  # per vertex
    "active", "orphan_head", "three_pass_head", "excess_head",  # lists and buckets
    "state", "counters"))


@numba.njit(cache=True, inline="always")
def _top(w, side):
    return w.state[TOP_S] if side > 0 else w.state[TOP_T]


@numba.njit(cache=True, inline="always")
def _residual_in(w, a, side):
    """Residual capacity of arc a (x -> y) in the tree direction were y x's parent: y -> x in
    S, x -> y in T."""
    return w.res[w.rev[a]] if side > 0 else w.res[a]


@numba.njit(cache=True, inline="always")
def _residual_out(w, a, side):
    """Residual capacity of arc a (x -> y) in the tree direction were y x's son."""
    return w.res[a] if side > 0 else w.res[w.rev[a]]


@numba.njit(cache=True, inline="always")
def _push(w, a, amount, side):
    """Move `amount` along parent arc a in the tree direction; return what is left of it."""
    into, back = (w.rev[a], a) if side > 0 else (a, w.rev[a])
    w.res[into] -= amount
    w.res[back] += amount
    return w.res[into]


@numba.njit(cache=True, inline="always")
def _add_son(w, x, p):
    w.next_node[x] = w.first_son[p]
    w.first_son[p] = x


@numba.njit(cache=True)
def _remove_son(w, x):
    """Take x out of its parent's list of sons."""
    p = w.head[w.parent[x]]
    y = w.first_son[p]
    if y == x:
        w.first_son[p] = w.next_node[x]
        return
    while w.next_node[y] != x:
        y = w.next_node[y]
    w.next_node[y] = w.next_node[x]


@numba.njit(cache=True)
def _activate(w, x, side):
    """Append x to the list of its tree's top level, the next growth step's vertices;
    when the row is full, first drop the vertices that left that level and repeats."""
    row = w.state[S_ROW] if side > 0 else w.state[T_ROW]
    length = w.state[LENGTH + row]
    if length == w.active.shape[1]:
        seen = np.zeros(w.label.shape[0], np.bool_)
        level = side * _top(w, side)
        kept = 0
        for i in range(length):
            y = w.active[row, i]
            if w.label[y] == level and not seen[y]:
                seen[y] = True
                w.active[row, kept] = y
                kept += 1
        length = kept
    w.active[row, length] = x
    w.state[LENGTH + row] = length + 1


@numba.njit(cache=True, inline="always")
def _add_orphan(w, x, side):
    distance = side * w.label[x]
    w.next_node[x] = w.orphan_head[distance]
    w.orphan_head[distance] = x
    if distance > w.state[ORPHAN_MAX]:
        w.state[ORPHAN_MAX] = distance


@numba.njit(cache=True, inline="always")
def _add_three_pass(w, x, side):
    distance = side * w.label[x]
    y = w.three_pass_head[distance]
    w.next_node[x] = y
    if y != NONE:
        w.prev_node[y] = x
    w.three_pass_head[distance] = x
    if distance > w.state[THREE_PASS_MAX]:
        w.state[THREE_PASS_MAX] = distance


@numba.njit(cache=True, inline="always")
def _remove_three_pass(w, x, side):
    distance = side * w.label[x]
    if w.three_pass_head[distance] == x:
        w.three_pass_head[distance] = w.next_node[x]
    else:
        w.next_node[w.prev_node[x]] = w.next_node[x]
        if w.next_node[x] != NONE:
            w.prev_node[w.next_node[x]] = w.prev_node[x]


@numba.njit(cache=True, inline="always")
def _add_excess(w, x, side):
    """File x, a non-root holding its tree's wrong sign of excess, by its distance."""
    distance = side * w.label[x]
    y = w.excess_head[distance]
    w.excess_next[x] = y
    if y != NONE:
        w.excess_prev[y] = x
    w.excess_head[distance] = x
    if distance > w.state[EXCESS_MAX]:
        w.state[EXCESS_MAX] = distance
    if distance != 0 and distance < w.state[EXCESS_MIN]:
        w.state[EXCESS_MIN] = distance


@numba.njit(cache=True, inline="always")
def _remove_excess(w, x, side):
    distance = side * w.label[x]
    if w.excess_head[distance] == x:
        w.excess_head[distance] = w.excess_next[x]
    else:
        w.excess_next[w.excess_prev[x]] = w.excess_next[x]
        if w.excess_next[x] != NONE:
            w.excess_prev[w.excess_next[x]] = w.excess_prev[x]


@numba.njit(cache=True, inline="always")
def _pop(heads, links, bucket):
    x = heads[bucket]
    if x != NONE:
        heads[bucket] = links[x]
    return x


@numba.njit(cache=True, inline="always")
def _raise_excess_max(w, distance):
    if distance > w.state[EXCESS_MAX]:
        w.state[EXCESS_MAX] = distance


@numba.njit(cache=True)
def _free_orphan(w, x, side, excesses):
    """An orphan without a parent leaves its tree: free, or, holding an imbalance (EIBFS), a
    root at the other tree's top level."""
    if excesses and w.excess[x] != 0:
        w.label[x] = -side * _top(w, -side)
        _activate(w, x, -side)
        w.resume_at_parent[x] = 0
    else:
        w.label[x] = 0
    w.counters[FREED] += 1


@numba.njit(cache=True)
def _augment_path(w, x, amount, side):
    """Move `amount` between x and its root along tree arcs (IBFS's augmentation, one tree);
    file the vertices whose arc saturated, and the root if it runs dry, as orphans.
    Returns the lowest distance orphaned (the top level + 1 if none)."""
    w.state[AUGMENTATION] += 1
    lowest = _top(w, side) + 1
    while w.excess[x] == 0:
        a = w.parent[x]
        w.counters[PUSHES] += 1
        if _push(w, a, amount, side) == 0:
            _remove_son(w, x)
            lowest = side * w.label[x]
            _add_orphan(w, x, side)
        x = w.head[a]
    w.excess[x] -= side * amount
    if w.excess[x] == 0:
        lowest = side * w.label[x]
        _add_orphan(w, x, side)
    return lowest


@numba.njit(cache=True)
def _augment_excess(w, x, amount, side):
    """EIBFS's push towards the root: x receives `amount` (or holds its imbalance, amount 0)
    and passes on what its tree arc carries, keeping the rest; vertices on the way that held
    an imbalance merge theirs. Returns the lowest distance orphaned."""
    w.state[AUGMENTATION] += 1
    lowest = _top(w, side) + 1
    while side * w.excess[x] <= 0:
        a = w.parent[x]
        w.counters[PUSHES] += 1
        carried = _residual_in(w, a, side)
        needed = amount - side * w.excess[x]
        if carried < needed:
            w.excess[x] += side * (carried - amount)
            amount = carried
        else:
            amount = needed
            w.excess[x] = 0
        if _push(w, a, amount, side) == 0:
            _remove_son(w, x)
            lowest = side * w.label[x]
            _add_orphan(w, x, side)
            if w.excess[x] != 0:
                _raise_excess_max(w, lowest)
        x = w.head[a]
        if side * w.excess[x] < 0:
            _remove_excess(w, x, side)
    w.excess[x] -= side * amount
    if side * w.excess[x] <= 0:
        lowest = side * w.label[x]
        _add_orphan(w, x, side)
        if w.excess[x] != 0:
            _raise_excess_max(w, lowest)
    return lowest


@numba.njit(cache=True)
def _augment_excesses(w, side):
    """Push every filed imbalance towards its root, highest level first, adopting the
    orphans each push makes at levels up to the highest imbalance left; then the rest of
    the orphans, and the vertices the three passes freed with an imbalance leave."""
    adopted_up_to = w.state[EXCESS_MAX]
    if w.state[EXCESS_MAX] >= w.state[EXCESS_MIN]:
        while w.state[EXCESS_MAX] != w.state[EXCESS_MIN] - 1:
            while True:
                x = _pop(w.excess_head, w.excess_next, w.state[EXCESS_MAX])
                if x == NONE:
                    break
                w.counters[EXCESS_PUSHES] += 1
                lowest = min(_augment_excess(w, x, 0, side), adopted_up_to)
                _adoption(w, lowest, False, side, True)
                adopted_up_to = w.state[EXCESS_MAX]
            w.state[EXCESS_MAX] -= 1
    w.state[EXCESS_MAX] = 0
    w.state[EXCESS_MIN] = np.iinfo(np.int64).max
    if w.state[ORPHAN_MAX] != 0:
        _adoption(w, adopted_up_to + 1, True, side, True)
    while True:
        x = _pop(w.excess_head, w.excess_next, 0)
        if x == NONE:
            break
        _free_orphan(w, x, side, True)


@numba.njit(cache=True)
def _adopt_at_level(w, x, side):
    """Look for a parent one level closer to the root, from x's parent arc onwards when
    that arc is its current arc (else from its first arc); True if one was found."""
    a = w.parent[x] if w.resume_at_parent[x] else w.first[x]
    w.resume_at_parent[x] = 1
    w.parent[x] = NONE
    if side * w.label[x] == 1:
        return False
    wanted = w.label[x] - side
    end = w.first[x + 1]
    while a < end:
        if _residual_in(w, a, side) > 0 and w.label[w.head[a]] == wanted:
            w.parent[x] = a
            _add_son(w, x, w.head[a])
            w.counters[ADOPTIONS] += 1
            return True
        a += 1
    return False


@numba.njit(cache=True)
def _orphan_sons(w, x, side, excesses):
    """x is to be relabelled: its sons become orphans."""
    y = w.first_son[x]
    while y != NONE:
        following = w.next_node[y]
        if excesses and w.excess[y] != 0:
            _remove_excess(w, y, side)
        _add_orphan(w, y, side)
        y = following
    w.first_son[x] = NONE


@numba.njit(cache=True)
def _relabel(w, x, side, excesses):
    """Attach x below its closest neighbour in the tree that can feed it (T: that it can
    feed), or free it if there is none."""
    top = _top(w, side)
    best = side * top
    for a in range(w.first[x], w.first[x + 1]):
        y = w.head[a]
        if _residual_in(w, a, side) > 0 and y != x and 0 < side * w.label[y] < side * best:
            best = w.label[y]
            w.parent[x] = a
            if best == w.label[x]:
                break
    if w.parent[x] == NONE:
        _free_orphan(w, x, side, excesses)
        return
    w.counters[RELABELS] += 1
    w.label[x] = best + side
    _add_son(w, x, w.head[w.parent[x]])
    if side * w.label[x] == top:
        _activate(w, x, side)
    if excesses and w.excess[x] != 0:
        _add_excess(w, x, side)


@numba.njit(cache=True)
def _adoption(w, from_level, to_top, side, excesses):
    """Process the orphans level by level from `from_level` (EIBFS: while below the
    highest filed imbalance, unless `to_top`); switch to three-pass relabelling once the
    orphans processed reach three times the distinct ones (IB_HYBRID_ADOPTION)."""
    three_pass_level = 0
    orphans = 0
    unique = 0
    level = from_level
    while level <= w.state[ORPHAN_MAX] and (not excesses or to_top or three_pass_level != 0
                                           or level <= w.state[EXCESS_MAX]):
        while True:
            x = _pop(w.orphan_head, w.next_node, level)
            if x == NONE:
                break
            w.counters[ORPHANS] += 1
            orphans += 1
            if w.last_orphaned[x] != w.state[AUGMENTATION]:
                w.last_orphaned[x] = w.state[AUGMENTATION]
                w.state[UNIQUE_S if side > 0 else UNIQUE_T] += 1
                unique += 1
            if three_pass_level == 0 and orphans >= 3 * unique:
                three_pass_level = 1
            if _adopt_at_level(w, x, side):
                if excesses and w.excess[x] != 0:
                    _add_excess(w, x, side)
            elif side * w.label[x] == _top(w, side):
                _free_orphan(w, x, side, excesses)
            else:
                _orphan_sons(w, x, side, excesses)
                if three_pass_level == 0:
                    _relabel(w, x, side, excesses)
                    continue
                w.label[x] += side
                _add_three_pass(w, x, side)
                if three_pass_level == 1:
                    three_pass_level = level + 1
        level += 1
    if level > w.state[ORPHAN_MAX]:
        w.state[ORPHAN_MAX] = 0
    if three_pass_level != 0:
        _three_pass(w, three_pass_level, side, excesses)


@numba.njit(cache=True)
def _three_pass_parent(w, x, level, side, excesses):
    """Pass 2 of three-pass relabelling: x's closest neighbour still attached (or a root)
    becomes its parent; True if that leaves x at `level`, else x is refiled (or freed)."""
    best = side * _top(w, side)
    wanted = w.label[x] - side
    for a in range(w.first[x], w.first[x + 1]):
        y = w.head[a]
        if _residual_in(w, a, side) > 0 and y != x and \
                (side * w.excess[y] > 0 or w.parent[y] != NONE) and \
                0 < side * w.label[y] < side * best:
            w.parent[x] = a
            best = w.label[y]
            if best == wanted:
                break
    if w.parent[x] == NONE:
        w.label[x] = 0
        if excesses and w.excess[x] != 0:
            _add_excess(w, x, side)  # bucket 0: freed once the imbalances are pushed
        return False
    w.label[x] = best + side
    if side * w.label[x] != level:
        _add_three_pass(w, x, side)
        return False
    return True


@numba.njit(cache=True)
def _lower_sons(w, x, side, excesses):
    """Pass 3: neighbours x can feed (T: that can feed x) waiting at a higher level, or
    freed, move to the level below x, with x as their parent-to-be."""
    wanted = w.label[x] + side
    for a in range(w.first[x], w.first[x + 1]):
        if _residual_out(w, a, side) > 0:
            y = w.head[a]
            if w.label[y] == 0 or side * w.label[y] > side * wanted:
                if w.label[y] != 0:
                    _remove_three_pass(w, y, side)
                elif excesses and w.excess[y] != 0:
                    _remove_excess(w, y, side)
                w.label[y] = wanted
                w.parent[y] = w.rev[a]
                _add_three_pass(w, y, side)


@numba.njit(cache=True)
def _three_pass(w, from_level, side, excesses):
    """Three-pass relabelling (IBFS, ESA 2011): the orphans, raised one level and filed by
    level, take their closest parent and lower their would-be sons, lowest level first."""
    level = from_level
    while level <= w.state[THREE_PASS_MAX]:
        while True:
            x = _pop(w.three_pass_head, w.next_node, level)
            if x == NONE:
                break
            w.counters[THREE_PASS] += 1
            if w.parent[x] == NONE and not _three_pass_parent(w, x, level, side, excesses):
                continue
            top = side * w.label[x] == _top(w, side)
            if not top:
                _lower_sons(w, x, side, excesses)
            _add_son(w, x, w.head[w.parent[x]])
            w.resume_at_parent[x] = 0
            if excesses and w.excess[x] != 0:
                _add_excess(w, x, side)
            if top:
                _activate(w, x, side)
        level += 1
    w.state[THREE_PASS_MAX] = 0


@numba.njit(cache=True)
def _root_capacity(w, x, limit, side):
    """min(limit, the residual capacities of the tree path from x to its root, the root's
    excess or deficit) and the root: the most IBFS can push between them."""
    while w.excess[x] == 0:
        limit = min(limit, _residual_in(w, w.parent[x], side))
        x = w.head[w.parent[x]]
    return min(limit, side * w.excess[x]), x


@numba.njit(cache=True)
def _augment(w, bridge, excesses):
    """Augment on `bridge`, an arc from S to T. EIBFS pushes its whole residual capacity
    (bounded by an end's own excess or deficit when that end is a root) and lets the trees
    carry it on as far as they can; IBFS, and EIBFS when either root lies above level 1
    (the authors' forceBottleneck), push the bottleneck of the whole path."""
    w.counters[AUGMENTATIONS] += 1
    s_end = w.head[w.rev[bridge]]
    t_end = w.head[bridge]
    amount = w.res[bridge]
    whole_path = not excesses
    if amount != 1:
        s_amount, s_root = _root_capacity(w, s_end, amount, 1)
        t_amount, t_root = _root_capacity(w, t_end, amount, -1)
        whole_path = whole_path or w.label[s_root] != 1 or w.label[t_root] != -1
        if whole_path:
            amount = min(s_amount, t_amount)
        else:
            if s_root == s_end:
                amount = s_amount
            if t_root == t_end:
                amount = min(amount, t_amount)
    w.res[bridge] -= amount
    w.res[w.rev[bridge]] += amount
    w.counters[PUSHES] += 1
    for side in (-1, 1):
        x = t_end if side < 0 else s_end
        if whole_path or amount == 1:
            _adoption(w, _augment_path(w, x, amount, side), True, side, excesses)
        else:
            _adoption(w, _augment_excess(w, x, amount, side), False, side, True)
            _augment_excesses(w, side)


@numba.njit(cache=True)
def _growth(w, side, excesses):
    """One BFS step of the tree of `side`: scan the vertices of its previous top level,
    attach free heads of residual arcs, augment on arcs into the other tree."""
    row = w.state[SPARE_ROW]
    level = side * (_top(w, side) - 1)
    growths = GROWTHS_S if side > 0 else GROWTHS_T
    for i in range(w.state[LENGTH + row]):
        x = w.active[row, i]
        if w.label[x] != level:
            continue
        w.counters[growths] += 1
        a = w.first[x]
        end = w.first[x + 1]
        while a < end:
            if _residual_out(w, a, side) > 0:
                y = w.head[a]
                if w.label[y] == 0:
                    w.label[y] = level + side
                    w.parent[y] = w.rev[a]
                    w.resume_at_parent[y] = 0
                    _add_son(w, y, x)
                    _activate(w, y, side)
                elif side * w.label[y] < 0:
                    _augment(w, a if side > 0 else w.rev[a], excesses)
                    if w.label[x] != level:
                        break
                    continue  # the arc may still be residual: look at it again
            a += 1
    w.state[LENGTH + row] = 0


@numba.njit(cache=True)
def _terminal_excesses(first, head, rev, cap, res, source, sink):
    """Saturate every arc out of the source and every arc into the sink; return each
    vertex's excess (source capacity minus sink capacity) and its sink capacity. A sink
    capacity counts at most the source's total (what no flow can exceed), so that
    excesses stay within int64."""
    n = first.shape[0] - 1
    excess = np.zeros(n, np.int64)
    supply = 0
    for a in range(first[source], first[source + 1]):
        v = head[a]
        if v != source and cap[a] > 0:
            res[a] = 0
            res[rev[a]] = cap[a]
            supply += cap[a]
            if v != sink:
                excess[v] += cap[a]
    sink_capacity = np.zeros(n, np.int64)
    for b in range(first[sink], first[sink + 1]):
        a = rev[b]
        v = head[b]
        if v != sink and v != source and cap[a] > 0:
            res[a] = 0
            res[b] = cap[a]
            sink_capacity[v] += min(cap[a], supply - sink_capacity[v])
    excess -= sink_capacity
    return excess, sink_capacity


@numba.njit(cache=True)
def _forest(first, head, rev, res, excess, source, sink, counters):
    """The search state at the start: roots with excess at level 1 of S, with deficit at
    level 1 of T, the source and the sink out of reach at 1 and -1."""
    n = excess.shape[0]
    levels = n + 3
    w = Forest(first, head, rev, res, np.zeros(n, np.int32), excess,
               np.full(n, NONE, np.int32), np.full(n, NONE, np.int32),
               np.full(n, NONE, np.int32), np.full(n, NONE, np.int32), np.zeros(n, np.uint8),
               np.zeros(n, np.int64), np.full(n, NONE, np.int32), np.full(n, NONE, np.int32),
               np.empty((3, n + 1), np.int32), np.full(levels, NONE, np.int32),
               np.full(levels, NONE, np.int32), np.full(levels, NONE, np.int32),
               np.zeros(STATE_SLOTS, np.int64), counters)
    w.state[TOP_S] = 1
    w.state[TOP_T] = 1
    w.state[EXCESS_MIN] = np.iinfo(np.int64).max
    w.state[S_ROW], w.state[T_ROW], w.state[SPARE_ROW] = 0, 1, 2
    w.label[source] = 1
    w.label[sink] = -1
    for v in range(n):
        if v != source and v != sink and excess[v] != 0:
            side = 1 if excess[v] > 0 else -1
            w.label[v] = side
            _activate(w, v, side)
    return w


@numba.njit(cache=True)
def _search(w, excesses):
    """The authors' computeMaxFlow: growth steps until a tree's top level is empty; the
    next step grows T when T made fewer orphans (or as many, after an S step)."""
    side = 1
    while True:
        row = S_ROW if side > 0 else T_ROW
        w.state[row], w.state[SPARE_ROW] = w.state[SPARE_ROW], w.state[row]
        w.state[TOP_S if side > 0 else TOP_T] += 1
        _growth(w, side, excesses)
        if w.state[LENGTH + w.state[S_ROW]] == 0 or w.state[LENGTH + w.state[T_ROW]] == 0:
            return
        unique_s, unique_t = w.state[UNIQUE_S], w.state[UNIQUE_T]
        side = -1 if unique_t < unique_s or (unique_t == unique_s and side > 0) else 1


@numba.njit(cache=True)
def _settle_sink_arcs(first, head, rev, cap, res, excess, sink_capacity, source, sink):
    """The sink arcs of each vertex carry its sink capacity less its deficit; the deficit
    beyond that stays in `excess`. Returns how many vertices keep one."""
    unbacked = 0
    for v in range(excess.shape[0]):
        if excess[v] < 0:
            delivered = max(sink_capacity[v] + excess[v], 0)
            excess[v] += sink_capacity[v] - delivered
            sink_capacity[v] = delivered
            unbacked += excess[v] < 0
    for b in range(first[sink], first[sink + 1]):
        a = rev[b]
        v = head[b]
        if v != sink and v != source and cap[a] > 0:
            carried = min(cap[a], sink_capacity[v])
            sink_capacity[v] -= carried
            res[a] = cap[a] - carried
            res[b] = carried
    return unbacked


@numba.njit(cache=True)
def _return_deficits(first, head, rev, cap, res, excess, source, sink):
    """Send unbacked deficits back along the flow out of their vertices: hi_pr's stage two
    on the transposed graph (each arc's residual is its reverse's), where a deficit is an
    excess and the sink plays the source."""
    transposed = res[rev]
    negated = -excess
    hipr_stage_two(first, head, rev, transposed, cap[rev], negated, sink, source)
    res[rev] = transposed
    excess[:] = -negated


@numba.njit(cache=True)
def eibfs_max_preflow(first, head, rev, cap, res, source, sink, excesses, counters):
    """EIBFS (`excesses`) or IBFS on the residuals `res`, left as a maximum preflow;
    returns the excesses and the flow value (what the sink receives)."""
    excess, sink_capacity = _terminal_excesses(first, head, rev, cap, res, source, sink)
    w = _forest(first, head, rev, res, excess, source, sink, counters)
    _search(w, excesses)
    unbacked = _settle_sink_arcs(first, head, rev, cap, res, excess, sink_capacity, source,
                                 sink)
    counters[DEFICIT_RETURNS] += unbacked
    if unbacked:
        _return_deficits(first, head, rev, cap, res, excess, source, sink)
    flow_value = 0
    for b in range(first[sink], first[sink + 1]):
        flow_value += res[b] - cap[b]
    return excess, flow_value
