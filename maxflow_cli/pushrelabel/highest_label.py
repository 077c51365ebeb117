"""Goldberg & Cherkassky's sequential highest-label push-relabel (hi_pr 3.x), in Numba.

Highest-label selection with per-label buckets of active (singly linked) and inactive (doubly
linked) vertices, current arcs, gap relabeling, and global relabeling by reverse BFS from the
sink whenever ``work_since_update * frequency > alpha * n + m`` (a relabel costs ``beta`` plus
the arcs it scans). Stage 1 computes a maximum preflow (hi_pr's ``cut tm``); stage 2 returns
stranded excess to the source by hi_pr's DFS with flow-cycle cancelling (only when a flow is
asked for). The stage-1 core runs on any valid preflow state and can stop at its next global
update, so the hybrids (He & Hong 2010, Algorithm 5; Alvino 2015, Algorithm 11) can resume it.
"""


import numba
import numpy as np

from maxflow_cli import memory
from maxflow_cli.pushrelabel.parallel_relabel import parallel_gap_relabel
from maxflow_cli.pushrelabel.relabel import lift_bucket, saturate_source_arcs
from maxflow_cli.residual import ResidualGraph, index_view
from maxflow_cli.result import SolveResult, timed

# Slots of the counters array shared with the hybrids.
PUSHES, RELABELS, GLOBAL_UPDATES, GAPS, GAP_VERTICES, WORK = range(6)
COUNTER_NAMES = ("pushes", "relabels", "global_updates", "gaps", "gap_vertices", "work")

DONE = 0
STOPPED_AT_GLOBAL_UPDATE = 1
STOPPED = 2  # told to (a race's loser), or past its push budget (a relay's helper)
NO_PUSH_BUDGET = 2**62


@numba.njit(cache=True)
def hipr_labels(label, source, sink):
    """hi_pr's initial labels: the sink 0, the source n, every other vertex 1."""
    label[:] = 1
    label[sink] = 0
    label[source] = label.shape[0]


@numba.njit(cache=True, nogil=True)
def hipr_initialize(first, head, rev, res, excess, label, source, sink):
    """hi_pr's init(): every excess 0, the source arcs saturated; hi_pr's labels."""
    excess[:] = 0
    saturate_source_arcs(first, head, rev, res, excess, source)
    hipr_labels(label, source, sink)


@numba.njit(cache=True, inline="always")
def _add_active(i, d, first_active, b_next):
    """hi_pr's aAdd (the bounds aside): put i at the front of the active list of bucket d."""
    b_next[i] = first_active[d]
    first_active[d] = i


@numba.njit(cache=True, inline="always")
def _add_inactive(i, d, first_inactive, b_next, b_prev):
    """hi_pr's iAdd: put i at the front of the inactive list of bucket d (n is the sentinel)."""
    nxt = first_inactive[d]
    b_next[i] = nxt
    b_prev[i] = b_prev.shape[0] - 1
    b_prev[nxt] = i
    first_inactive[d] = i


@numba.njit(cache=True)
def _build_buckets(label, excess, source, sink, first_active, first_inactive, b_next, b_prev):
    """File every vertex with a label below n in its bucket, in vertex order like hi_pr's
    init(); return (aMax, aMin, dMax)."""
    n = label.shape[0]
    first_active[:] = n
    first_inactive[:] = n
    a_max = 0
    a_min = n
    d_max = 0
    for i in range(n):
        d = label[i]
        if i == source or d >= n:
            continue
        d_max = max(d_max, d)
        if excess[i] > 0 and i != sink:
            _add_active(i, d, first_active, b_next)
            a_max = max(a_max, d)
            a_min = min(a_min, d)
        else:
            _add_inactive(i, d, first_inactive, b_next, b_prev)
    return a_max, a_min, d_max


@numba.njit(cache=True)
def _global_update(first, head, rev, res, excess, label, current, sink, seeded_from,
                   first_active, first_inactive, b_next, b_prev, counters):
    """hi_pr's globalUpdate(): exact labels by reverse BFS, buckets rebuilt, current arcs reset.

    As in hi_pr, the BFS scans each level's inactive list, then its active list, and files
    every newly labelled vertex at the front of its list, so the buckets (and the discharge
    order that follows) come out in hi_pr's order. The vertices from `seeded_from` on keep
    their labels and seed the BFS at them (the ghosts of an `mpi` part, at their owners'
    labels; none in hipr); a `sink` of n or more is not in the graph. Counts the update;
    returns (aMax, aMin, dMax).
    """
    counters[GLOBAL_UPDATES] += 1
    n = label.shape[0]
    label[:seeded_from] = n
    first_active[:] = n
    first_inactive[:] = n
    top_seed = 0
    if sink < n:
        label[sink] = 0
        _add_inactive(sink, 0, first_inactive, b_next, b_prev)
    for g in range(seeded_from, n):
        if label[g] < n:
            _add_inactive(g, label[g], first_inactive, b_next, b_prev)
            top_seed = max(top_seed, label[g])
    a_max = 0
    a_min = n
    d_max = 0
    level = 0
    while level < n and (level <= top_seed or first_active[level] != n
                         or first_inactive[level] != n):
        j_label = level + 1
        for pass_ in range(2):  # the inactive list, then the active list
            i = first_inactive[level] if pass_ == 0 else first_active[level]
            while i != n:
                for a in range(first[i], first[i + 1]):
                    j = head[a]
                    if label[j] == n and j < seeded_from and res[rev[a]] > 0:
                        label[j] = j_label
                        current[j] = first[j]
                        d_max = j_label
                        if excess[j] > 0:
                            _add_active(j, j_label, first_active, b_next)
                            a_max = j_label
                            a_min = min(a_min, j_label)
                        else:
                            _add_inactive(j, j_label, first_inactive, b_next, b_prev)
                i = b_next[i]
        level += 1
    return a_max, a_min, d_max


@numba.njit(cache=True, inline="always")
def _relabel(i, first, head, res, label):
    """hi_pr's relabel(): the lowest label across i's residual arcs plus one, and the first arc
    to a vertex of that label; n (and any arc) where that is n or more: i no longer reaches the
    sink. The caller stores them (a store here, in Numba, would cost a reference count)."""
    n = label.shape[0]
    lowest = n
    lowest_arc = first[i]
    for a in range(first[i], first[i + 1]):
        if res[a] > 0 and label[head[a]] < lowest:
            lowest = label[head[a]]
            lowest_arc = a
    return min(lowest + 1, n), lowest_arc


@numba.njit(cache=True, inline="always")
def _gap(empty, d_max, first_inactive, b_next, label, parallel_gap, counters):
    """hi_pr's gap(): bucket `empty` has no vertex left, so no vertex above it reaches the sink;
    the inactive vertices of the buckets above it, up to d_max, are lifted to n (with
    `parallel_gap`, the buckets in parallel by Alvino's Algorithm 14, with the same outcome).
    Counts the gap and the vertices lifted."""
    counters[GAPS] += 1
    if parallel_gap:
        counters[GAP_VERTICES] += parallel_gap_relabel(first_inactive, b_next, label, empty,
                                                       d_max)
        return
    for level in range(empty + 1, d_max + 1):
        counters[GAP_VERTICES] += lift_bucket(first_inactive, b_next, label, level)


@numba.njit(cache=True, inline="always")
def _widened(a_min, a_max, d_max, level):
    """aMin, aMax and dMax once a vertex at `level` is active (above aMax: i was relabeled
    above it)."""
    if level > a_max:
        return min(a_min, level), level, max(d_max, level)
    return min(a_min, level), a_max, d_max


@numba.njit(cache=True, nogil=True)
def _stage_one(first, head, rev, res, excess, label, current, first_active, first_inactive,
               b_next, b_prev, source, sink, frequency, alpha, beta, stop_at_global_update,
               counters, parallel_gap, gaps_above, seeded_from, work_budget, update_first,
               stop, push_budget):
    """hi_pr's stageOne() on unsigned views (see hipr_stage_one): the buckets, by a global
    update or from the labels given, then the discharges."""
    if update_first:
        a_max, a_min, d_max = _global_update(first, head, rev, res, excess, label, current,
                                             sink, seeded_from, first_active, first_inactive,
                                             b_next, b_prev, counters)
    else:
        a_max, a_min, d_max = _build_buckets(label, excess, source, sink, first_active,
                                             first_inactive, b_next, b_prev)
    threshold = alpha * label.shape[0] + head.shape[0] // 2  # alpha * n + m
    return _discharges(first, head, rev, res, excess, label, current, first_active,
                       first_inactive, b_next, b_prev, sink, frequency, beta, threshold,
                       stop_at_global_update, counters, parallel_gap, gaps_above, seeded_from,
                       work_budget, stop, push_budget, a_max, a_min, d_max)


@numba.njit(cache=True)
def _discharges(first, head, rev, res, excess, label, current, first_active, first_inactive,
                b_next, b_prev, sink, frequency, beta, threshold, stop_at_global_update,
                counters, parallel_gap, gaps_above, seeded_from, work_budget, stop, push_budget,
                a_max, a_min, d_max):
    """hi_pr's stageOne() loop, discharge() written out: the highest active vertex's in turn."""
    n = label.shape[0]
    work = pushes = 0  # pushes counted here, stored on the way out
    while a_max >= a_min:
        if stop[0] or pushes > push_budget:
            stop[0] = 1
            counters[PUSHES] += pushes
            return STOPPED
        i = first_active[a_max]
        if i == n:
            a_max -= 1
            continue
        first_active[a_max] = b_next[i]
        # discharge(i): push along admissible arcs (to a label one lower) from i's current arc
        # on; with none left, relabel i (a gap if its bucket emptied), until i has no excess
        while True:
            d = label[i]
            j_label = d - 1
            left = excess[i]  # i's excess in a register: j != i (its label is d - 1)
            for a in range(current[i], first[i + 1]):
                if res[a] > 0:
                    j = head[a]
                    if label[j] == j_label:
                        pushes += 1
                        delta = min(res[a], left)
                        res[a] -= delta
                        res[rev[a]] += delta
                        if j != sink and excess[j] == 0:
                            # hi_pr's iDelete (a list's first has b_prev n), then aAdd
                            nxt, prv = b_next[j], b_prev[j]
                            if first_inactive[j_label] == j:
                                first_inactive[j_label] = nxt
                            else:
                                b_next[prv] = nxt
                            b_prev[nxt] = prv
                            _add_active(j, j_label, first_active, b_next)
                            a_min, a_max, d_max = _widened(a_min, a_max, d_max, j_label)
                        excess[j] += delta
                        left -= delta
                        if left == 0:
                            break
            excess[i] = left
            if left == 0:
                current[i] = a
                _add_inactive(i, d, first_inactive, b_next, b_prev)
                break
            counters[RELABELS] += 1
            work += beta + np.int64(first[i + 1] - first[i])  # hi_pr: BETA, plus 1 per arc
            label[i] = n  # as in hi_pr, so that a self-loop never counts
            new_label, new_current = _relabel(i, first, head, res, label)
            if new_label == n:
                break
            label[i], current[i] = new_label, new_current
            d_max = max(d_max, new_label)
            if d > gaps_above and first_active[d] == n and first_inactive[d] == n:
                _gap(d, d_max, first_inactive, b_next, label, parallel_gap, counters)
                d_max = a_max = d - 1
                if label[i] == n:
                    break
        if a_max >= a_min and work * frequency > threshold:
            counters[WORK] += work
            work = 0
            if stop_at_global_update or 0 <= work_budget <= counters[WORK]:
                counters[PUSHES] += pushes
                return STOPPED_AT_GLOBAL_UPDATE
            a_max, a_min, d_max = _global_update(first, head, rev, res, excess, label, current,
                                                 sink, seeded_from, first_active,
                                                 first_inactive, b_next, b_prev, counters)
    counters[WORK] += work
    counters[PUSHES] += pushes
    return DONE


def hipr_stage_one(first, head, rev, res, excess, label, source, sink, frequency, alpha, beta,
                   stop_at_global_update, counters, parallel_gap=False, gaps_above=0,
                   seeded_from=-1, work_budget=-1, update_first=False, stop=None, work=None,
                   push_budget=NO_PUSH_BUDGET):
    """hi_pr's stageOne() main loop on the given valid preflow state.

    Starts from the labels it is given (buckets are rebuilt from them). Returns DONE when no
    vertex with a label below n is active, or STOPPED_AT_GLOBAL_UPDATE when
    `stop_at_global_update` is set and hi_pr would now run a global update (the hybrids take
    over there). `counters` accumulates (see COUNTER_NAMES). With `parallel_gap`, gaps are
    relabeled by Alvino's Algorithm 14 (the buckets above the gap in parallel), with the same
    outcome as hi_pr's sequential gap. Gaps are relabeled only at levels above `gaps_above`:
    a vertex above an empty level reaches neither the sink nor a vertex of a label below it
    (labels drop by at most one an arc), so where a part of a network split over processes
    (the `mpi` solver) has its ghosts' labels up to `gaps_above`, a gap above that cuts off
    the vertices above it, and one below proves nothing (a part sees only some vertices of a
    level). With `seeded_from` (>= 0), the vertices from
    there on are fixed: never discharged nor relabeled (their excess must stay below 0), and
    each global update starts its BFS from them at their labels as well as from the sink (an
    `mpi` part's ghosts, at their owners' labels). With `work_budget` (>= 0), it also stops
    (STOPPED_AT_GLOBAL_UPDATE) at a global update once counters[WORK] has reached it. With
    `update_first`, it starts with a global update (hi_pr's INIT_UPDATE) rather than from the
    labels it is given. With `stop` (a flag array), it returns STOPPED before the next
    discharge once stop[0] is set, and sets it itself once its pushes pass `push_budget`
    (a relay's helper giving up: race.Race). `work`: the current arcs and buckets
    (hipr_workspace's), made here where not given.

    hi_pr's discharge() is written out in _stage_one's loop, and so are its stores to the
    buckets: Numba inlines a function by binding its array arguments anew, and the reference
    counting of those bindings (atomic, a dozen per discharge) is not pruned in a function that
    size; called, not inlined, it is slower still. Vertex numbers, arc numbers and labels go in
    as unsigned views: Numba guards every access through a signed index against negative indices
    (a compare and a select on the length of the array; the README's "Measurements behind the
    code" says what it cost); through an unsigned one it does not. The work arrays (current
    arcs, buckets) are made here and passed in, because Numba prunes the reference counting
    around the helpers inlined in _stage_one for the arrays it is given, not for arrays it makes
    itself. This function is plain Python, and it passes every argument to _stage_one in
    order: Numba's dispatcher binds left-out defaults and keywords on a slow path of its own
    (the README's "Measurements behind the code").
    """
    n = label.shape[0]
    first = index_view(first)
    current, first_active, first_inactive, b_next, b_prev = work or _work_arrays(n, first.dtype)
    current[:] = first[:n]
    return _stage_one(first, index_view(head), index_view(rev), res, excess,
                      index_view(label), current, first_active, first_inactive, b_next,
                      b_prev, source, sink, frequency, alpha, beta, stop_at_global_update,
                      counters, parallel_gap, gaps_above, n if seeded_from < 0 else seeded_from,
                      work_budget, update_first, np.zeros(1, np.uint8) if stop is None else stop,
                      push_budget)


@numba.njit(cache=True)
def _return_excess(i, first, head, rev, res, cap, excess):
    """Send i's excess back along arcs that carry flow into i (hi_pr stageTwo)."""
    a = first[i]
    stop = first[i + 1]
    while excess[i] > 0 and a < stop:
        if cap[a] == 0 and res[a] > 0:
            delta = min(res[a], excess[i])
            res[a] -= delta
            res[rev[a]] += delta
            excess[i] -= delta
            excess[head[a]] += delta
        a += 1


WHITE, GREY, BLACK = 0, 1, 2  # stage 2's DFS: not reached, on the DFS path, scanned


@numba.njit(cache=True)
def _cancel_cycle(i, j, a, head, rev, res, current, color):
    """A flow cycle of hi_pr's stageTwo(): arc a from the DFS's vertex i reaches j on its path,
    whose current arcs lead back to i. Cancel the cycle's smallest flow, and return where to
    back the DFS up to: the tail of the first saturated arc of the cycle (i where none is)."""
    delta = res[a]  # find the cycle's smallest flow
    while True:
        delta = min(delta, res[current[j]])
        if j == i:
            break
        j = head[current[j]]
    j = i  # cancel it
    while True:
        b = current[j]
        res[b] -= delta
        res[rev[b]] += delta
        j = head[b]
        if j == i:
            break
    restart = i  # back the DFS up to the first saturated arc of the cycle
    j = head[current[i]]
    while j != i:
        b = current[j]
        if color[j] == WHITE or res[b] == 0:
            color[head[current[j]]] = WHITE
            if color[j] != WHITE:
                restart = j
        j = head[b]
    return restart


@numba.njit(cache=True, nogil=True)
def hipr_stage_two(first, head, rev, res, cap, excess, source, sink):
    """hi_pr's stageTwo(): turn a maximum preflow into a maximum flow.

    DFS in the reverse flow graph from the vertices with excess, cancelling flow cycles and
    ordering the vertices topologically, then return the excesses in that order.
    """
    n = excess.shape[0]
    for i in range(n):  # self-loops carry nothing
        for a in range(first[i], first[i + 1]):
            if head[a] == i:
                res[a] = cap[a]
    color = np.zeros(n, np.int8)
    parent = np.full(n, -1, np.int32)
    next_in_order = np.full(n, -1, np.int32)
    current = first[:n].copy()
    top = np.int64(-1)  # not a literal, which would compile _return_excess once more
    bottom = np.int64(-1)
    for root in range(n):
        if color[root] != WHITE or excess[root] <= 0 or root == source or root == sink:
            continue
        i = root
        color[i] = GREY
        while True:
            while current[i] != first[i + 1]:
                a = current[i]
                if cap[a] == 0 and res[a] > 0:
                    j = head[a]
                    if color[j] == WHITE:  # start scanning j
                        color[j] = GREY
                        parent[j] = i
                        i = j
                        break
                    if color[j] == GREY:  # a flow cycle
                        restart = _cancel_cycle(i, j, a, head, rev, res, current, color)
                        if restart != i:
                            i = restart
                            current[i] += 1
                            break
                current[i] += 1
            if current[i] == first[i + 1]:
                # scan of i complete
                color[i] = BLACK
                if i != source:
                    if bottom == -1:
                        bottom = i
                    else:
                        next_in_order[i] = top
                    top = i
                if i != root:
                    i = parent[i]
                    current[i] += 1
                else:
                    break
    if bottom != -1:
        i = top
        while i != bottom:
            _return_excess(i, first, head, rev, res, cap, excess)
            i = next_in_order[i]
        _return_excess(bottom, first, head, rev, res, cap, excess)


def _work_arrays(n: int, arc_type) -> tuple:
    """Current arcs (n, `arc_type`s: those of index_view(first)) and buckets: first active,
    first inactive (by label), next and previous vertex (n + 1 each)."""
    return (np.empty(n, arc_type),) + tuple(np.empty(n + 1, np.uint32) for _ in range(4))


def hipr_workspace(graph: ResidualGraph) -> tuple:
    """What hi_pr allocates before its clock starts: hipr_preflow's excesses, labels,
    current arcs and buckets. The per-vertex ones are written once here, as hi_pr's parser
    writes its nodes (a fresh allocation's pages come in at their first write, the kernel's
    faults, which would otherwise fall in the stage 1 of a process's first solve); the
    buckets' heads are not, as allocDS's are first written by init(), on hi_pr's clock."""
    excess = np.empty(graph.n, np.int64)
    label = np.empty(graph.n, np.int32)
    work = _work_arrays(graph.n, index_view(graph.first).dtype)
    current, _, _, b_next, b_prev = work
    memory.touch((excess, label, current, b_next, b_prev))
    return excess, label, work


def push_budget(budget) -> int:
    """The pushes a helper of a relay makes before it gives up: SolveOptions.budget's, or
    NO_PUSH_BUDGET where there is none (None, or below 0)."""
    return NO_PUSH_BUDGET if budget is None or budget[0] < 0 else int(budget[0])


def hipr_preflow(graph: ResidualGraph, res: np.ndarray, params: dict, stop=None,
                 workspace=None, exact_labels: bool = False,
                 budget=None) -> tuple[np.ndarray, dict]:
    """hi_pr's init() and stage 1 on `graph`, `res` updated in place (hipr, hipr-forward);
    with `exact_labels` or params["initial_update"] 1, the labels start as the distances to
    the sink instead of hi_pr's 1: a global update before the first discharge, as hi_pr
    compiled with INIT_UPDATE does; `stop` as hipr_stage_one's; `workspace`:
    hipr_workspace(graph)'s arrays, made here where not given; `budget`: SolveOptions.budget
    (the pushes after which it gives up, setting stop[0]). Returns the excesses and the
    counters."""
    excess, label, work = workspace or hipr_workspace(graph)
    counters = np.zeros(len(COUNTER_NAMES), np.int64)
    arrays = (graph.first, graph.head, graph.rev)
    hipr_initialize(*arrays, res, excess, label, graph.source, graph.sink)
    hipr_stage_one(*arrays, res, excess, label, graph.source, graph.sink,
                   params["global_update_frequency"], params["alpha"], params["beta"], False,
                   counters, update_first=exact_labels or params.get("initial_update", 0) == 1,
                   stop=stop, work=work, push_budget=push_budget(budget))
    return excess, dict(zip(COUNTER_NAMES, counters.tolist()))


def timed_stage_two(graph: ResidualGraph, res: np.ndarray, excess: np.ndarray,
                    times: dict) -> None:
    """hi_pr's stage 2 on a stage-1 preflow of `graph`, its seconds into times["stage2"]."""
    timed(times, "stage2", hipr_stage_two, graph.first, graph.head, graph.rev, res, graph.cap,
          excess, graph.source, graph.sink)


def answer_from_preflow(name: str, graph: ResidualGraph, res: np.ndarray, excess: np.ndarray,
                        counters: dict, times: dict, options) -> SolveResult:
    """The answer of a maximum preflow `res` of `graph` (the flow value at the sink's excess),
    hi_pr's stage 2 run first when a flow is asked for (unless options.stop was set: the
    answer is then dropped)."""
    flow_value = int(excess[graph.sink])
    if options.want_flow and not (options.stop is not None and options.stop[0]):
        timed_stage_two(graph, res, excess, times)
    return SolveResult(name, flow_value, res, options.want_flow, times, counters)


def solve_by_preflow(name: str, preflow, graph: ResidualGraph, options,
                     setup=None) -> SolveResult:
    """A solver whose stage 1 is ``preflow(graph, res, params, stop)`` -> (excess, counters):
    a maximum preflow in fresh residuals, timed; then answer_from_preflow. With `setup`,
    ``setup(graph)`` is timed before it (the `setup` phase) and its value is the
    preflow's fifth argument."""
    res = graph.initial_residuals()
    times = {}
    ready = () if setup is None else (timed(times, "setup", setup, graph),)
    excess, counters = timed(times, "stage1", preflow, graph, res, options.params, options.stop,
                             *ready)
    return answer_from_preflow(name, graph, res, excess, counters, times, options)
