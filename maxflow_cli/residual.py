"""The one residual graph every solver uses (Gutiérrez Mota 2012, table 3.1).

Forward-star arrays, structure of arrays, the same buffers for Numba and PyCUDA: the out-arcs
of vertex u are ``first[u] .. first[u+1]-1``; arc a goes to ``head[a]``, its paired reverse
arc is ``rev[a]``. Every input arc i gives the pair u->v (capacity c) and v->u (capacity 0);
``arc_of_input[i]`` is the forward one. Capacities are held per input arc: ``caps[i]`` is the
network's own array (int32 where a generator narrowed it), and ``cap[a]``, residual arc a's
(0 at a reverse arc), is scattered from it only for the solvers that read it. Within a
vertex, arcs lie in one of two orders (ORDERS), a build option: where hi_pr's parser puts
them (_place; hipr's operation counts equal hi_pr's only with it), or in input order (a
stable sort by tail, every step in parallel: _by_blocks).
The graph holds no copy of the network it was built from: ``network`` gathers the ends back,
in input order, when asked, so that the tail and head arrays can be freed once it is built.
Solver state lives outside: residuals ``res`` (int64[2m]; gpu-sync's int32 where every
residual fits), ``excess`` (int64[n]) and ``label`` (int32[n]). Arc indices (first, rev,
arc_of_input) are int32 up to limits.MAX_NARROW_ARCS input arcs and int64 beyond
(limits.arc_index_type): the graph is then ``wide``, and only the solvers that declare it
(SolverSpec.wide_arcs) take it.
"""

from dataclasses import dataclass
from functools import cached_property

import numba
import numpy as np
from numba import prange

from maxflow_cli import memory
from maxflow_cli.errors import ParameterError
from maxflow_cli.limits import INT64_MAX, MAX_ARCS, MAX_CAPACITY, arc_index_type, int_type
from maxflow_cli.memory import residual_bytes
from maxflow_cli.network import Network, capacity_type

HIPR_ORDER, INPUT_ORDER = "hipr", "input"
ORDERS = (HIPR_ORDER, INPUT_ORDER)
"""Each vertex's arcs where hi_pr's parse() puts them, or in input order (arc i's pair in
slots 2i and 2i + 1: the forward arc among the tail's, the reverse among the head's)."""

BLOCK_BITS = 12
"""The input-order build sorts the slots into at most 2^BLOCK_BITS blocks of consecutive
vertices first: few enough that each chunk's counts per block stay small, many enough that
the blocks spread over the threads."""


@dataclass(frozen=True)
class ResidualGraph:
    n: int
    source: int
    sink: int
    first: np.ndarray  # int32[n+1] (int64 where wide)
    head: np.ndarray  # int32[2m]
    rev: np.ndarray  # int32[2m] (int64 where wide)
    caps: np.ndarray  # int64[m] or int32[m], per input arc: the network's
    arc_of_input: np.ndarray  # int32[m] (int64 where wide)
    # Whether each vertex's input arcs lie in input order among its arcs (built in
    # INPUT_ORDER, or by pushrelabel.arc_order.forward_first): a reader may then take them
    # vertex by vertex in input order.
    input_ordered: bool = False

    @property
    def m(self) -> int:
        """Number of input arcs (residual arcs: 2m)."""
        return int(self.arc_of_input.shape[0])

    @property
    def wide(self) -> bool:
        """Whether arcs are indexed by int64 (more than limits.MAX_NARROW_ARCS input arcs, or
        built so)."""
        return self.rev.dtype == np.int64

    @property
    def network(self) -> Network:
        """The network the graph was built from, arcs in input order: its ends gathered anew (8
        bytes an arc) at each call, its capacities the graph's."""
        tails, heads = _input_ends(self.head, self.rev, self.arc_of_input)
        return Network(self.n, self.source, self.sink, tails, heads, self.caps)

    @cached_property
    def largest_capacity(self) -> int:
        """The largest input capacity (0 where there is none), read once, on all threads."""
        return int(largest(self.caps))

    @cached_property
    def cap(self) -> np.ndarray:
        """Each residual arc's original capacity (int64[2m], 0 at reverse arcs), scattered from
        caps at first use: only the solvers that read it hold it."""
        return self.initial_residuals()

    def initial_residuals(self, res_type=np.int64) -> np.ndarray:
        """A new array of the capacities per residual arc, as `res_type`s."""
        res = np.empty(self.head.shape[0], res_type)
        scatter_capacities(self.caps, self.arc_of_input, res)
        return res

    def flows(self, res: np.ndarray) -> np.ndarray:
        """Flow on each input arc, in input order, from the residuals."""
        return self.caps - res[self.arc_of_input]


def index_view(indices: np.ndarray) -> np.ndarray:
    """`indices` (vertex or arc numbers) as compiled cores index with them: int32 viewed as
    uint32 (Numba then skips its guard against negative indices), int64 (a wide graph's arcs)
    as they are: uint64 and int64 unify to float64 in Numba's typing."""
    return indices.view(np.uint32) if indices.dtype == np.int32 else indices


def residual_type(graph: ResidualGraph) -> type:
    """The narrowest type of the residuals that no residual can pass (gpu-sync's and
    eibfs's; the others keep int64): an arc's residual and its pair's add up to the input
    arc's capacity, and a push along the pair may add to one before the other gives it up
    (gpu-sync's kernels), so twice the largest capacity bounds every value. uint16 where
    that is at most 65535 (half the bytes to read and to hold), int32 where at most
    2^31 - 1, else int64."""
    bound = 2 * graph.largest_capacity
    return np.uint16 if bound <= np.iinfo(np.uint16).max else int_type(bound)


@numba.njit(cache=True, parallel=True)
def largest(values):
    """The largest of `values`, at least 0, read on all threads (a solve's set-up on the
    GPU host reads a billion capacities)."""
    top = 0
    for i in prange(values.shape[0]):
        top = max(top, values[i])
    return top


@numba.njit(cache=True, parallel=True)
def scatter_capacities(caps, arc_of_input, res):
    """res[a]: the capacity of residual arc a (input arc i's at its forward arc, 0 at the
    reverse arcs)."""
    for a in prange(res.shape[0]):
        res[a] = 0
    for i in prange(caps.shape[0]):
        res[arc_of_input[i]] = caps[i]


@numba.njit(cache=True)
def _first(tails, heads, first):
    """first[u]: where vertex u's arcs begin, from the degrees (a counting sort's offsets)."""
    n = first.shape[0] - 1
    first[:] = 0
    for i in range(tails.shape[0]):
        first[tails[i] + 1] += 1
        first[heads[i] + 1] += 1
    for u in range(n):
        first[u + 1] += first[u]
    return first


@numba.njit(cache=True, parallel=True)
def _slot_tails(tails, heads, where):
    """where[k]: the tail of slot k, hi_pr's layout (input arc i in slots 2i and 2i+1)."""
    for i in prange(tails.shape[0]):
        where[2 * i] = tails[i]
        where[2 * i + 1] = heads[i]


@numba.njit(cache=True)
def _place(first, where):
    """Turn where[k] (the tail of slot k) into the position hi_pr's parse() gives slot k.

    hi_pr sorts its slots by tail in place: for u = 0, 1, ..., each position of u's range
    holding a slot of another tail t is swapped with t's next free position until a slot of
    u lands there. A position is only ever read in its original content, so the placement
    follows by chasing those swaps without performing them: slot k goes to the next free
    position q of its tail, and the slot originally at q is the next one to move. Each step
    depends on the free positions every earlier step left, so the chase is sequential; to
    keep one memory access on its path, `ahead` holds per vertex its next free position and
    the tail of the slot there, read when the position is taken, off the path. This order
    (not input order) decides which arc a push or relabel meets first: hipr's operation
    counts equal hi_pr's only with it. `where` has one cell past the slots, so that reading
    ahead needs no test: what it reads past t's range is never used, since every slot of t
    has arrived by then.
    """
    n = first.shape[0] - 1
    where[-1] = -1
    ahead = np.empty((n, 2), where.dtype)
    for t in range(n):
        ahead[t, 0], ahead[t, 1] = first[t], where[first[t]]
    for u in range(n - 1):
        p = ahead[u, 0]
        while p < first[u + 1]:
            k = p  # a cycle of the placement starts at p and ends with a slot of u
            t = where[k]
            while t != u:
                q, following = ahead[t, 0], ahead[t, 1]
                ahead[t, 0], ahead[t, 1] = q + 1, where[q + 1]
                where[k] = q
                k, t = q, following
            where[k] = p
            p += 1
        ahead[u, 0] = p
    for k in range(ahead[n - 1, 0], first[n]):  # the last vertex's slots that stay put
        where[k] = k


@numba.njit(cache=True, inline="always")
def _pair_arc(i, where, tails, heads, head, rev, arc_of_input):
    """Fill the arrays from input arc i's two positions."""
    forward, backward = where[2 * i], where[2 * i + 1]
    head[forward], rev[forward] = heads[i], backward
    head[backward], rev[backward] = tails[i], forward
    arc_of_input[i] = forward


@numba.njit(cache=True, parallel=True)
def _pair(where, tails, heads, head, rev, arc_of_input):
    """_pair_arc for all input arcs in parallel."""
    for i in prange(tails.shape[0]):
        _pair_arc(i, where, tails, heads, head, rev, arc_of_input)


@numba.njit(cache=True)
def _pair_on_one_thread(where, tails, heads, head, rev, arc_of_input):
    """_pair_arc for all input arcs in turn: hi_pr's placement may interleave the positions
    of the first half's arcs with the second half's (each vertex's range is filled by
    chasing cycles), and two threads then write to the same cache lines."""
    for i in range(tails.shape[0]):
        _pair_arc(i, where, tails, heads, head, rev, arc_of_input)


def build_in_hipr_order(n, tails, heads, arc_type, one_thread: bool = False):
    """Forward-star arrays with each vertex's arcs where hi_pr's parse() puts them (_place):
    a counting sort by tail whose offsets come from the degrees, then the reverse-arc
    pairing in parallel (or on this thread alone); arcs indexed by `arc_type`s."""
    m = tails.shape[0]
    first = _first(tails, heads, np.empty(n + 1, arc_type))
    where = np.empty(2 * m + 1, arc_type)
    _slot_tails(tails, heads, where)
    _place(first, where)
    head, rev = np.empty(2 * m, np.int32), np.empty(2 * m, arc_type)
    arc_of_input = np.empty(m, arc_type)
    pair = _pair_on_one_thread if one_thread else _pair
    pair(where, tails, heads, head, rev, arc_of_input)
    return first, head, rev, arc_of_input


@numba.njit(cache=True, inline="always")
def _slot_tail(tails, heads, k):
    """The tail of slot k: input arc k // 2's tail for its forward arc, its head for the
    reverse one."""
    return tails[k >> 1] if k & 1 == 0 else heads[k >> 1]


@numba.njit(cache=True, parallel=True)
def _block_counts(tails, heads, shift, chunks, blocks):
    """counts[c, b]: the slots of chunk c (consecutive slots) whose tail lies in block b
    (tail >> shift)."""
    slots = 2 * tails.shape[0]
    counts = np.zeros((chunks, blocks), np.int64)
    for c in prange(chunks):
        for k in range(c * slots // chunks, (c + 1) * slots // chunks):
            counts[c, _slot_tail(tails, heads, k) >> shift] += 1
    return counts


@numba.njit(cache=True, parallel=True)
def _scatter(tails, heads, shift, offsets, into):
    """into[...]: the slots grouped by block, each block's in slot order (a stable pass of a
    radix sort); offsets[c, b] is where chunk c's slots of block b begin."""
    chunks = offsets.shape[0]
    slots = 2 * tails.shape[0]
    for c in prange(chunks):
        at = offsets[c].copy()
        for k in range(c * slots // chunks, (c + 1) * slots // chunks):
            b = _slot_tail(tails, heads, k) >> shift
            into[at[b]] = k
            at[b] += 1


@numba.njit(cache=True, parallel=True)
def _place_blocks(starts, shift, tails, heads, first, head, rev, arc_of_input):
    """Each block on one thread, the blocks in parallel: a counting sort by tail of the slots
    that rev[starts[b]:starts[b+1]] holds (slot order kept), giving first, head and
    arc_of_input; rev[p] is left -1 at a forward arc and -2 - i at input arc i's reverse one,
    for _pair_reverse. A block's slots take the same positions as its share of rev did."""
    n = first.shape[0] - 1
    for b in prange(starts.shape[0] - 1):
        low, high = starts[b], starts[b + 1]
        v0, v1 = min(np.int64(b) << shift, n), min(np.int64(b + 1) << shift, n)
        slots = rev[low:high].copy()
        at = np.zeros(v1 - v0 + 1, np.int64)
        for k in slots:
            at[_slot_tail(tails, heads, k) - v0 + 1] += 1
        at[0] = low
        for u in range(v1 - v0):
            at[u + 1] += at[u]
            first[v0 + u] = at[u]
        for k in slots:
            i = k >> 1
            u = _slot_tail(tails, heads, k) - v0
            p = at[u]
            at[u] += 1
            if k & 1 == 0:
                head[p], rev[p], arc_of_input[i] = heads[i], -1, p
            else:
                head[p], rev[p] = tails[i], -2 - i


@numba.njit(cache=True, parallel=True)
def _pair_reverse(rev, arc_of_input):
    """rev at every arc from _place_blocks' marks: each reverse arc pairs itself and its
    forward arc (which only it writes; a forward arc's own mark is left alone)."""
    for p in prange(rev.shape[0]):
        mark = rev[p]
        if mark <= -2:
            forward = arc_of_input[-2 - mark]
            rev[p] = forward
            rev[forward] = p


def _build_by_blocks(n, tails, heads, arc_type):
    """Forward-star arrays with each vertex's arcs in input order, every pass in parallel: a
    stable radix sort of the slots by tail, by block of vertices (counts per chunk and
    block, then a scatter into rev, which holds the sorted slots until _place_blocks
    overwrites them), then by vertex within each block, then the reverse-arc pairing; arcs
    indexed by `arc_type`s."""
    m = tails.shape[0]
    shift = max(0, (n - 1).bit_length() - BLOCK_BITS)
    blocks = ((n - 1) >> shift) + 1
    chunks = 4 * numba.get_num_threads()
    counts = _block_counts(tails, heads, shift, chunks, blocks)
    offsets = np.zeros(chunks * blocks + 1, np.int64)  # block-major: block b, then chunk c
    offsets[1:] = np.cumsum(counts.T)
    head, rev = np.empty(2 * m, np.int32), np.empty(2 * m, arc_type)
    _scatter(tails, heads, shift, offsets[:-1].reshape(blocks, chunks).T.copy(), rev)
    first = np.empty(n + 1, arc_type)
    first[n] = 2 * m
    arc_of_input = np.empty(m, arc_type)
    _place_blocks(offsets[::chunks], shift, tails, heads, first, head, rev, arc_of_input)
    _pair_reverse(rev, arc_of_input)
    return first, head, rev, arc_of_input


@numba.njit(cache=True, parallel=True)
def _input_ends(head, rev, arc_of_input):
    """Each input arc's tail and head, from its forward arc and the paired one."""
    m = arc_of_input.shape[0]
    tails, heads = np.empty(m, np.int32), np.empty(m, np.int32)
    for i in prange(m):
        forward = arc_of_input[i]
        tails[i], heads[i] = head[rev[forward]], head[forward]
    return tails, heads


@numba.njit(cache=True, parallel=True)
def _summary(tails, heads, caps, source):
    """One parallel pass over the input arcs: the least and largest end, the least and
    largest capacity, and the capacities leaving the source (self-loops aside) summed exactly
    in two halves, bits 31 and up and bits 0-30 (capacities are at most 2^62 once checked,
    arcs at most MAX_ARCS)."""
    low_end, high_end = np.int64(2**62), np.int64(-1)
    low_cap, high_cap = np.int64(2**62), np.int64(-1)
    high = low = 0
    for i in prange(tails.shape[0]):
        low_end = min(low_end, min(tails[i], heads[i]))
        high_end = max(high_end, max(tails[i], heads[i]))
        low_cap, high_cap = min(low_cap, caps[i]), max(high_cap, caps[i])
        if tails[i] == source and heads[i] != source:
            high += caps[i] >> 31
            low += caps[i] & (2**31 - 1)
    return low_end, high_end, low_cap, high_cap, high, low


def _checked(network: Network, tails, heads, caps, arc_type) -> None:
    """ParameterError for a network the graph cannot hold: bad source or sink, too many arcs,
    ends outside the vertices, capacities outside 0..2^62, too little memory, or source
    capacities that sum past 2^63-1 (every excess and the flow value are bounded by that
    sum, so nothing can overflow int64)."""
    n = network.n
    if n < 2 or not (0 <= network.source < n and 0 <= network.sink < n):
        raise ParameterError("the source and sink must be vertices of a network with n >= 2")
    if network.source == network.sink:
        raise ParameterError("the source and the sink are the same vertex")
    if network.m > MAX_ARCS:
        raise ParameterError(f"{network.m:,} arcs: at most {MAX_ARCS:,} (2^32 - 1) are "
                             "supported (the capacity sums are exact up to there)")
    low_end, high_end, low_cap, high_cap, high, low = _summary(tails, heads, caps,
                                                               network.source)
    if network.m:
        if low_end < 0 or high_end >= n:
            raise ParameterError(f"an arc has an end outside the {n} vertices")
        if low_cap < 0 or high_cap > MAX_CAPACITY:
            raise ParameterError("arc capacities must lie in 0..2^62")
    memory.require(residual_bytes(n, network.m, arc_type),
                   f"the residual graph of {n:,} vertices and {network.m:,} arcs")
    if (int(high) << 31) + int(low) > INT64_MAX:
        raise ParameterError(
            "the capacities leaving the source sum past 2^63-1: flow values would overflow "
            "64-bit integers")


def build_residual(network: Network, order: str = HIPR_ORDER, arc_type=None) -> ResidualGraph:
    """Build the residual graph in O(m) (a counting sort by tail), each vertex's arcs in
    `order` (ORDERS), after checking the network (_checked); arcs indexed by `arc_type`s
    (None: limits.arc_index_type, the narrowest that holds them)."""
    arc_type = arc_type or arc_index_type(network.m)
    tails = np.ascontiguousarray(network.tails, dtype=np.int32)
    heads = np.ascontiguousarray(network.heads, dtype=np.int32)
    caps = np.ascontiguousarray(network.caps, dtype=capacity_type(network.caps))
    _checked(network, tails, heads, caps, arc_type)
    build = build_in_hipr_order if order == HIPR_ORDER else _build_by_blocks
    first, head, rev, arc_of_input = build(network.n, tails, heads, arc_type)
    return ResidualGraph(network.n, network.source, network.sink, first, head, rev, caps,
                         arc_of_input, order == INPUT_ORDER)
