"""The one residual graph every solver uses (Gutiérrez Mota 2012, table 3.1).

Forward-star arrays, structure of arrays, the same buffers for Numba and PyCUDA: the out-arcs
of vertex u are ``first[u] .. first[u+1]-1``; arc a goes to ``head[a]``, its paired reverse
arc is ``rev[a]``, ``cap[a]`` is its original capacity (0 for the reverse arc of an input
arc). Every input arc i gives the pair u->v (cap c) and v->u (cap 0); ``arc_of_input[i]`` is
the forward one. Within a vertex, arcs lie where hi_pr's parser puts them (see _place).
The graph holds no copy of the network it was built from: ``network`` gathers it back, in
input order, when asked, so that the input arrays can be freed once the graph is built.
Solver state lives outside: residuals ``res`` (int64[2m]), ``excess`` (int64[n]) and
``label`` (int32[n]).
"""

from dataclasses import dataclass

import numba
import numpy as np
from numba import prange

from maxflow_cli import memory
from maxflow_cli.errors import ParameterError
from maxflow_cli.limits import INT64_MAX, MAX_ARCS, MAX_CAPACITY
from maxflow_cli.memory import residual_bytes
from maxflow_cli.network import Network


@dataclass(frozen=True)
class ResidualGraph:
    n: int
    source: int
    sink: int
    first: np.ndarray  # int32[n+1]
    head: np.ndarray  # int32[2m]
    rev: np.ndarray  # int32[2m]
    cap: np.ndarray  # int64[2m]
    arc_of_input: np.ndarray  # int32[m]

    @property
    def m(self) -> int:
        """Number of input arcs (residual arcs: 2m)."""
        return int(self.arc_of_input.shape[0])

    @property
    def network(self) -> Network:
        """The network the graph was built from, arcs in input order, gathered anew (16 bytes
        an arc) at each call."""
        tails, heads, caps = _input_arcs(self.head, self.rev, self.cap, self.arc_of_input)
        return Network(self.n, self.source, self.sink, tails, heads, caps)

    def initial_residuals(self) -> np.ndarray:
        return self.cap.copy()

    def flows(self, res: np.ndarray) -> np.ndarray:
        """Flow on each input arc, in input order, from the residuals."""
        arcs = self.arc_of_input
        return self.cap[arcs] - res[arcs]


@numba.njit(cache=True)
def _first(n, tails, heads):
    """first[u]: where vertex u's arcs begin, from the degrees (a counting sort's offsets)."""
    first = np.zeros(n + 1, np.int32)
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
    ahead = np.empty((n, 2), np.int32)
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


@numba.njit(cache=True, parallel=True)
def _pair(where, tails, heads, caps, head, rev, cap, arc_of_input):
    """Fill the arrays from each input arc's two positions, all input arcs in parallel."""
    for i in prange(tails.shape[0]):
        forward, backward = where[2 * i], where[2 * i + 1]
        head[forward], cap[forward], rev[forward] = heads[i], caps[i], backward
        head[backward], cap[backward], rev[backward] = tails[i], 0, forward
        arc_of_input[i] = forward


def _build(n, tails, heads, caps):
    """Forward-star arrays with each vertex's arcs where hi_pr's parse() puts them (_place):
    a counting sort by tail whose offsets come from the degrees, then the reverse-arc
    pairing in parallel."""
    m = tails.shape[0]
    first = _first(n, tails, heads)
    where = np.empty(2 * m + 1, np.int32)
    _slot_tails(tails, heads, where)
    _place(first, where)
    head, rev, cap = np.empty(2 * m, np.int32), np.empty(2 * m, np.int32), \
        np.empty(2 * m, np.int64)
    arc_of_input = np.empty(m, np.int32)
    _pair(where, tails, heads, caps, head, rev, cap, arc_of_input)
    return first, head, rev, cap, arc_of_input


@numba.njit(cache=True, parallel=True)
def _input_arcs(head, rev, cap, arc_of_input):
    """Each input arc's tail, head and capacity, from its forward arc and the paired one."""
    m = arc_of_input.shape[0]
    tails, heads, caps = np.empty(m, np.int32), np.empty(m, np.int32), np.empty(m, np.int64)
    for i in prange(m):
        forward = arc_of_input[i]
        tails[i], heads[i], caps[i] = head[rev[forward]], head[forward], cap[forward]
    return tails, heads, caps


@numba.njit(cache=True)
def _source_total_overflows(source, tails, heads, caps, limit):
    """Whether the capacities leaving the source (self-loops aside) sum to more than limit."""
    total = 0
    for i in range(tails.shape[0]):
        if tails[i] == source and heads[i] != source:
            if caps[i] > limit - total:
                return True
            total += caps[i]
    return False


def build_residual(network: Network) -> ResidualGraph:
    """Build the residual graph in O(m) (counting sort by tail), after checking the network.

    Capacities above 2^62 and networks whose source capacity sums past 2^63-1 are refused:
    every excess and the flow value are bounded by that sum, so nothing can overflow int64.
    So is a network whose graph and preflow state the machine has no memory for.
    """
    n = network.n
    tails = np.ascontiguousarray(network.tails, dtype=np.int32)
    heads = np.ascontiguousarray(network.heads, dtype=np.int32)
    caps = np.ascontiguousarray(network.caps, dtype=np.int64)
    if n < 2 or not (0 <= network.source < n and 0 <= network.sink < n):
        raise ParameterError("the source and sink must be vertices of a network with n >= 2")
    if network.source == network.sink:
        raise ParameterError("the source and the sink are the same vertex")
    if network.m > MAX_ARCS:
        raise ParameterError(f"{network.m} arcs: at most {MAX_ARCS} are supported")
    if network.m:
        if min(tails.min(), heads.min()) < 0 or max(tails.max(), heads.max()) >= n:
            raise ParameterError(f"an arc has an end outside the {n} vertices")
        if caps.min() < 0 or caps.max() > MAX_CAPACITY:
            raise ParameterError("arc capacities must lie in 0..2^62")
    memory.require(residual_bytes(n, network.m),
                   f"the residual graph of {n:,} vertices and {network.m:,} arcs")
    if _source_total_overflows(network.source, tails, heads, caps, INT64_MAX):
        raise ParameterError(
            "the capacities leaving the source sum past 2^63-1: flow values would overflow "
            "64-bit integers")
    first, head, rev, cap, arc_of_input = _build(n, tails, heads, caps)
    return ResidualGraph(n, network.source, network.sink, first, head, rev, cap, arc_of_input)
