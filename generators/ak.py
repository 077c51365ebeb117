"""AK: Cherkassky & Goldberg's generator of hard maximum-flow problems (``ak``, 1994).

Re-implements ``ak n`` (Stanford, 1994; Cherkassky & Goldberg 1997, "On implementing the
push-relabel method for the maximum flow problem", Algorithmica 19): 4n + 6 vertices and
6n + 7 arcs, no randomness. Two gadgets hang between the source (1) and the sink (2), each
fed and drained by arcs of capacity 10^6:

- the first: a path 3 -> 4 -> ... -> n + 3 whose capacities fall from n + 1 to 2, every
  vertex of it (and n + 3 once more) joined by a unit arc to n + 4, the start of a path
  n + 4 -> ... -> 2n + 4 of capacity n + 1 into the sink (n + 3 also reaches 2n + 4 by a
  unit arc);
- the second: a path 2n + 5 -> ... -> 4n + 6 of capacity n into the sink, its first n
  vertices joined by unit arcs to the vertices mirrored about its middle.

Push-relabel moves each unit of excess along the paths one relabel at a time: Theta(n^2)
pushes and relabels, at every vertex order. The file is the original's, byte for byte (the
igraph project's test copy of ``ak 4102`` among the peer fixtures).
"""

from typing import BinaryIO

import numpy as np

from maxflow_cli.dimacs.writer import write_arcs, write_header
from maxflow_cli.generators.family import Family, Parameter, check_limits, check_size, text_size
from maxflow_cli.network import Network

TERMINAL_CAPACITY = 1_000_000  # the source's and the sink's arcs, fixed in the original
COMMENTS = ("very bad maxflow problem",)
LARGEST_N = (2**31 - 1 - 7) // 6  # the original prints 6n + 7 as a C int

PARAMETERS = (Parameter("n", "N: the gadgets' size (4N + 6 vertices, 6N + 7 arcs)", 2, LARGEST_N),)


def size(n: int, **_) -> tuple[int, int, int]:
    """Vertices 4n + 6, arcs 6n + 7, and the approximate file size."""
    return 4 * n + 6, 6 * n + 7, text_size(4 * n + 6, 6 * n + 7, n + 1)


def check(n: int) -> None:
    """Refuse n outside its limits or too large to read back."""
    check_limits("ak", PARAMETERS, dict(n=n))
    check_size("ak", *size(n)[:2])


def _arcs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tails, heads and capacities, 1-based as the original numbers them, in its order."""
    i = np.arange(n, dtype=np.int64)
    first = np.empty((2 * n, 3), np.int64)  # each path arc of the first gadget, then its tap
    first[0::2] = np.stack([i + 3, i + 4, n - i + 1], axis=1)
    first[1::2] = np.stack([i + 3, np.full(n, n + 4), np.ones(n, np.int64)], axis=1)
    ends = np.array([[n + 3, 2 * n + 4, 1], [n + 3, n + 4, 1]], np.int64)
    drain = np.stack([i + n + 4, i + n + 5, np.full(n, n + 1)], axis=1)
    d = 2 * n + 4
    along = np.arange(d, 2 * n + d + 1, dtype=np.int64)
    second = np.stack([along + 1, along + 2, np.full(along.size, n)], axis=1)
    mirrored = np.stack([i + d + 1, 2 * n + 2 - i + d, np.ones(n, np.int64)], axis=1)
    terminals = np.array([[1, 3], [1, d + 1], [d, 2], [4 * n + 6, 2]], np.int64)
    terminals = np.hstack([terminals, np.full((4, 1), TERMINAL_CAPACITY)])
    rows = np.vstack([first, ends, drain, second, mirrored, terminals])
    return rows[:, 0], rows[:, 1], rows[:, 2]


def make(n: int) -> Network:
    """The AK network in memory, arcs in file order (source 0, sink 1)."""
    check(n)
    tails, heads, caps = _arcs(n)
    return Network(4 * n + 6, 0, 1, (tails - 1).astype(np.int32), (heads - 1).astype(np.int32),
                   caps)


def write(stream: BinaryIO, n: int) -> None:
    """Write what ``ak n`` writes."""
    network = make(n)
    write_header(stream, network, COMMENTS)
    write_arcs(stream, network)


FAMILY = Family("ak", "AK (Cherkassky & Goldberg): two gadgets that take push-relabel "
                "Theta(n^2) work, no randomness", PARAMETERS, make, write, size, check)
