"""OpenMP-style parallel pieces shared by the solvers (Alvino 2015, §4.1.4-4.1.5), in Numba.

Numba runs each ``prange`` loop on its threading layer (OpenMP where available). A thread
that produces vertices writes them to its own stretch of a scratch buffer, bounded by the
out-degrees of the vertices it reads (each yields at most one vertex per arc). lockfree's
passes merge those local lists into one by a prefix sum over their sizes (Alvino's "local
frontiers merged by a parallel prefix sum"); the BFS hands each list's vertices to their
owners instead.

- ``parallel_reverse_bfs``: Algorithm 13, level-synchronous reverse BFS from the sink,
  each vertex labelled by the one thread that owns its block of labels, one barrier a level;
- ``parallel_global_relabel``: He & Hong 2010, Program 4 on those pieces (violation
  cancellation, the BFS, stranded excess out of ExcessTotal), the parallel twin of
  ``relabel.global_relabel_cpu``, and the list of active vertices it leaves;
- ``parallel_gap_relabel``: Algorithm 14, on hi_pr's buckets;
- ``gather``, ``barrier``, ``wait_until``: how the threads of one prange loop meet.

A prange loop's index is an int64 where Numba types the function and a uint64 in the parallel
body it compiles from it, so each compiled function the index is passed to would be compiled
twice, once per type: the loops pass ``np.int64(index)`` instead. Likewise an integer constant
passed to a compiled function, or a variable's first value when a loop changes it, is typed as
its literal value and compiles the function once more: those are written ``np.int64(value)``.
"""

import contextlib
import glob
import os
import time

import numba
import numpy as np
from numba import prange

from maxflow_cli.atomics import (
    acquire_fence,
    atomic_add,
    atomic_cas,
    atomic_load,
    atomic_store,
    yield_thread,
)
from maxflow_cli.pushrelabel.relabel import lift_bucket
from maxflow_cli.steps import cancel_at, reverse_bfs

ALLOWED_CPUS = len(os.sched_getaffinity(0))
"""The CPUs this process may use, read at import: an OpenMP runtime told to bind its threads
(OMP_PROC_BIND) pins the calling thread to one CPU at its first parallel loop, after which that
thread's affinity says 1."""

LOOKS = 5
"""How many times runnable_elsewhere looks, a millisecond apart: a task that runs for a moment
(a kernel worker, a shell) is not a competing job."""


def runnable_elsewhere() -> int:
    """Threads of other processes that kept running or waiting for a CPU over LOOKS looks:
    the fewest of /proc/loadavg's count of runnable tasks less this process's own (its
    /proc/self/task in state R); 0 where /proc does not say."""
    fewest = None
    for look in range(LOOKS):
        if look:
            time.sleep(0.001)
        try:
            with open("/proc/loadavg") as loadavg:
                runnable = int(loadavg.read().split()[3].split("/")[0])
        except (OSError, ValueError, IndexError):
            return 0
        own = 0
        for path in glob.glob("/proc/self/task/*/stat"):
            try:
                with open(path) as stat:
                    own += stat.read().rpartition(")")[2].split()[0] == "R"
            except (OSError, IndexError):
                continue
        fewest = runnable - own if fewest is None else min(fewest, runnable - own)
    return max(0, fewest)


def free_cpus() -> int:
    """The CPUs this process may use (its affinity) that other work leaves free now, at least 1
    and at most NUMBA_NUM_THREADS: the default team. Barrier-synchronised threads outnumbering
    the free cores wait a time slice at a barrier whenever one of them is descheduled (the
    README's "Measurements behind the code" says how much that costs)."""
    most = min(numba.config.NUMBA_NUM_THREADS, ALLOWED_CPUS)
    return 1 if most == 1 else max(1, min(most, ALLOWED_CPUS - runnable_elsewhere()))


@contextlib.contextmanager
def threads_in_use(count: int):
    """Run the parallel loops inside on `count` threads (numba.set_num_threads), which
    the registry's THREADS_PARAMETER keeps within 0..NUMBA_NUM_THREADS; 0 (the default): on
    the CPUs free when the solve starts (free_cpus). Yields the count."""
    previous = numba.get_num_threads()
    count = count or free_cpus()
    numba.set_num_threads(count)
    try:
        yield count
    finally:
        numba.set_num_threads(previous)


class Workspace:
    """The scratch arrays of the parallel pieces for one graph, allocated once per solve."""

    def __init__(self, graph):
        n, arcs = graph.n, graph.head.shape[0]
        self.order = np.empty(n, np.int32)  # BFS order, then the frontier lists
        self.claimed = np.empty(n, np.int32)  # the vertices each BFS thread claimed
        self.buffer = np.empty(arcs + 1, np.int32)  # the local lists (see the module's doc)
        self.active = np.empty(n, np.int32)
        self.marked = np.zeros(n, np.bool_)


@numba.njit(cache=True)
def chunk(start, size, parts, part):
    """The bounds of `part` among `parts` near-equal chunks of start .. start+size-1."""
    return start + size * part // parts, start + size * (part + 1) // parts


ABORTED = -1
SPINS_TO_GATHER = 1 << 20  # about a second: the threads did not all start together
SPINS_BEFORE_YIELDING = 1 << 16  # some tens of microseconds: longer than a BFS level's wait


@numba.njit(cache=True)
def gather(sync, threads):
    """Alvino's loops keep one OpenMP team for a whole BFS; here the `threads` iterations of one
    prange must run at once, each on its own thread, for `collect` (and `barrier`)
    to be safe (a thread that raised inside would leave the others waiting there). Each
    arrives here first: True once all have arrived; False, for every one of them, if they did not
    within SPINS_TO_GATHER spins (a threading layer that ran two iterations on one thread):
    the caller then falls back to sequential code. sync[0] counts arrivals or is ABORTED;
    both `threads` and ABORTED are final, so all iterations decide alike."""
    while True:
        seen = atomic_load(sync, 0)
        if seen == ABORTED:
            return False
        if atomic_cas(sync, 0, seen, seen + 1) == seen:
            break
    spins = 0
    while True:
        seen = atomic_load(sync, 0)
        if seen == threads:
            return True
        if seen == ABORTED:
            return False
        spins += 1
        if spins > SPINS_BEFORE_YIELDING:
            yield_thread()
        if spins > SPINS_TO_GATHER and atomic_cas(sync, 0, seen, ABORTED) == seen:
            return False


@numba.njit(cache=True)
def wait_until(words, index, value):
    """Spin until words[index] reaches value (yielding the processor after a while); what
    the writer wrote before it is then visible."""
    spins = 0
    while atomic_load(words, index) < value:
        spins += 1
        if spins > SPINS_BEFORE_YIELDING:
            yield_thread()
    acquire_fence()


@numba.njit(cache=True)
def barrier(sync, threads):
    """A spinning barrier for the gathered threads (sync[1]: arrivals, sync[2]: generation;
    sync[3] is left for a result)."""
    generation = atomic_load(sync, 2)
    if atomic_add(sync, 1, 1) == threads - 1:
        atomic_store(sync, 1, 0)
        atomic_add(sync, 2, 1)
    else:
        wait_until(sync, np.int64(2), generation + 1)  # see the module's note on literals


LINE = 16  # int64s between two threads' words: a cache line (and its pair) each
OWNER_SHIFT = 4  # a block of 1 << OWNER_SHIFT int32 labels (a cache line) has one owner
OWNER_CYCLE = 1024  # blocks (a power of 2); block b belongs to thread (b % OWNER_CYCLE) % threads


@numba.njit(cache=True)
def label_skew(label):
    """Where label[0] sits in its block of memory (see OWNER_SHIFT), in labels. NumPy aligns
    large arrays to 16 bytes only, so vertex v's label is in the array's block
    (v + skew) >> OWNER_SHIFT: owning those blocks keeps every cache line of labels to one
    writer."""
    return (label.ctypes.data >> 2) & ((1 << OWNER_SHIFT) - 1)


@numba.njit(cache=True)
def block_of(v, skew):
    """The block of labels (counted from label[0]'s) holding vertex v's; see label_skew."""
    return (v + skew) >> OWNER_SHIFT


@numba.njit(cache=True)
def owned(n, skew, threads, t):
    """How many of the vertices 0 .. n-1 thread t owns (see OWNER_CYCLE and label_skew)."""
    width = 1 << OWNER_SHIFT
    blocks = block_of(n - 1, skew) + 1
    cycles, rest = divmod(blocks, OWNER_CYCLE)
    count = cycles * (OWNER_CYCLE // threads + (t < OWNER_CYCLE % threads))
    count += rest // threads + (t < rest % threads)
    count *= width
    if t == 0:  # block 0 (thread 0's) begins at label[-skew]
        count -= skew
    if ((blocks - 1) % OWNER_CYCLE) % threads == t:
        count -= blocks * width - skew - n
    return count


@numba.njit(cache=True)
def unlabel_owned(first, label, skew, threads, t):
    """Thread t's share of the BFS set-up: the labels of its vertices set to n (so that their
    blocks start in its cache), and their total out-degree returned: an upper bound on what its
    scans of them can ever hand over, so the size of its stretch of the scratch buffer."""
    n = label.shape[0]
    width = 1 << OWNER_SHIFT
    blocks = block_of(n - 1, skew) + 1
    total = 0
    for cycle in range(0, blocks, OWNER_CYCLE):
        for block in range(cycle + t, min(blocks, cycle + OWNER_CYCLE), threads):
            start = max(0, block * width - skew)
            end = min(n, (block + 1) * width - skew)
            label[start:end] = n
            total += first[end] - first[start]
    return total


@numba.njit(cache=True)
def mark_open_arcs(res, bits, lo, hi):
    """Words lo .. hi-1 of the bitmap of residual arcs: bit a % 64 of bits[a // 64] is set
    where res[a] > 0. The BFS reads the residual of an arc's reverse, anywhere in the graph;
    from this bitmap (a sixty-fourth of res, so mostly in cache) rather than from res (in
    main memory), it costs far less."""
    arcs = res.shape[0]
    for word in range(lo, hi):
        value = 0
        start = word * 64
        for b in range(min(64, arcs - start)):
            value |= np.int64(res[start + b] > 0) << b
        bits[word] = value


LONG_LIST = 64  # arcs from which a scan tests the tails' labels itself (see hand_over)


@numba.njit(cache=True)
def hand_over(first, head, rev, bits, label, skew, claimed, lo, hi, owner, local, counts,
              buffer, write, bounds):
    """Alvino 2015, Algorithm 13 lines 7-8 for one thread: scan the arcs of the frontier
    vertices claimed[lo:hi] and hand the tails of residual arcs into them (`bits`, see
    mark_open_arcs) to their owners, who test line 9 (unlabelled?) on their own labels.
    On a short list the scan leaves that test to them: reading a label here would fetch a
    cache line its owner may be writing, for a few arcs. On a list of LONG_LIST arcs or more
    (dense graphs) most tails are labelled already and the scan skips them first, as the
    sequential BFS does, or the owners would read them all again from the other threads.
    buffer[write:] receives the tails grouped by owner, owner k's group from bounds[k] to
    bounds[k + 1]. `local` must hold at least the frontier's out-degree (the thread's total
    out-degree suffices); `counts` is scratch."""
    n = label.shape[0]
    threads = counts.shape[0]
    counts[:] = 0
    found = 0
    for i in range(lo, hi):
        u = claimed[i]
        if first[u + 1] - first[u] >= LONG_LIST:
            for a in range(first[u], first[u + 1]):
                v = head[a]
                r = rev[a]
                if atomic_load(label, v) == n and (bits[r >> 6] >> (r & 63)) & 1:
                    local[found] = v
                    found += 1
            continue
        for a in range(first[u], first[u + 1]):
            local[found] = head[a]
            r = rev[a]
            found += (bits[r >> 6] >> (r & 63)) & 1  # no branch: the loads overlap
    for i in range(found):
        counts[owner[block_of(local[i], skew) & (OWNER_CYCLE - 1)]] += 1
    bounds[0] = write
    for k in range(threads):
        bounds[k + 1] = bounds[k] + counts[k]
        counts[k] = bounds[k]
    for i in range(found):
        v = local[i]
        k = owner[block_of(v, skew) & (OWNER_CYCLE - 1)]
        buffer[counts[k]] = v
        counts[k] += 1


STEP, SIZE, BOUNDS = 0, 1, 2  # a thread's row of `rows` (see publish)


@numba.njit(cache=True)
def row_width(threads):
    """The int64s of one row of `rows`: STEP, SIZE and threads + 1 BOUNDS, in whole LINEs."""
    return (BOUNDS + threads + 1 + LINE - 1) // LINE * LINE


@numba.njit(cache=True)
def row_of(threads, step, t):
    """Where thread t's row for `step` begins: two rows a thread, used by turns."""
    return ((step % 2) * threads + t) * row_width(threads)


@numba.njit(cache=True)
def publish(rows, threads, step, t):
    """Thread t's row for `step` is written: make it visible (a sequentially consistent add,
    so everything written before it is visible with it) by setting its STEP to step + 1."""
    at = row_of(threads, step, t)
    atomic_add(rows, at + STEP, step + 1 - rows[at + STEP])


@numba.njit(cache=True)
def collect(rows, threads, step):
    """Wait until every thread published its row for `step` (so it has also finished reading
    the rows of step - 1, whose places the rows of step + 1 take): a barrier whose arrival
    brings each thread's data along, in the same cache lines."""
    for k in range(threads):
        wait_until(rows, row_of(threads, step, k) + STEP, step + 1)


@numba.njit(cache=True)
def _set_up_thread(first, res, label, skew, bits, rows, threads, t):
    """Thread t's step 0 of the BFS: its labels set to n, its share of the bitmap of residual
    arcs marked, the size of its stretch of the buffer published; then, once every thread's
    is, where its stretches of `claimed` and of the buffer begin."""
    n = label.shape[0]
    step = np.int64(0)  # see the module's note on literals
    mine = row_of(threads, step, t)
    rows[mine + SIZE] = unlabel_owned(first, label, skew, threads, t)
    mark_open_arcs(res, bits, *chunk(0, bits.shape[0], threads, t))
    publish(rows, threads, step, t)
    collect(rows, threads, step)
    base = 0
    write = 0
    for k in range(t):
        base += owned(n, skew, threads, k)
        write += rows[row_of(threads, step, k) + SIZE]
    return base, write


@numba.njit(cache=True)
def _scan_and_publish(first, head, rev, bits, label, skew, claimed, frontier, claims, owner,
                      local, counts, buffer, write, rows, threads, step, t):
    """Thread t's step `step`: the size of its new frontier claimed[frontier:][:claims], and
    what its scan hands to each owner (hand_over, into buffer[write:]), published. Returns
    where its next scan writes."""
    mine = row_of(threads, step, t)
    rows[mine + SIZE] = claims
    bounds = rows[mine + BOUNDS:mine + BOUNDS + threads + 1]
    hand_over(first, head, rev, bits, label, skew, claimed, frontier, frontier + claims, owner,
              local, counts, buffer, write, bounds)
    write = bounds[threads]
    publish(rows, threads, step, t)
    return write


@numba.njit(cache=True)
def _read_level(rows, threads, step, t, handed):
    """After collecting `step`: the size of that level's whole frontier, how much of it the
    threads before t hold, and in `handed` where each thread's hand-over to t lies (thread
    k's from handed[k] to handed[threads + k])."""
    size = 0
    before = 0
    for k in range(threads):
        theirs = row_of(threads, step, k)
        size += rows[theirs + SIZE]
        if k < t:
            before += rows[theirs + SIZE]
        handed[k] = rows[theirs + BOUNDS + t]
        handed[threads + k] = rows[theirs + BOUNDS + t + 1]
    return size, before


@numba.njit(cache=True)
def _claim_handed(buffer, handed, label, claimed, frontier, level):
    """Label `level` the unlabelled vertices handed to this thread, claiming them at
    claimed[frontier:]; returns how many it claimed."""
    n = label.shape[0]
    threads = handed.shape[0] // 2
    claims = 0
    for k in range(threads):
        for j in range(handed[k], handed[threads + k]):
            v = buffer[j]
            if label[v] == n:  # only this thread writes it
                atomic_store(label, v, level)  # long-list scans read it (relaxed)
                claimed[frontier + claims] = v
                claims += 1
    return claims


@numba.njit(parallel=True, cache=True)
def _bfs_levels(first, head, rev, res, sink, label, order, claimed, buffer, threads):
    """The levels of Algorithm 13 with every label written by one thread only: vertex v
    belongs to thread owner[block_of(v, skew) % OWNER_CYCLE], so a cache line of labels has
    one writer. Thread t keeps the vertices it claims, in order, in its own stretch of
    `claimed` (its level-L frontier a slice of it) and what it hands over in its own stretch
    of `buffer` (the total out-degree of its vertices: each vertex is scanned once).

    The threads meet once a level, through `rows` (see collect): step 0 publishes the size of
    each thread's stretch of the buffer (and the bitmap of residual arcs is complete: each
    thread marks its share first); step L + 1 the SIZE of its level-L frontier and the
    BOUNDS of what its scan of that frontier handed to each owner. After collecting step
    L + 1, each thread copies its level-L frontier into `order` (prefix sum of the sizes),
    labels the unlabelled vertices handed to it, with plain loads and stores, as its level
    L + 1 frontier, scans that at once and publishes step L + 2. Returns how many vertices
    were reached, or ABORTED where the threads could not be gathered."""
    owner = np.empty(OWNER_CYCLE, np.int64)
    for block in range(OWNER_CYCLE):
        owner[block] = block % threads
    sync = np.zeros(4, np.int64)
    rows = np.zeros(2 * threads * row_width(threads), np.int64)
    bits = np.empty((res.shape[0] + 63) // 64, np.int64)
    skew = label_skew(label)
    for worker in prange(threads):
        t = np.int64(worker)  # see the module's note on prange indices
        if not gather(sync, threads):
            continue
        frontier, write = _set_up_thread(first, res, label, skew, bits, rows, threads, t)
        # any level's scan fits in the stretch of step 0
        local = np.empty(rows[row_of(threads, np.int64(0), t) + SIZE] + 1, np.int32)
        counts = np.zeros(threads, np.int64)
        handed = np.empty(2 * threads, np.int64)
        claims = 0
        if owner[block_of(sink, skew) & (OWNER_CYCLE - 1)] == t:
            label[sink] = 0
            claimed[frontier] = sink
            claims = 1
        step = np.int64(1)  # level step - 1 (see the module's note on literals)
        write = _scan_and_publish(first, head, rev, bits, label, skew, claimed, frontier, claims,
                                  owner, local, counts, buffer, write, rows, threads, step, t)
        tail = 0
        while True:
            collect(rows, threads, step)
            size, before = _read_level(rows, threads, step, t, handed)
            if size == 0:
                break
            count = rows[row_of(threads, step, t) + SIZE]
            order[tail + before:tail + before + count] = claimed[frontier:frontier + count]
            tail += size
            frontier += count
            claims = _claim_handed(buffer, handed, label, claimed, frontier, step)
            step += 1
            write = _scan_and_publish(first, head, rev, bits, label, skew, claimed, frontier,
                                      claims, owner, local, counts, buffer, write, rows,
                                      threads, step, t)
        if t == 0:
            sync[3] = tail
    return ABORTED if sync[0] == ABORTED else sync[3]


@numba.njit(cache=True)
def parallel_reverse_bfs(first, head, rev, res, sink, label, order, claimed, buffer, threads):
    """Alvino 2015, Algorithm 13: exact distances to `sink` over residual arcs into `label`
    (n if unreachable), one BFS level at a time, split among `threads` threads that each own
    a share of the vertices (see _bfs_levels): each scans the arcs of the frontier vertices
    it owns, hands the tails to their owners, and labels those handed to it if unlabelled, so
    a vertex enters one frontier only and no label needs an atomic operation. `order`
    receives the reached vertices level by level (the sequential reverse_bfs's order where
    the threads could not be gathered, or for one thread, which the level machinery would only
    slow down); `claimed` (each thread's claimed vertices) and `buffer` (arcs + 1 entries)
    are scratch. Returns how many were reached."""
    if threads > 1:
        reached = _bfs_levels(first, head, rev, res, sink, label, order, claimed, buffer, threads)
        if reached != ABORTED:
            return reached
    return reverse_bfs(first, head, rev, res, sink, label, order)


@numba.njit(parallel=True, cache=True)
def parallel_cancel_violations(first, head, rev, res, excess, label, source):
    """The parallel twin of cancel_violations (He & Hong 2010, Program 4 lines 1-8, each
    tail pushing at most the excess it had before the pass), the vertices in parallel: only
    u's iteration touches the pair (u, v), (v, u) (both cannot violate) and lowers e(u).
    Returns the number of arcs pushed along."""
    budget = excess.copy()
    arcs = np.zeros(label.shape[0], np.int64)  # per vertex: no reduction over an inlined call
    for u in prange(label.shape[0]):
        arcs[u] = cancel_at(u, first, head, rev, res, excess, label, source, budget[u])
    return arcs.sum()


@numba.njit(parallel=True, cache=True)
def parallel_global_relabel(first, head, rev, res, excess, label, source, sink, marked, order,
                            claimed, buffer, active, threads):
    """He & Hong 2010, Program 4, with Alvino 2015's Algorithm 13 as its BFS: the parallel
    twin of relabel.global_relabel_cpu. Also lists the active vertices in `active`.
    Returns (arcs cancelled, excess newly stranded, active vertices)."""
    n = label.shape[0]
    cancelled = parallel_cancel_violations(first, head, rev, res, excess, label, source)
    reached = parallel_reverse_bfs(first, head, rev, res, sink, label, order, claimed,
                                   buffer, threads)
    label[source] = n
    stranded = 0  # relabel.strand_and_count's marking, as a parallel reduction
    for u in prange(n):
        if label[u] == n and not marked[u] and u != source and u != sink:
            marked[u] = True
            stranded += excess[u]
    parts = max(1, min(threads, reached))
    found = np.zeros(parts, np.int64)
    for worker in prange(parts):
        t = np.int64(worker)  # see the module's note on prange indices
        lo, hi = chunk(0, reached, parts, t)
        count = 0
        for i in range(lo, hi):
            u = order[i]
            if excess[u] > 0 and u != sink and u != source:
                buffer[lo + count] = u
                count += 1
        found[t] = count
    count = 0
    for t in range(parts):
        lo, _ = chunk(0, reached, parts, t)
        active[count:count + found[t]] = buffer[lo:lo + found[t]]
        count += found[t]
    return cancelled, stranded, count


@numba.njit(parallel=True)
def parallel_gap_relabel(first_inactive, b_next, label, empty, d_max):
    """Alvino 2015, Algorithm 14 on hi_pr's buckets: the buckets above the empty one, up to
    d_max, lifted in parallel (relabel.lift_bucket each). Returns how many vertices were
    lifted.

    Not in Numba's disk cache: highest_label._stage_one, which is, compiled with this loaded
    from the cache gave a cache entry that crashed the next process to load it (Numba 0.68).
    """
    lifted = 0
    for level in prange(empty + 1, d_max + 1):
        lifted += lift_bucket(first_inactive, b_next, label, level)
    return lifted
