"""One rank's share of the distributed push-relabel, in synchronous rounds.

Every rank holds its part (partition.Part): its own vertices with their arcs, and ghost
copies of the neighbouring ranks' vertices. A round is:

1. Local discharge: hi_pr's stage-one core (highest_label.hipr_stage_one, Goldberg &
   Cherkassky) on the part until none of its vertices is active, ghosts acting as sinks: a
   ghost's excess is held at INT64_MIN, so a push into it never makes it active, and it is
   never discharged. Its label is the one its owner sent last round (stale: the owner may
   have raised it since). Gaps count only above the highest ghost label (below it, a part
   sees only some vertices of a level); hi_pr's global updates run on the part, their BFS
   seeded by the sink and by the ghosts at their labels (a region discharge, as in Alvino
   §3.4: the part's labels are the distances to its border given the neighbours' labels).
   The discharge stops early where the part alone did the work after which hi_pr would run
   a global update on the whole network.
2. Border exchange (one Alltoallv): for every border pair, the flow pushed into the ghost this
   round and the label of the own endpoint. The receiver refreshes its ghost labels and
   accepts a push u->v of a neighbour iff d(v) <= d(u) + 1 with both ranks' labels as they
   are now; otherwise it refuses it, and a second Alltoallv sends the refused flow back to u.
3. An Allreduce of the active vertices (label below n, positive excess), of the work done
   since the last global relabel, and of the ranks that want one: none active ends stage 1;
   the next round starts with a global relabel where hi_pr would run a global update on the
   whole network (work * frequency > alpha * n + m), where a part stopped its discharge
   because it alone did that much work, or where the rounds since the last global relabel
   took longer than it did. The last rule bounds the time that stale labels waste: vertices
   cut off from the sink around a border are seen by no part's BFS as cut off, and their
   labels climb a level or two a round, flow going back and forth across the border; and a
   global relabel costs about one BFS of the whole network however many ranks there are,
   since the parts of a chain (the long families' levels and frames) run their BFS one
   after the other.

Why labels stay valid (d(x) <= d(y) + 1 on every residual arc x->y, d(sink) = 0), the
invariant that makes the result a maximum preflow. We chose synchronous rounds because
labels then only change inside step 1 and the exchange sees every rank's labels of the same
moment. Inside a part, hi_pr keeps validity towards ghosts: a ghost's true label is at least
its stale one (labels only grow), so a relabel computed against the stale one is valid against
the true one; its global updates give each own vertex its distance to the seeds (the sink
and the ghosts at their stale labels), which is valid for the same reason and, valid labels
being lower bounds of those distances, never lowers a label. Across the border, a residual
arc v->u can appear only through a push u->v by u's rank; it survives only if accepted, and
acceptance is exactly d(v) <= d(u) + 1. A refused push restores u->v, and refusal means
d(u) < d(v) - 1 <= d(v) + 1, so that arc is valid too. Every other border arc was residual all
round, and the labels computed on each side against the other's stale (lower) labels stay
valid. The global relabel sets exact distances.

Termination (no active vertex anywhere, no message in flight): both exchanges are collective
and complete before any rank goes on, so after step 2 every unit pushed into a ghost has been
added at its owner or given back; no flow exists outside the vertices' excesses. The
Allreduce of step 3 then counts every active vertex of every rank at one moment, and all ranks
receive the same sum and take the same decision. Zero means no vertex below label n holds
excess; with valid labels and d(source) = n, the source cannot reach the sink and no vertex
with excess can either: the preflow is maximum (its value is e(sink)), as in hi_pr's stage 1.
Rounds end: each round either pushes a unit of flow for good (accepted) or refuses it because
the receiver's label rose; labels are bounded by n, pushes by the generic push-relabel bound.

Labels: hi_pr's core takes the part's vertex count as its label bound, and a vertex at the
bound is done. A residual path from an own vertex to the sink leaves the part at a ghost (or
ends at the sink) after at most `owned` arcs, and a valid label is at most the distance, so a
label of the highest live ghost label + owned + 1 or more means cut off from the sink: the
part is padded with isolated vertices up to that bound (at most n), and its vertices at the
bound after the discharge get n.

The global relabel is a distributed reverse BFS from the sink, label-correcting: each rank
lowers the distances of its part from the seeds that dropped (the sink, then the ghosts whose
owners sent a lower distance), sends the distances of its border vertices, and repeats until
no ghost distance drops anywhere (an Allreduce); the iterations number about the times a
shortest path crosses a border, and a part's BFS work adds up to about one BFS.
"""

import resource
import time

import numba
import numpy as np

from maxflow_cli.pushrelabel.highest_label import (
    COUNTER_NAMES,
    PUSHES,
    RELABELS,
    STOPPED_AT_GLOBAL_UPDATE,
    WORK,
    hipr_stage_one,
)
from maxflow_cli.pushrelabel.relabel import saturate_source_arcs

from .partition import Part

GHOST_EXCESS = np.iinfo(np.int64).min  # never reaches 0: all flow is below 2^63


class Border:
    """The border pairs of a part and the Alltoallv that swaps one row of values per pair
    with the ranks on the other side; counts the bytes and messages sent."""

    def __init__(self, comm, part: Part):
        self.comm = comm
        self.counts = part.pair_counts
        self.offsets = np.concatenate([[0], np.cumsum(self.counts)[:-1]])
        self.arc = part.pair_arc
        self.ghost_arc = part.rev[part.pair_arc]
        tails = np.repeat(np.arange(part.size, dtype=np.int32), np.diff(part.first))
        self.vertex = tails[part.pair_arc]
        self.ghost = part.head[part.pair_arc]
        self.neighbours = int(np.count_nonzero(self.counts))
        self.bytes = 0
        self.messages = 0

    def swap(self, rows: np.ndarray) -> np.ndarray:
        """rows: int64[pairs, width]; returns what the other side sent for each pair."""
        from mpi4py import MPI

        width = rows.shape[1]
        received = np.empty_like(rows)
        layout = (self.counts * width, self.offsets * width)
        self.comm.Alltoallv([rows, layout, MPI.INT64_T], [received, layout, MPI.INT64_T])
        self.bytes += rows.nbytes
        self.messages += self.neighbours
        return received


@numba.njit(cache=True)
def receive_pushes(arc, ghost_arc, vertex, pushed, their_label, res, excess, label, refused):
    """Step 2 on the receiving side: accept each pair's incoming push where d(v) <= d(u) + 1
    (both arcs of the pair and e(v) updated), refuse it otherwise (into `refused`)."""
    for k in range(arc.shape[0]):
        delta = pushed[k]
        refused[k] = 0
        if delta > 0:
            v = vertex[k]
            if label[v] <= their_label[k] + 1:
                res[arc[k]] += delta
                res[ghost_arc[k]] -= delta
                excess[v] += delta
            else:
                refused[k] = delta


@numba.njit(cache=True)
def take_back(arc, ghost_arc, vertex, returned, res, excess):
    """Undo the pushes the other side refused."""
    for k in range(arc.shape[0]):
        delta = returned[k]
        if delta > 0:
            res[arc[k]] += delta
            res[ghost_arc[k]] -= delta
            excess[vertex[k]] += delta


@numba.njit(cache=True)
def bfs_from_seeds(first, head, rev, res, dist, seeds, owned, source, order):
    """Lower the distances to the sink of the own vertices (0..owned-1) along residual arcs
    from `seeds`, whose distances in `dist` have just dropped (in order of distance): a BFS
    whose queue is merged with the seeds in order of distance (unit weights), so that in one
    call each vertex is lowered at most once. The source is never labelled."""
    taken = 0
    pos = 0
    tail = 0
    while pos < tail or taken < seeds.shape[0]:
        if pos < tail and (taken == seeds.shape[0] or dist[order[pos]] <= dist[seeds[taken]]):
            x = order[pos]
            pos += 1
        else:
            x = seeds[taken]
            taken += 1
        d = dist[x] + 1
        for a in range(first[x], first[x + 1]):
            w = head[a]
            if w < owned and w != source and dist[w] > d and res[rev[a]] > 0:
                dist[w] = d
                order[tail] = w
                tail += 1


def peak_memory() -> int:
    """This process's peak resident memory in bytes."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class RankSolver:
    """Stage 1 on one rank's part (see the module docstring)."""

    def __init__(self, comm, part: Part, params: dict):
        self.comm = comm
        self.part = part
        self.params = params
        self.border = Border(comm, part)
        arcs = comm.allreduce(int(part.first[part.owned])) // 2  # the whole network's
        # hi_pr's global update threshold on the whole network, in work units
        self.relabel_work = int((params["alpha"] * part.n + arcs)
                                / params["global_update_frequency"])
        size = part.size
        self.res = part.cap.copy()
        self.excess = np.zeros(size, np.int64)
        self.label = np.zeros(size, np.int32)  # owners' labels, ghosts' as last received
        self.counters = np.zeros(len(COUNTER_NAMES), np.int64)
        self.padded = size  # vertices of the local arrays below, padding included
        self.first = part.first
        self.local_label = np.empty(size, np.int32)
        self.local_excess = self.excess
        self.order = np.empty(size, np.int32)
        # the BFS's vertex and arc numbers as unsigned views (see hipr_stage_one)
        self.first_unsigned = part.first.view(np.uint32)
        self.head_unsigned = part.head.view(np.uint32)
        self.rev_unsigned = part.rev.view(np.uint32)
        self.rounds = 0
        self.relabelled_dist = None  # the last global relabel's distances, and residuals
        self.relabelled_res = None
        self.bfs_skipped = 0  # iterations of global relabels that took the last distances
        self.global_relabels = 0
        self.bfs_iterations = 0
        self.refused = 0
        self.discharge_seconds = []  # each round's
        self.relabel_seconds = 0.0
        self.trace = []

    def run(self) -> None:
        part, border = self.part, self.border
        if part.source >= 0:
            self.label[part.source] = part.n
            saturate_source_arcs(part.first, part.head, part.rev, self.res, self.excess,
                                 part.source)
            self.excess[part.owned:] = 0
        settled = part.cap[border.arc]
        relabel_due = True
        while True:
            if relabel_due:
                started = time.perf_counter()
                self.global_relabel()
                relabelled = time.perf_counter()
                relabel_time = relabelled - started
                self.relabel_seconds += relabel_time
                work_then = self.counters[WORK]
            started = time.perf_counter()
            stopped = self.discharge(work_then + self.relabel_work)
            self.discharge_seconds.append(time.perf_counter() - started)
            settled = self.exchange(settled)
            holds = (self.excess[:part.owned] > 0) & (self.label[:part.owned] < part.n)
            if part.sink >= 0:
                holds[part.sink] = False
            due = stopped or time.perf_counter() - relabelled > relabel_time
            totals = self.comm.allreduce(np.array([np.count_nonzero(holds), due,
                                                   self.counters[WORK] - work_then], np.int64))
            self.rounds += 1
            self.trace.append({"round": self.rounds, "active": int(totals[0]),
                               "global_relabel": bool(relabel_due)})
            if totals[0] == 0:
                return
            relabel_due = totals[1] > 0 or totals[2] > self.relabel_work

    def discharge(self, work_budget: int) -> bool:
        """Step 1: hi_pr's core on the part until no own vertex is active, ghosts as sinks at
        their last known labels, its global updates seeded by them (seeded_from); True where
        it stopped early, at a global update past `work_budget` (the next round starts with a
        global relabel then). A single rank holds the whole graph: hipr runs as it is, with
        its gaps, in one round."""
        part = self.part
        n = part.n
        whole = self.comm.size == 1
        ghosts = self.label[part.owned:part.size]
        highest_ghost = int(ghosts[ghosts < n].max(initial=0))
        # a residual path from an own vertex to the sink leaves the part at a ghost (or ends
        # at the sink) after at most `owned` arcs: a label past this bound means cut off
        size = max(part.size, min(n, highest_ghost + part.owned + 1))
        self._pad(size)
        local_label = self.local_label[:size]
        np.minimum(self.label, size, out=local_label[:part.size])
        local_label[part.size:] = size
        excess = self.local_excess[:size]
        excess[part.owned:part.size] = GHOST_EXCESS
        source = part.source if part.source >= 0 else size
        sink = part.sink if part.sink >= 0 else size
        status = hipr_stage_one(self.first[:size + 1], part.head, part.rev, self.res, excess,
                                local_label, source, sink,
                                self.params["global_update_frequency"], self.params["alpha"],
                                self.params["beta"], False, self.counters, False,
                                highest_ghost, part.owned, -1 if whole else work_budget)
        excess[part.owned:part.size] = 0
        own = local_label[:part.owned]
        self.label[:part.owned] = np.where(own >= size, n, own)
        return status == STOPPED_AT_GLOBAL_UPDATE

    def _pad(self, size: int) -> None:
        """Grow the local arrays to `size` vertices (isolated padding past the part)."""
        if size <= self.padded:
            return
        size = max(size, min(self.part.n, 2 * self.padded))
        extra = size - self.padded
        self.first = np.concatenate([self.first, np.full(extra, self.first[-1], np.int32)])
        self.local_label = np.empty(size, np.int32)
        self.local_excess = np.concatenate([self.local_excess, np.zeros(extra, np.int64)])
        self.excess = self.local_excess[:self.part.size]
        self.padded = size

    def exchange(self, settled: np.ndarray) -> np.ndarray:
        """Step 2; returns the border arcs' residuals that both sides now agree on."""
        border, res = self.border, self.res
        rows = np.empty((border.arc.shape[0], 2), np.int64)
        rows[:, 0] = settled - res[border.arc]
        rows[:, 1] = self.label[border.vertex]
        received = border.swap(rows)
        self.label[border.ghost] = received[:, 1]
        refused = np.empty((border.arc.shape[0], 1), np.int64)
        receive_pushes(border.arc, border.ghost_arc, border.vertex, received[:, 0].copy(),
                       received[:, 1].copy(), res, self.excess, self.label, refused[:, 0])
        self.refused += int(np.count_nonzero(refused))
        returned = border.swap(refused)
        take_back(border.arc, border.ghost_arc, border.vertex, returned[:, 0].copy(), res,
                  self.excess)
        return res[border.arc]

    def global_relabel(self) -> int:
        """Exact distances to the sink everywhere (n where cut off), label-correcting: each
        iteration lowers the own distances from the seeds that dropped (the sink first, then
        the ghosts whose owners sent a lower distance), so a part's BFS work adds up to about
        one BFS however many borders a shortest path crosses. A part whose residuals have
        not changed since the last global relabel takes that one's distances, without a BFS,
        once its ghosts' distances are back at theirs then: in a chain, whose BFS runs part
        after part, the parts that sat idle cost nothing."""
        part, border = self.part, self.border
        n = part.n
        owned = part.owned
        last = self.relabelled_dist
        unchanged = last is not None and np.array_equal(self.res, self.relabelled_res)
        dist = np.full(part.size, n, np.int32)  # the ghosts' until their owners say
        seeds = np.empty(0, np.int32)
        iterations = 0
        if part.sink >= 0:
            dist[part.sink] = 0
            seeds = np.array([part.sink], np.int32)
        while True:
            if unchanged and np.array_equal(dist[owned:], last[owned:]):
                dist[:owned] = last[:owned]  # what the BFS would find
                self.bfs_skipped += 1
            else:
                bfs_from_seeds(self.first_unsigned, self.head_unsigned, self.rev_unsigned,
                               self.res, dist, seeds.view(np.uint32), owned, part.source,
                               self.order.view(np.uint32))
            iterations += 1
            received = border.swap(dist[border.vertex].astype(np.int64).reshape(-1, 1))[:, 0]
            lowered = received < dist[border.ghost]
            dist[border.ghost[lowered]] = received[lowered]
            seeds = np.unique(border.ghost[lowered])
            seeds = seeds[np.argsort(dist[seeds], kind="stable")]
            if self.comm.allreduce(seeds.shape[0]) == 0:
                break
        self.label[:] = dist
        if part.source >= 0:
            self.label[part.source] = n
        self.relabelled_dist = dist
        self.relabelled_res = self.res.copy()
        self.global_relabels += 1
        self.bfs_iterations += iterations
        return iterations

    def statistics(self) -> dict:
        return {"pushes": int(self.counters[PUSHES]), "relabels": int(self.counters[RELABELS]),
                "work": int(self.counters[WORK]), "refused": self.refused,
                "bytes": self.border.bytes, "messages": self.border.messages,
                "bfs_skipped": self.bfs_skipped, "peak_memory": peak_memory(),
                "discharge_seconds": self.discharge_seconds,
                "relabel_seconds": self.relabel_seconds}
