"""Chains contracted: the series reduction of the vertices that pass on what they receive.

A link is a vertex, neither source nor sink, with exactly one arc of positive capacity in and
one out, the two to different neighbours. Whatever enters a link by its arc in leaves by its
arc out, so a chain of links from u to w (u and w no links) carries at most its smallest
capacity, and any amount up to that can go along it. Each chain is therefore one arc u -> w
of that capacity as far as the maximum flow goes (a chain from u back to u is none). The
contracted network has the same maximum flow value; a preflow or flow of it gives one of the
network, each chain's arcs carrying what its arc carries, so its links stay balanced and the
residual graph of the answer yields a minimum cut as the solvers' own answers do. On
Goldberg's bad case and Cheriyan's graph nearly every vertex is a link (Anderson's
`washington`, functions 10 and 11), and the contracted network is a fraction of the size.
"""

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numba
import numpy as np

from maxflow_cli import memory
from maxflow_cli.memory import residual_bytes
from maxflow_cli.residual import ResidualGraph, build_in_hipr_order
from maxflow_cli.result import SolveResult

MANY = -2
"""link_arcs's mark of a vertex of two arcs or more, in or out (-1: none)."""
CHAIN_SHARE = 0.5
"""The chains are contracted where at least this share of the inner vertices are links
(link_arcs): 98-100% on Goldberg's bad case and Cheriyan's graph, at most 1.7% on every other
shape of the suites (0% on Dinic's bad case, a path whose every vertex also drains into the
sink), 0-25% on the peer fixtures of more than 4 vertices (25%: an AK network; boost's
4-vertex diamond is two one-link chains)."""


def contracted_chains(graph: ResidualGraph) -> "Contraction | None":
    """The network with its chains contracted where most vertices are links of them (None
    elsewhere). Pseudoflow's merger pushes a root's excess along the whole tree path to the
    root (Hochbaum 2008); along chains the paths grow long and each root's excess walks
    them, O(n^2) pushes on Goldberg's bad case; a synchronous push-relabel round moves an
    excess one arc, and the rounds grow with the chains' length. Highest-label push-relabel
    gathers the excess at a chain's head and moves it along once; contracted, the chain is
    one arc for every solver. The contraction's arrays are made first, the memory for them
    checked, its set-up; where the memory available cannot hold them, the network is solved
    as it is, and where too few vertices are links after all, the set-up's time stays on
    the clock."""
    enough = CHAIN_SHARE * (graph.n - 2)
    if graph.n <= 2 or _vertices_of_two_arcs(graph.first) < enough:
        return None  # a link has two residual arcs: its arc in's and its arc out's
    started = time.perf_counter()
    if memory.too_little(chain_space_bytes(graph)) is not None:
        return None
    space = chain_space(graph)
    setup = time.perf_counter() - started
    links = link_arcs(graph, space)
    return contract(graph, space, links, setup) if links >= enough else None


@numba.njit(cache=True)
def _vertices_of_two_arcs(first) -> int:
    count = 0
    for vertex in range(first.shape[0] - 1):
        count += first[vertex + 1] - first[vertex] == 2
    return count


def chains_why(graph: ResidualGraph, contraction: "Contraction") -> str:
    return f"{contraction.links / (graph.n - 2):.0%} of the vertices are links of chains " \
        f"(one arc in, one out), each chain contracted into one arc ({graph.n:,} vertices " \
        f"to {contraction.graph.n:,})"


def solve_contracted(graph: ResidualGraph, started: float,
                     solve: Callable[[ResidualGraph, float, str], SolveResult]
                     ) -> SolveResult | None:
    """Where most vertices are links of chains (contracted_chains), solve(the contracted
    network, the time its solve starts, why it is contracted), the answer carried back to
    `graph`: stage 1 counted from `started`, the contraction's set-up apart; None elsewhere."""
    contraction = contracted_chains(graph)
    if not contraction:
        return None
    contracted = time.perf_counter()
    result = solve(contraction.graph, contracted, chains_why(graph, contraction))
    carried = time.perf_counter()
    res = contraction.expanded(graph, result.res)
    times = dict(result.times)
    times["stage1"] += contracted - started - contraction.setup + time.perf_counter() - carried
    times["setup"] = times.get("setup", 0.0) + contraction.setup
    return replace(result, res=res, times=times,
                   counters=result.counters | {"links": contraction.links})


def prepare_contraction(tiny: ResidualGraph) -> None:
    """Compile the contraction, its expansion and the count of two-arc vertices for each
    arc and capacity type, on the tiny graph."""
    for arcs, caps in itertools.product((np.int32, np.int64), repeat=2):
        first, rev = tiny.first.astype(arcs), tiny.rev.astype(arcs)
        chained = replace(tiny, first=first, rev=rev, caps=tiny.caps.astype(caps),
                          arc_of_input=tiny.arc_of_input.astype(arcs))
        space = chain_space(chained)
        contraction = contract(chained, space, link_arcs(chained, space), 0.0)
        contraction.expanded(chained, contraction.graph.initial_residuals())
        _vertices_of_two_arcs(first)


@dataclass(frozen=True)
class ChainSpace:
    """The arrays that the contraction writes, made before the clock as hi_pr makes its own
    (highest_label.hipr_workspace): per vertex, its arc in and out, its successor and its
    number in the contracted network (link_arcs); per input arc, the contracted network's
    arcs (at most one each) and the one it carries; the network's residuals (expanded)."""

    arc_in: np.ndarray
    arc_out: np.ndarray
    successor: np.ndarray
    kept: np.ndarray
    tails: np.ndarray
    heads: np.ndarray
    caps: np.ndarray
    carried_by: np.ndarray
    res: np.ndarray


def _space_layout(graph: ResidualGraph) -> list:
    """(length, type) of each of ChainSpace's arrays, in its fields' order."""
    n, m, arc = graph.n, graph.m, graph.arc_of_input.dtype
    return [(n, arc), (n, arc), (n, np.int32), (n, np.int32), (m, np.int32), (m, np.int32),
            (m, graph.caps.dtype), (m, arc), (2 * m, np.int64)]


def chain_space_bytes(graph: ResidualGraph) -> int:
    """What chain_space and the contracted graph built from it take at most: the space's
    arrays (16-24 bytes a vertex, 32-40 an arc) and a contracted graph no larger than the
    network's (memory.residual_bytes)."""
    space = sum(length * np.dtype(kind).itemsize for length, kind in _space_layout(graph))
    return space + residual_bytes(graph.n, graph.m, graph.rev.dtype.type)


def chain_space(graph: ResidualGraph) -> ChainSpace:
    """The arrays, each written once (memory.touch), so that their pages come in here and
    not on the clock of a process's first solve."""
    space = ChainSpace(*(np.empty(length, kind) for length, kind in _space_layout(graph)))
    memory.touch(vars(space).values())
    return space


def link_arcs(graph: ResidualGraph, space: ChainSpace) -> int:
    """How many vertices are links; `space` holds each vertex's number in the contracted
    network (-1 at links), its one input arc of positive capacity out (-1 where it has none,
    MANY where it has more) and that arc's head (read at a link only)."""
    return _link_arcs(graph.source, graph.sink, graph.head, graph.rev, graph.caps,
                      graph.arc_of_input, space.arc_in, space.arc_out, space.successor,
                      space.kept)


@numba.njit(cache=True)
def _link_arcs(source, sink, head, rev, caps, arc_of_input, arc_in, arc_out, successor,
               kept):
    arc_in[:] = -1
    arc_out[:] = -1
    for arc in range(caps.shape[0]):
        if caps[arc] > 0:
            forward = arc_of_input[arc]
            tail, to = head[rev[forward]], head[forward]
            arc_out[tail] = arc if arc_out[tail] == -1 else MANY
            arc_in[to] = arc if arc_in[to] == -1 else MANY
            successor[tail] = to
    count = 0
    for vertex in range(kept.shape[0]):
        if _is_link(vertex, source, sink, arc_in, arc_out, head, rev, arc_of_input):
            kept[vertex] = -1
        else:
            kept[vertex], count = count, count + 1
    return kept.shape[0] - count


@numba.njit(cache=True, inline="always")
def _is_link(vertex, source, sink, arc_in, arc_out, head, rev, arc_of_input):
    """One arc in, one out, from and to two different neighbours; no terminal."""
    into, out = arc_in[vertex], arc_out[vertex]
    if into < 0 or out < 0 or vertex == source or vertex == sink:
        return False
    return head[rev[arc_of_input[into]]] != head[arc_of_input[out]]


@dataclass(frozen=True)
class Contraction:
    """The contracted network's residual graph, how many links it lost, where its answer
    goes (the space's carried_by and res), and the seconds that making the space took."""

    graph: ResidualGraph
    links: int
    space: ChainSpace
    setup: float

    def expanded(self, graph: ResidualGraph, res: np.ndarray) -> np.ndarray:
        """The network's residuals (int64[2m], the space's) from the contracted graph's
        `res` (gpu-sync's narrow ones widened first)."""
        res = res.astype(np.int64, copy=False)
        _spread(self.graph.caps, self.graph.arc_of_input, res, self.space.carried_by,
                graph.caps, graph.arc_of_input, graph.rev, self.space.res)
        return self.space.res


def contract(graph: ResidualGraph, space: ChainSpace, links: int, setup: float) -> Contraction:
    """Each chain of links made one arc (link_arcs has filled `space`, made in `setup`
    seconds). The contracted graph's arcs are paired on this thread alone
    (residual._pair_on_one_thread): chains often share their ends, and hi_pr's placement
    then interleaves the slots of their arcs."""
    arcs = _contract(graph.head, graph.rev, graph.caps, graph.arc_of_input, space.kept,
                     space.arc_out, space.successor, space.tails, space.heads, space.caps,
                     space.carried_by)
    n = graph.n - links
    built = build_in_hipr_order(n, space.tails[:arcs], space.heads[:arcs],
                                graph.rev.dtype.type, one_thread=True)
    contracted = ResidualGraph(n, int(space.kept[graph.source]), int(space.kept[graph.sink]),
                               *built[:3], space.caps[:arcs], built[3])
    return Contraction(contracted, links, space, setup)


@numba.njit(cache=True)
def _contract(head, rev, caps, arc_of_input, kept, arc_out, successor, tails, heads,
              new_caps, carried_by) -> int:
    """The contracted network's arcs (tails, heads, new_caps; their number returned) and
    each input arc's contracted arc (carried_by, -1 for none: a zero capacity, a chain from
    a vertex back to itself, a cycle of links). Arcs keep their input order, a chain's arc
    where the chain's first arc was."""
    carried_by[:] = -1
    arcs = 0
    for arc in range(caps.shape[0]):
        tail = head[rev[arc_of_input[arc]]]
        if caps[arc] <= 0 or kept[tail] < 0:
            continue  # no capacity, or within a chain: its first arc's walk takes it
        to, least = _walk(arc, arcs, carried_by, kept, arc_out, successor, caps,
                          arc_of_input, head)
        if to == tail:  # a chain from a vertex back to itself carries nothing
            _walk(arc, -1, carried_by, kept, arc_out, successor, caps, arc_of_input, head)
            continue
        tails[arcs], heads[arcs], new_caps[arcs] = kept[tail], kept[to], least
        arcs += 1
    return arcs


@numba.njit(cache=True)
def _walk(arc, mark, carried_by, kept, arc_out, successor, caps, arc_of_input, head):
    """Mark input arc `arc` and the chain that it starts as carried by contracted arc `mark`;
    the chain's end and its smallest capacity."""
    least = caps[arc]
    carried_by[arc] = mark
    to = head[arc_of_input[arc]]
    while kept[to] < 0:  # the successors are read one after another, the arcs beside
        arc = arc_out[to]
        least = min(least, caps[arc])
        carried_by[arc] = mark
        to = successor[to]
    return to, least


@numba.njit(cache=True)
def _spread(contracted_caps, contracted_arcs, contracted_res, carried_by, caps, arc_of_input,
            rev, res):
    """Each input arc's residuals (res) from the flow of the contracted arc that it
    carries."""
    for arc in range(caps.shape[0]):
        by = carried_by[arc]
        flow = contracted_caps[by] - contracted_res[contracted_arcs[by]] if by >= 0 else 0
        res[arc_of_input[arc]] = caps[arc] - flow
        res[rev[arc_of_input[arc]]] = flow
