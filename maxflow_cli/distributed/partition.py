"""Splitting a residual graph over MPI ranks, and what each rank receives of it.

Two partitions, the solver's `--partition`: `ranges` cuts the vertex ids into consecutive
ranges of about equal work (Pogoriliy & Kuzmin, seed 004: the data-parallel split by vertex
ranges); `regions` cuts the order of a BFS from the sink over residual arcs the same way, so
each rank holds a band of distances to the sink (Alvino 2015 §3.4: regions of about equal
size grown by BFS from the sink). Work is a vertex's residual arcs plus one.

A rank's part holds its own vertices and their arcs, and a ghost copy of every vertex of
another rank that one of its arcs reaches, with the reverses of those border arcs only, so
that a push into a ghost updates both arcs of the pair locally. The border pairs a rank shares
with each other rank are listed in one order on both sides (by the smaller global arc number
of the pair), so that exchanges are plain arrays, one value per pair.
"""

from dataclasses import dataclass

import numpy as np

from maxflow_cli.residual import ResidualGraph
from maxflow_cli.steps import reverse_bfs

PARTITIONS = ("ranges", "regions")


@dataclass
class Part:
    """One rank's share: local vertices are its own (0..owned-1), then its ghosts."""

    n: int  # vertices of the whole network (also the label of a vertex cut off from the sink)
    owned: int
    first: np.ndarray  # int32[owned + ghosts + 1]
    head: np.ndarray  # int32, local vertex ids
    rev: np.ndarray  # int32, local arc ids
    cap: np.ndarray  # int64
    source: int  # local id, or -1 where another rank holds it
    sink: int
    pair_counts: np.ndarray  # int64[ranks]: border pairs shared with each rank
    pair_arc: np.ndarray  # int32[pairs]: the pair's arc out of this rank's endpoint

    @property
    def size(self) -> int:
        return self.first.shape[0] - 1


def vertex_owners(graph: ResidualGraph, ranks: int, partition: str,
                  blocks: int = 1) -> np.ndarray:
    """The rank of every vertex (int32[n]): the order cut into ranks * blocks pieces of about
    equal work, dealt to the ranks in turn, so that where the pieces form a chain (the long
    families' levels and frames, the regions' distance bands) each rank holds `blocks` pieces
    spread along it and has work wherever the flow is."""
    n = graph.n
    if partition == "ranges":
        order = np.arange(n, dtype=np.int32)
    else:
        label = np.empty(n, np.int32)
        order = np.empty(n, np.int32)
        reached = reverse_bfs(graph.first, graph.head, graph.rev, graph.cap, graph.sink, label,
                              order)
        order[reached:] = np.flatnonzero(label == n)
    work = np.diff(graph.first).astype(np.int64)[order] + 1
    before = np.cumsum(work) - work
    owner = np.empty(n, np.int32)
    pieces = ranks * blocks
    owner[order] = np.minimum(before * pieces // int(work.sum()), pieces - 1) % ranks
    return owner


class Splitter:
    """Cuts the parts out of a graph, one rank at a time (rank 0 holds the whole graph)."""

    def __init__(self, graph: ResidualGraph, ranks: int, partition: str, blocks: int = 1):
        self.graph = graph
        self.ranks = ranks
        self.owner = vertex_owners(graph, ranks, partition, blocks)
        tails = np.repeat(np.arange(graph.n, dtype=np.int32), np.diff(graph.first))
        self.tails = tails
        self.arc_owner = self.owner[tails]
        self._local_id = np.empty(graph.n, np.int32)
        self._local_arc = np.empty(graph.head.shape[0], np.int32)

    def own_arcs(self, rank: int) -> np.ndarray:
        """The global arcs out of the rank's vertices, in global order (its first arcs)."""
        return np.flatnonzero(self.arc_owner == rank)

    def own_vertices(self, rank: int) -> np.ndarray:
        return np.flatnonzero(self.owner == rank)

    def part(self, rank: int) -> Part:
        graph, owner = self.graph, self.owner
        vertices = self.own_vertices(rank)
        arcs = self.own_arcs(rank)
        border = arcs[owner[graph.head[arcs]] != rank]
        ghosts = np.unique(graph.head[border])
        ghost_arcs = np.sort(graph.rev[border])  # grouped by ghost, as global arcs are by tail
        local_id, local_arc = self._local_id, self._local_arc
        local_id[vertices] = np.arange(vertices.shape[0], dtype=np.int32)
        local_id[ghosts] = vertices.shape[0] + np.arange(ghosts.shape[0], dtype=np.int32)
        every = np.concatenate([arcs, ghost_arcs])
        local_arc[every] = np.arange(every.shape[0], dtype=np.int32)
        degree = np.concatenate([
            np.diff(graph.first)[vertices],
            np.bincount(local_id[self.tails[ghost_arcs]] - vertices.shape[0],
                        minlength=ghosts.shape[0])])
        first = np.zeros(degree.shape[0] + 1, np.int32)
        np.cumsum(degree, out=first[1:])
        neighbour = owner[graph.head[border]]
        pairs = border[np.lexsort((np.minimum(border, graph.rev[border]), neighbour))]

        def local(vertex):
            return int(local_id[vertex]) if owner[vertex] == rank else -1

        return Part(graph.n, int(vertices.shape[0]), first,
                    local_id[graph.head[every]], local_arc[graph.rev[every]],
                    graph.cap[every], local(graph.source), local(graph.sink),
                    np.bincount(neighbour, minlength=self.ranks).astype(np.int64),
                    local_arc[pairs])
