"""EIBFS and IBFS maximum flow in Numba: the search on its own forward star of the arcs
between inner vertices, the result in the shared residual graph.

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
At the end the sink arcs carry what the deficits leave of them, and deficits no sink
capacity backs (EIBFS can leave some) go back along the flow out of their vertex, so that
the residuals hold a maximum preflow.

The state is plain arrays, passed in this order where a function takes them: the graph of
the arcs between inner vertices (first, head, rev, res; see _inner_graph), open_back
(whether each arc's reverse is residual, kept as the authors' isRevResidual so that scans
read the arcs in order), label, tree (per-vertex links, rows below), excess, stamps,
buckets (heads of the bucket lists by distance), active (the level lists), state, counters.
"""

import numba
import numpy as np

from maxflow_cli.limits import INT64_MAX
from maxflow_cli.pushrelabel.highest_label import hipr_stage_two

NONE = np.uint32(2**32 - 1)
"""No vertex, arc or son. The search's vertex and arc numbers are unsigned (uint32, below
2^31), as in hpf: Numba guards every signed index against negative values, a test and a
select on each access of the search's inner loops, which the authors' pointers do without."""
ONE = np.uint32(1)  # a step along the arcs that keeps the arc number unsigned

NO_BOUND = 2**62  # the search never pauses (see help_bound)


def help_bound(m: int) -> int:
    """The search calls for help (maxflow_cli.solvers.eibfs) once its work (work: growths,
    pushes and orphans) passes 3m. Where the trees stay shallow, as on vision grids and
    matchings, it reached at most 1.5m by the end; where they grow deep and paths long, as on
    a path or the Washington lines and meshes, it went past 5m and the search was 3.5 to
    2,000 times hpf's time (README, "The CPU default")."""
    return 3 * m


_search_jit = numba.njit(cache=True, _nrt=False)
"""The search's functions allocate nothing, so they run without Numba's reference counting:
with it, every call that passes arrays on counts references to them atomically, which took
three quarters of the search's time."""
_inline_jit = numba.njit(cache=True, _nrt=False, inline="always")
"""The search's steps called once a growth, augmentation or orphan, inlined where they are
called (in Numba's IR): a call that LLVM does not inline passes each of its arrays field by
field, about a hundred arguments, which took two fifths of the search's time on the grids."""

# Rows of `tree` (int32): the parent arc (in the vertex's own arc range), the first son, the
# next vertex in a list of sons or of a bucket, the previous one in a three-pass bucket, the
# links of the imbalance buckets, and whether the parent arc is the current arc.
PARENT, FIRST_SON, NEXT, PREV, EXCESS_NEXT, EXCESS_PREV, RESUME = range(7)
# Rows of `stamps` (int64): the augmentation that last orphaned the vertex, the compaction
# that last kept it in a level list. Rows of `buckets`: orphans, three-pass, imbalances.
LAST_ORPHANED, LISTED = range(2)
ORPHAN_BUCKETS, THREE_PASS_BUCKETS, EXCESS_BUCKETS = range(3)

# Slots of `state`: the tree tops, the augmentation stamp, bucket bounds, orphans per tree,
# which rows of `active` hold the S and T lists, compactions, and each row's length.
TOP_S, TOP_T, AUGMENTATION, ORPHAN_MAX, THREE_PASS_MAX, EXCESS_MAX, EXCESS_MIN, \
    UNIQUE_S, UNIQUE_T, S_ROW, T_ROW, SPARE_ROW, COMPACTIONS, LENGTH = range(14)
STATE_SLOTS = LENGTH + 3

AUGMENTATIONS, GROWTHS_S, GROWTHS_T, PUSHES, ORPHANS, ADOPTIONS, RELABELS, THREE_PASS, \
    FREED, EXCESS_PUSHES, DEFICIT_RETURNS = range(11)
COUNTER_NAMES = ("augmentations", "growths_s", "growths_t", "pushes", "orphans", "adoptions",
                 "relabels", "three_pass_relabels", "freed", "excess_pushes",
                 "deficit_returns")


@_search_jit
def _top(state, side):
    return state[TOP_S] if side > 0 else state[TOP_T]


@_search_jit
def _residual_in(res, rev, a, side):
    """Residual capacity of arc a (x -> y) in the tree direction were y x's parent: y -> x in
    S, x -> y in T."""
    return res[rev[a]] if side > 0 else res[a]


@_search_jit
def _open_in(res, open_back, a, side):
    """Whether arc a (x -> y) is residual in the tree direction were y x's parent."""
    return open_back[a] if side > 0 else res[a] > 0


@_search_jit
def _open_out(res, open_back, a, side):
    """Whether arc a (x -> y) is residual in the tree direction were y x's son."""
    return res[a] > 0 if side > 0 else open_back[a]


@_search_jit
def _push(res, rev, open_back, into, amount):
    """Move `amount` along arc `into`; return what is left of it."""
    back = rev[into]
    res[into] -= amount
    res[back] += amount
    open_back[into] = res[back] > 0
    open_back[back] = res[into] > 0
    return res[into]


@_search_jit
def _add_son(tree, x, p):
    tree[NEXT, x] = tree[FIRST_SON, p]
    tree[FIRST_SON, p] = x


@_search_jit
def _remove_son(head, tree, x):
    """Take x out of its parent's list of sons."""
    p = head[tree[PARENT, x]]
    y = tree[FIRST_SON, p]
    if y == x:
        tree[FIRST_SON, p] = tree[NEXT, x]
        return
    while tree[NEXT, y] != x:
        y = tree[NEXT, y]
    tree[NEXT, y] = tree[NEXT, x]


@_search_jit
def _compact_active(label, stamps, active, state, row, level):
    """Drop from a full list the vertices that left its level, and repeats; return the new
    length (at most the vertices at that level)."""
    state[COMPACTIONS] += 1
    kept = 0
    for i in range(state[LENGTH + row]):
        y = active[row, i]
        if label[y] == level and stamps[LISTED, y] != state[COMPACTIONS]:
            stamps[LISTED, y] = state[COMPACTIONS]
            active[row, kept] = y
            kept += 1
    return kept


@_search_jit
def _activate(label, stamps, active, state, x, side):
    """Append x to the list of its tree's top level, the next growth step's vertices."""
    row = state[S_ROW] if side > 0 else state[T_ROW]
    length = state[LENGTH + row]
    if length == active.shape[1]:
        length = _compact_active(label, stamps, active, state, row, side * _top(state, side))
    active[row, length] = x
    state[LENGTH + row] = length + 1


@_search_jit
def _add_orphan(label, tree, buckets, state, x, side):
    distance = side * label[x]
    tree[NEXT, x] = buckets[ORPHAN_BUCKETS, distance]
    buckets[ORPHAN_BUCKETS, distance] = x
    state[ORPHAN_MAX] = max(state[ORPHAN_MAX], distance)


@_search_jit
def _bucket_add(buckets, kind, tree, next_slot, prev_slot, x, distance):
    """Put x at the front of bucket `distance` of `kind`, linked through tree[next_slot] and
    tree[prev_slot]."""
    y = buckets[kind, distance]
    tree[next_slot, x] = y
    if y != NONE:
        tree[prev_slot, y] = x
    buckets[kind, distance] = x


@_search_jit
def _bucket_remove(buckets, kind, tree, next_slot, prev_slot, x, distance):
    """Unlink x from bucket `distance` of `kind` (see _bucket_add)."""
    if buckets[kind, distance] == x:
        buckets[kind, distance] = tree[next_slot, x]
    else:
        tree[next_slot, tree[prev_slot, x]] = tree[next_slot, x]
        if tree[next_slot, x] != NONE:
            tree[prev_slot, tree[next_slot, x]] = tree[prev_slot, x]


@_search_jit
def _add_three_pass(label, tree, buckets, state, x, side):
    distance = side * label[x]
    _bucket_add(buckets, THREE_PASS_BUCKETS, tree, NEXT, PREV, x, distance)
    state[THREE_PASS_MAX] = max(state[THREE_PASS_MAX], distance)


@_search_jit
def _remove_three_pass(label, tree, buckets, x, side):
    _bucket_remove(buckets, THREE_PASS_BUCKETS, tree, NEXT, PREV, x, side * label[x])


@_search_jit
def _add_excess(label, tree, buckets, state, x, side):
    """File x, a non-root holding its tree's wrong sign of excess, by its distance."""
    distance = side * label[x]
    _bucket_add(buckets, EXCESS_BUCKETS, tree, EXCESS_NEXT, EXCESS_PREV, x, distance)
    state[EXCESS_MAX] = max(state[EXCESS_MAX], distance)
    if distance != 0:
        state[EXCESS_MIN] = min(state[EXCESS_MIN], distance)


@_search_jit
def _remove_excess(label, tree, buckets, x, side):
    _bucket_remove(buckets, EXCESS_BUCKETS, tree, EXCESS_NEXT, EXCESS_PREV, x,
                   side * label[x])


@_search_jit
def _pop(buckets, kind, tree, link, distance):
    x = buckets[kind, distance]
    if x != NONE:
        buckets[kind, distance] = tree[link, x]
    return x


@_search_jit
def _free_orphan(label, tree, excess, stamps, active, state, counters, x, side, excesses):
    """An orphan without a parent leaves its tree: free, or, holding an imbalance (EIBFS), a
    root at the other tree's top level."""
    counters[FREED] += 1
    if excesses and excess[x] != 0:
        label[x] = -side * _top(state, -side)
        _activate(label, stamps, active, state, x, -side)
        tree[RESUME, x] = 0
    else:
        label[x] = 0


@_inline_jit
def _augment_path(head, rev, res, open_back, label, tree, excess, buckets, state, counters, x,
                  amount, side):
    """Move `amount` between x and its root along tree arcs (IBFS's augmentation, one tree);
    file the vertices whose arc saturated, and the root if it runs dry, as orphans.
    Returns the lowest distance orphaned (the top level + 1 if none)."""
    state[AUGMENTATION] += 1
    lowest = _top(state, side) + 1
    pushes = 0  # counted here, stored once (an increment in memory would chain the pushes)
    while excess[x] == 0:
        a = tree[PARENT, x]
        pushes += 1
        if _push(res, rev, open_back, rev[a] if side > 0 else a, amount) == 0:
            _remove_son(head, tree, x)
            lowest = side * label[x]
            _add_orphan(label, tree, buckets, state, x, side)
        x = head[a]
    counters[PUSHES] += pushes
    excess[x] -= side * amount
    if excess[x] == 0:
        lowest = side * label[x]
        _add_orphan(label, tree, buckets, state, x, side)
    return lowest


@_search_jit
def _orphan_imbalanced(label, tree, excess, buckets, state, x, side):
    """File x, whose tree arc saturated, as an orphan; the imbalance it keeps raises the
    highest level of imbalances to x's."""
    distance = side * label[x]
    _add_orphan(label, tree, buckets, state, x, side)
    if excess[x] != 0:
        state[EXCESS_MAX] = max(state[EXCESS_MAX], distance)
    return distance


@_inline_jit
def _augment_excess(head, rev, res, open_back, label, tree, excess, buckets, state, counters, x,
                    amount, side):
    """EIBFS's push towards the root: x receives `amount` (or holds its imbalance, amount 0)
    and passes on what its tree arc carries, keeping the rest; vertices on the way that held
    an imbalance merge theirs. Returns the lowest distance orphaned."""
    state[AUGMENTATION] += 1
    lowest = _top(state, side) + 1
    pushes = 0  # as in _augment_path
    while side * excess[x] <= 0:
        a = tree[PARENT, x]
        pushes += 1
        carried = _residual_in(res, rev, a, side)
        needed = amount - side * excess[x]
        if carried < needed:
            excess[x] += side * (carried - amount)
            amount = carried
        else:
            amount = needed
            excess[x] = 0
        if _push(res, rev, open_back, rev[a] if side > 0 else a, amount) == 0:
            _remove_son(head, tree, x)
            lowest = _orphan_imbalanced(label, tree, excess, buckets, state, x, side)
        x = head[a]
        if side * excess[x] < 0:
            _remove_excess(label, tree, buckets, x, side)
    counters[PUSHES] += pushes
    excess[x] -= side * amount
    if side * excess[x] <= 0:
        lowest = _orphan_imbalanced(label, tree, excess, buckets, state, x, side)
    return lowest


@_inline_jit
def _augment_excesses(first, head, rev, res, open_back, label, tree, excess, stamps, buckets,
                      active, state, counters, side):
    """Push every filed imbalance towards its root, highest level first, adopting the
    orphans each push makes at levels up to the highest imbalance left; then the rest of
    the orphans, and the vertices the three passes freed with an imbalance leave."""
    adopted_up_to = state[EXCESS_MAX]
    if state[EXCESS_MAX] >= state[EXCESS_MIN]:
        while state[EXCESS_MAX] != state[EXCESS_MIN] - 1:
            while True:
                x = _pop(buckets, EXCESS_BUCKETS, tree, EXCESS_NEXT, state[EXCESS_MAX])
                if x == NONE:
                    break
                counters[EXCESS_PUSHES] += 1
                orphaned = _augment_excess(head, rev, res, open_back, label, tree, excess,
                                           buckets, state, counters, x, 0, side)
                lowest = min(adopted_up_to, orphaned)
                _adoption(first, head, rev, res, open_back, label, tree, excess, stamps, buckets,
                          active, state, counters, lowest, False, side, True)
                adopted_up_to = state[EXCESS_MAX]
            state[EXCESS_MAX] -= 1
    state[EXCESS_MAX] = 0
    state[EXCESS_MIN] = np.iinfo(np.int64).max
    if state[ORPHAN_MAX] != 0:
        _adoption(first, head, rev, res, open_back, label, tree, excess, stamps, buckets, active,
                  state, counters, adopted_up_to + 1, True, side, True)
    while True:
        x = _pop(buckets, EXCESS_BUCKETS, tree, EXCESS_NEXT, 0)
        if x == NONE:
            break
        _free_orphan(label, tree, excess, stamps, active, state, counters, x, side, True)


@_inline_jit
def _adopt_at_level(first, head, rev, res, open_back, label, tree, counters, x, side):
    """Look for a parent one level closer to the root, from x's parent arc onwards when
    that arc is its current arc (else from its first arc); True if one was found."""
    a = tree[PARENT, x] if tree[RESUME, x] else first[x]
    tree[RESUME, x] = 1
    tree[PARENT, x] = NONE
    if side * label[x] == 1:
        return False
    wanted = label[x] - side
    end = first[x + 1]
    while a < end:
        if _open_in(res, open_back, a, side) and label[head[a]] == wanted:
            tree[PARENT, x] = a
            _add_son(tree, x, head[a])
            counters[ADOPTIONS] += 1
            return True
        a += ONE
    return False


@_search_jit
def _orphan_sons(label, tree, excess, buckets, state, x, side, excesses):
    """x is to be relabelled: its sons become orphans."""
    y = tree[FIRST_SON, x]
    while y != NONE:
        following = tree[NEXT, y]
        if excesses and excess[y] != 0:
            _remove_excess(label, tree, buckets, y, side)
        _add_orphan(label, tree, buckets, state, y, side)
        y = following
    tree[FIRST_SON, x] = NONE


@_inline_jit
def _relabel(first, head, rev, res, open_back, label, tree, excess, stamps, buckets, active, state,
             counters, x, side, excesses):
    """Attach x below its closest neighbour in the tree that can feed it (T: that it can
    feed), or free it if there is none."""
    top = _top(state, side)
    best = side * top
    for a in range(first[x], first[x + 1]):
        y = head[a]
        if _open_in(res, open_back, a, side) and 0 < side * label[y] < side * best:
            best = label[y]
            tree[PARENT, x] = a
            if best == label[x]:
                break
    if tree[PARENT, x] == NONE:
        _free_orphan(label, tree, excess, stamps, active, state, counters, x, side, excesses)
        return
    counters[RELABELS] += 1
    label[x] = best + side
    _add_son(tree, x, head[tree[PARENT, x]])
    if side * label[x] == top:
        _activate(label, stamps, active, state, x, side)
    if excesses and excess[x] != 0:
        _add_excess(label, tree, buckets, state, x, side)


@_search_jit
def _count_orphan(stamps, state, counters, x, side):
    """Count x as an orphan; return 1 if it is its first time in this augmentation."""
    counters[ORPHANS] += 1
    if stamps[LAST_ORPHANED, x] == state[AUGMENTATION]:
        return 0
    stamps[LAST_ORPHANED, x] = state[AUGMENTATION]
    state[UNIQUE_S if side > 0 else UNIQUE_T] += 1
    return 1


@_inline_jit
def _adoption(first, head, rev, res, open_back, label, tree, excess, stamps, buckets, active, state,
              counters, from_level, to_top, side, excesses):
    """Process the orphans level by level from `from_level` (EIBFS: while below the
    highest filed imbalance, unless `to_top`); switch to three-pass relabelling once the
    orphans processed reach three times the distinct ones (IB_HYBRID_ADOPTION)."""
    three_pass_level = 0
    orphans = 0
    unique = 0
    level = from_level
    while level <= state[ORPHAN_MAX] and (not excesses or to_top or three_pass_level != 0
                                         or level <= state[EXCESS_MAX]):
        while True:
            x = _pop(buckets, ORPHAN_BUCKETS, tree, NEXT, level)
            if x == NONE:
                break
            orphans += 1
            unique += _count_orphan(stamps, state, counters, x, side)
            if three_pass_level == 0 and orphans >= 3 * unique:
                three_pass_level = 1
            if _adopt_at_level(first, head, rev, res, open_back, label, tree, counters, x, side):
                if excesses and excess[x] != 0:
                    _add_excess(label, tree, buckets, state, x, side)
            elif side * label[x] == _top(state, side):
                _free_orphan(label, tree, excess, stamps, active, state, counters, x, side,
                             excesses)
            else:
                _orphan_sons(label, tree, excess, buckets, state, x, side, excesses)
                if three_pass_level == 0:
                    _relabel(first, head, rev, res, open_back, label, tree, excess, stamps, buckets,
                             active, state, counters, x, side, excesses)
                    continue
                label[x] += side
                _add_three_pass(label, tree, buckets, state, x, side)
                if three_pass_level == 1:
                    three_pass_level = level + 1
        level += 1
    if level > state[ORPHAN_MAX]:
        state[ORPHAN_MAX] = 0
    if three_pass_level != 0:
        _three_pass(first, head, rev, res, open_back, label, tree, excess, stamps, buckets, active,
                    state, counters, three_pass_level, side, excesses)


@_inline_jit
def _three_pass_parent(first, head, rev, res, open_back, label, tree, excess, buckets, state, x,
                       level, side, excesses):
    """Pass 2 of three-pass relabelling: x's closest neighbour still attached (or a root)
    becomes its parent; True if that leaves x at `level`, else x is refiled (or freed)."""
    best = side * _top(state, side)
    wanted = label[x] - side
    for a in range(first[x], first[x + 1]):
        y = head[a]
        if _open_in(res, open_back, a, side) and \
                (side * excess[y] > 0 or tree[PARENT, y] != NONE) and \
                0 < side * label[y] < side * best:
            tree[PARENT, x] = a
            best = label[y]
            if best == wanted:
                break
    if tree[PARENT, x] == NONE:
        label[x] = 0
        if excesses and excess[x] != 0:
            _add_excess(label, tree, buckets, state, x, side)  # bucket 0: freed later
        return False
    label[x] = best + side
    if side * label[x] != level:
        _add_three_pass(label, tree, buckets, state, x, side)
        return False
    return True


@_inline_jit
def _lower_sons(first, head, rev, res, open_back, label, tree, excess, buckets, state, x, side,
                excesses):
    """Pass 3: neighbours x can feed (T: that can feed x) waiting at a higher level, or
    freed, move to the level below x, with x as their parent-to-be."""
    wanted = label[x] + side
    for a in range(first[x], first[x + 1]):
        if _open_out(res, open_back, a, side):
            y = head[a]
            if label[y] == 0 or side * label[y] > side * wanted:
                if label[y] != 0:
                    _remove_three_pass(label, tree, buckets, y, side)
                elif excesses and excess[y] != 0:
                    _remove_excess(label, tree, buckets, y, side)
                label[y] = wanted
                tree[PARENT, y] = rev[a]
                _add_three_pass(label, tree, buckets, state, y, side)


@_inline_jit
def _three_pass(first, head, rev, res, open_back, label, tree, excess, stamps, buckets, active,
                state, counters, from_level, side, excesses):
    """Three-pass relabelling (IBFS, ESA 2011): the orphans, raised one level and filed by
    level, take their closest parent and lower their would-be sons, lowest level first."""
    level = from_level
    while level <= state[THREE_PASS_MAX]:
        while True:
            x = _pop(buckets, THREE_PASS_BUCKETS, tree, NEXT, level)
            if x == NONE:
                break
            counters[THREE_PASS] += 1
            if tree[PARENT, x] == NONE and not _three_pass_parent(
                    first, head, rev, res, open_back, label, tree, excess, buckets, state, x, level,
                    side, excesses):
                continue
            top = side * label[x] == _top(state, side)
            if not top:
                _lower_sons(first, head, rev, res, open_back, label, tree, excess, buckets, state,
                            x, side, excesses)
            _add_son(tree, x, head[tree[PARENT, x]])
            tree[RESUME, x] = 0
            if excesses and excess[x] != 0:
                _add_excess(label, tree, buckets, state, x, side)
            if top:
                _activate(label, stamps, active, state, x, side)
        level += 1
    state[THREE_PASS_MAX] = 0


@_search_jit
def _root_capacity(head, rev, res, tree, excess, x, limit, side):
    """min(limit, the residual capacities of the tree path from x to its root, the root's
    excess or deficit) and the root: the most IBFS can push between them."""
    while excess[x] == 0:
        limit = min(limit, _residual_in(res, rev, tree[PARENT, x], side))
        x = head[tree[PARENT, x]]
    return min(limit, side * excess[x]), x


@_inline_jit
def _augment(first, head, rev, res, open_back, label, tree, excess, stamps, buckets, active, state,
             counters, bridge, s_end, t_end, excesses):
    """Augment on `bridge`, an arc from s_end in S to t_end in T (the growth knows both: it
    scans one and has just read the other, where reading them off the arc takes two loads
    that miss the cache; README, "The CPU default"). EIBFS pushes its whole
    residual capacity (bounded by an end's own excess or deficit when that end is a root)
    and lets the trees carry it on as far as they can; IBFS, and EIBFS when either root lies
    above level 1 (the authors' forceBottleneck), push the bottleneck of the whole path."""
    counters[AUGMENTATIONS] += 1
    amount = res[bridge]
    whole_path = not excesses
    if amount != 1:
        s_amount, s_root = _root_capacity(head, rev, res, tree, excess, s_end, amount, 1)
        t_amount, t_root = _root_capacity(head, rev, res, tree, excess, t_end, amount, -1)
        whole_path = whole_path or label[s_root] != 1 or label[t_root] != -1
        if whole_path:
            amount = min(s_amount, t_amount)
        else:
            if s_root == s_end:
                amount = s_amount
            if t_root == t_end:
                amount = min(amount, t_amount)
    _push(res, rev, open_back, bridge, amount)
    counters[PUSHES] += 1
    path = whole_path or amount == 1
    for side in (-1, 1):
        x = t_end if side < 0 else s_end
        if path:
            lowest = _augment_path(head, rev, res, open_back, label, tree, excess, buckets, state,
                                   counters, x, amount, side)
        else:
            lowest = _augment_excess(head, rev, res, open_back, label, tree, excess, buckets, state,
                                     counters, x, amount, side)
        _adoption(first, head, rev, res, open_back, label, tree, excess, stamps, buckets,
                  active, state, counters, lowest, path, side, excesses or not path)
        if not path:
            _augment_excesses(first, head, rev, res, open_back, label, tree, excess, stamps,
                              buckets, active, state, counters, side)


@_inline_jit
def _growth(first, head, rev, res, open_back, label, tree, excess, stamps, buckets, active, state,
            counters, side, excesses):
    """One BFS step of the tree of `side`: scan the vertices of its previous top level,
    attach free heads of residual arcs, augment on arcs into the other tree."""
    row = state[SPARE_ROW]
    level = side * (_top(state, side) - 1)
    for i in range(state[LENGTH + row]):
        x = active[row, i]
        if label[x] != level:
            continue
        counters[GROWTHS_S if side > 0 else GROWTHS_T] += 1
        a = first[x]
        end = first[x + 1]
        while a < end:
            if _open_out(res, open_back, a, side):
                y = head[a]
                if label[y] == 0:
                    label[y] = level + side
                    tree[PARENT, y] = rev[a]
                    tree[RESUME, y] = 0
                    _add_son(tree, y, x)
                    _activate(label, stamps, active, state, y, side)
                elif side * label[y] < 0:
                    bridge, s_end, t_end = (a, x, y) if side > 0 else (rev[a], y, x)
                    _augment(first, head, rev, res, open_back, label, tree, excess, stamps, buckets,
                             active, state, counters, bridge, s_end, t_end, excesses)
                    if label[x] != level:
                        break
                    continue  # the arc may still be residual: look at it again
            a += ONE
    state[LENGTH + row] = 0


@_search_jit
def work(counters):
    """The search's steps so far: vertices scanned by growths, arcs pushed along, orphans."""
    return counters[GROWTHS_S] + counters[GROWTHS_T] + counters[PUSHES] + counters[ORPHANS]


@_search_jit
def _search(first, head, rev, res, open_back, label, tree, excess, stamps, buckets, active, state,
            counters, excesses, stop, bound, side):
    """The authors' computeMaxFlow: growth steps until a tree's top level is empty; the
    next step grows T when T made fewer orphans (or as many, after an S step). Starts with
    the tree of `side` (1: S); returns 0 at the end, or, where stop[0] is set or the work
    passes `bound` first (work; checked a growth step), the side to resume with."""
    while True:
        if stop[0] or work(counters) > bound:
            return side
        row = S_ROW if side > 0 else T_ROW
        state[row], state[SPARE_ROW] = state[SPARE_ROW], state[row]
        state[TOP_S if side > 0 else TOP_T] += 1
        _growth(first, head, rev, res, open_back, label, tree, excess, stamps, buckets, active,
                state, counters, side, excesses)
        if state[LENGTH + state[S_ROW]] == 0 or state[LENGTH + state[T_ROW]] == 0:
            return 0
        unique_s, unique_t = state[UNIQUE_S], state[UNIQUE_T]
        side = -1 if unique_t < unique_s or (unique_t == unique_s and side > 0) else 1


@numba.njit(cache=True)
def _terminal_excesses(first, head, rev, cap, res, source, sink):
    """Saturate every arc out of the source and every arc into the sink; return each
    vertex's excess (source capacity minus sink capacity) and its sink capacity. A sink
    capacity counts at most one more than the source's total, so that excesses stay within
    int64: no flow can drain such a deficit, which then stays a root's, as the authors'
    code keeps it (their capacities are not cut; a deficit cut to the source's total
    drained to 0 on Cheriyan's graph, and its tree's vertices became orphans there)."""
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
    bound = supply + (supply < INT64_MAX)
    for b in range(first[sink], first[sink + 1]):
        a = rev[b]
        v = head[b]
        if v != sink and v != source and cap[a] > 0:
            res[a] = 0
            res[b] = cap[a]
            sink_capacity[v] += min(cap[a], bound - sink_capacity[v])
    excess -= sink_capacity
    return excess, sink_capacity


@numba.njit(cache=True)
def _initial_forest(excess, source, sink):
    """The search state at the start (label, tree, stamps, buckets, active, state): roots
    with excess at level 1 of S, with deficit at level 1 of T, the source and the sink out
    of reach at 1 and -1."""
    n = excess.shape[0]
    label = np.zeros(n, np.int32)
    tree = np.full((RESUME + 1, n), NONE, np.uint32)
    tree[RESUME] = 0
    stamps = np.zeros((2, n), np.int64)
    buckets = np.full((3, n + 3), NONE, np.uint32)
    active = np.zeros((3, n + 1), np.uint32)  # written: its pages come in here, not in the search
    state = np.zeros(STATE_SLOTS, np.int64)
    state[TOP_S] = 1
    state[TOP_T] = 1
    state[EXCESS_MIN] = np.iinfo(np.int64).max
    state[S_ROW], state[T_ROW], state[SPARE_ROW] = 0, 1, 2
    label[source] = 1
    label[sink] = -1
    for v in range(n):
        if v != source and v != sink and excess[v] != 0:
            side = 1 if excess[v] > 0 else -1
            label[v] = side
            _activate(label, stamps, active, state, v, side)
    return label, tree, stamps, buckets, active, state


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
    """Send unbacked deficits back along the flow out of their vertices: where they are
    (_return_deficits_locally), or, where that passes its bound, over the whole graph."""
    if not _return_deficits_locally(first, head, cap, res, rev, excess, source, sink):
        _return_deficits_globally(first, head, rev, cap, res, excess, source, sink)


@numba.njit(cache=True)
def _return_deficits_locally(first, head, cap, res, rev, excess, source, sink):
    """Each vertex in deficit takes its deficit off the flow on its out-arcs, which may put
    their heads in deficit in turn, until none is left: the work stays near the few
    vertices in deficit, where the whole graph's stage two cost twice the search on grids.
    Every step takes flow off an arc, so it ends; but a deficit can go round a cycle of
    flow many times, so it gives up (False) after 2m arc steps, leaving a valid state to
    finish from."""
    n = first.shape[0] - 1
    waiting = np.empty(n, np.uint32)
    count = 0
    for v in range(n):
        if excess[v] < 0 and v != source and v != sink:
            waiting[count] = v
            count += 1
    steps, budget = 0, head.shape[0]
    while count:
        count -= 1
        v = waiting[count]
        a = first[v]
        while excess[v] < 0:
            steps += 1
            if a == first[v + 1] or steps > budget:
                return False
            taken = min(cap[a] - res[a], -excess[v])
            if taken > 0:
                w = head[a]
                res[a] += taken
                res[rev[a]] -= taken
                excess[v] += taken
                if excess[w] >= 0 and excess[w] < taken and w != source and w != sink:
                    waiting[count] = w
                    count += 1
                excess[w] -= taken
            a += 1
    return True


@numba.njit(cache=True)
def _return_deficits_globally(first, head, rev, cap, res, excess, source, sink):
    """hi_pr's stage two on the transposed graph (each arc's residual is its reverse's),
    where a deficit is an excess and the sink plays the source."""
    transposed = res[rev]
    negated = -excess
    hipr_stage_two(first, head, rev, transposed, cap[rev], negated, sink, source)
    res[rev] = transposed
    excess[:] = -negated


@numba.njit(cache=True)
def _is_inner(u, v, source, sink):
    return u != v and u != source and u != sink and v != source and v != sink


@numba.njit(cache=True)
def _inner_offsets(first, head, source, sink):
    """Where each vertex's inner arcs begin: a vertex has one for each of its residual arcs
    whose two ends are inner vertices, distinct (each stands for an input arc or its
    reverse). Counted in one sequential pass over the residual graph, not in input order."""
    n = first.shape[0] - 1
    inner_first = np.zeros(n + 1, np.uint32)
    for u in range(n):
        count = 0
        if u != source and u != sink:
            for a in range(first[u], first[u + 1]):
                count += _is_inner(u, head[a], source, sink)
        inner_first[u + 1] = inner_first[u] + count
    return inner_first


@numba.njit(cache=True)
def _inner_graph(outer_first, head, rev, cap, arc_of_input, source, sink, res_type):
    """The arcs the search can use, laid out as the authors' code lays out its graph: each
    vertex's arcs in input order (an input arc's forward arc at its tail, its reverse at its
    head), arcs of the source and sink and self-loops left out (they are terminal
    capacities there). The search takes the first arc that fits, so this order makes it do
    the authors' growths, augmentations and orphans; and it scans no terminal arcs.
    Returns the forward star (first, head, rev), the residuals (`res_type`s: the narrowest
    that holds them, residual.residual_type; 16 or 32 bits read where the authors' code
    reads its own) and open_back of its arcs at the start, and the residual graph's arc
    each of its arcs stands for (`outer`)."""
    n = outer_first.shape[0] - 1
    first = _inner_offsets(outer_first, head, source, sink)
    fill = first[:n].copy()
    arcs = first[n]
    inner_head, inner_rev = np.empty(arcs, np.uint32), np.empty(arcs, np.uint32)
    res, open_back = np.empty(arcs, res_type), np.empty(arcs, np.bool_)
    outer = np.empty(arcs, np.uint32)
    for i in range(arc_of_input.shape[0]):
        forward = arc_of_input[i]
        backward = rev[forward]
        u, v = head[backward], head[forward]
        if _is_inner(u, v, source, sink):
            a, b = fill[u], fill[v]
            fill[u] += 1
            fill[v] += 1
            inner_head[a], inner_head[b] = v, u
            inner_rev[a], inner_rev[b] = b, a
            outer[a], outer[b] = forward, backward
            res[a], res[b] = cap[forward], 0
            open_back[a], open_back[b] = False, res[a] > 0
    return first, inner_head, inner_rev, res, open_back, outer


@numba.njit(cache=True)
def _outer_residuals(inner_res, outer, res):
    """Copy the inner arcs' residuals to the residual graph's arcs they stand for, in one
    sequential pass over the inner arcs."""
    for a in range(inner_res.shape[0]):
        res[outer[a]] = inner_res[a]


@numba.njit(cache=True)
def eibfs_setup(first, head, rev, cap, res, source, sink, arc_of_input, res_type):
    """What the authors' code does before its clock starts (addNode, addEdge, initGraph):
    the terminal arcs saturated into the vertices' excesses, the initial forest, and the
    search's forward star (see _inner_graph, its residuals `res_type`s). Returns them as
    eibfs_search and eibfs_settle take them."""
    excess, sink_capacity = _terminal_excesses(first, head, rev, cap, res, source, sink)
    label, tree, stamps, buckets, active, state = _initial_forest(excess, source, sink)
    inner_first, inner_head, inner_rev, inner_res, open_back, outer = _inner_graph(
        first, head, rev, cap, arc_of_input, source, sink, res_type)
    return (inner_first, inner_head, inner_rev, inner_res, open_back, label, tree, excess,
            stamps, buckets, active, state, sink_capacity, outer)


eibfs_search = _search
"""The authors' computeMaxFlow, what their clock times: eibfs_search(first, head, rev, res,
open_back, label, tree, excess, stamps, buckets, active, state, counters, excesses, stop,
bound, side) on eibfs_setup's state, EIBFS with `excesses`, else IBFS; see _search."""


@numba.njit(cache=True)
def eibfs_settle(first, head, rev, cap, res, inner_res, outer, excess, sink_capacity, source,
                 sink, counters):
    """The search's end as a maximum preflow of the residual graph `res`: the inner arcs'
    residuals copied back, the sink arcs carrying what the deficits leave of them, and the
    deficits no sink capacity backs sent back. Returns the flow value (what the sink
    receives)."""
    _outer_residuals(inner_res, outer, res)
    unbacked = _settle_sink_arcs(first, head, rev, cap, res, excess, sink_capacity, source,
                                 sink)
    counters[DEFICIT_RETURNS] += unbacked
    if unbacked:
        _return_deficits(first, head, rev, cap, res, excess, source, sink)
    flow_value = 0
    for b in range(first[sink], first[sink + 1]):
        flow_value += res[b] - cap[b]
    return flow_value
