"""Washington Random Level Graph: L levels of W vertices, each joined to 3 random vertices of
the next level, a source before the first level and a sink after the last.

Re-implements function 2 of Richard Anderson's ``washington`` generator (University of
Washington; version 2.2 semantics, DIMACS first implementation challenge, 1991) on glibc
``random()``, byte for byte on the same parameters and seed, including its output order (each
vertex's out-arcs newest first) and its comment line, which says [0, R] though level arcs get
capacities in [1, R]. Checked byte for byte against the original's outputs in
data/generator-vectors/ (the README's "Generating instances" has the fidelity notes).
"""

from typing import BinaryIO

import numba
import numpy as np

from maxflow_cli.dimacs.writer import write_network
from maxflow_cli.generators.family import Family, Parameter, check_limits, check_size, text_size
from maxflow_cli.generators.rng import glibc_next, glibc_seed
from maxflow_cli.limits import INT32_MAX
from maxflow_cli.network import Network

SEED = Parameter("seed", "seed; the original calls srandom(2|seed| + 1), so k and -k agree",
                 -(2**30 - 1), 2**30 - 1)
"""The seed of every washington function."""

PARAMETERS = (
    Parameter("rows", "W: vertices per level (each draws a random subset of 3 rows)", 3, INT32_MAX),
    Parameter("levels", "L: number of levels", 1, INT32_MAX),
    Parameter(
        "cap",
        "R: level arcs get capacities in [1, R], source and sink arcs 3R",
        1,
        INT32_MAX // 3,
        default=10000,
    ),
    SEED,
)


def size(rows: int, levels: int, cap: int, **_) -> tuple[int, int, int]:
    """Vertices W L + 2, arcs 2W + 3W(L - 1), and the approximate file size."""
    n, m = rows * levels + 2, 2 * rows + 3 * rows * (levels - 1)
    return n, m, text_size(n, m, cap)


def check(rows: int, levels: int, cap: int, seed: int) -> None:
    """Refuse parameters the original cannot turn into a valid network."""
    check_limits("washington-rlg", PARAMETERS, dict(rows=rows, levels=levels, cap=cap, seed=seed))
    n, m, _ = size(rows, levels, cap)
    check_size("washington-rlg", n, m)


@numba.njit(cache=True)
def _arcs(rows, levels, cap, seed):
    """Arcs in the original's output order; 0-based ids are its internal ids (file ids - 1)."""
    m = 2 * rows + 3 * rows * (levels - 1)
    tails = np.empty(m, np.int32)
    heads = np.empty(m, np.int32)
    caps = np.empty(m, np.int64)
    sink = rows * levels + 1
    # The source lists heads W, W-1, ..., 1 (newest first); each last-level vertex its sink arc.
    for t in range(rows):
        tails[t], heads[t], caps[t] = 0, rows - t, 3 * cap
        tails[m - rows + t], heads[m - rows + t], caps[m - rows + t] = (
            (levels - 1) * rows + t + 1,
            sink,
            3 * cap,
        )
    ring = glibc_seed(2 * abs(seed) + 1)
    draws = np.int64(0)  # not a literal, which would compile glibc_next once more
    chosen = np.empty(3, np.int64)
    k = rows
    for i in range(levels - 1):
        for j in range(1, rows + 1):
            kept = 0
            while kept < 3:  # Subset3: distinct rows in order of first appearance
                row = 1 + glibc_next(ring, draws) % rows
                draws += 1
                if row not in chosen[:kept]:
                    chosen[kept] = row
                    kept += 1
            for x in range(3):  # listed newest first: x2, x1, x0
                tails[k + 2 - x] = i * rows + j
                heads[k + 2 - x] = (i + 1) * rows + chosen[x]
                caps[k + 2 - x] = 1 + glibc_next(ring, draws) % cap
                draws += 1
            k += 3
    return tails, heads, caps


def make(rows: int, levels: int, cap: int, seed: int) -> Network:
    """The Washington-RLG network in memory, arcs in file order (source 0, sink W L + 1)."""
    check(rows, levels, cap, seed)
    tails, heads, caps = _arcs(rows, levels, cap, seed)
    return Network(rows * levels + 2, 0, rows * levels + 1, tails, heads, caps)


def write(stream: BinaryIO, rows: int, levels: int, cap: int, seed: int) -> None:
    """Write exactly what washington (function 2) writes for these parameters and seed."""
    comments = (
        "Random Leveled Graph",
        f"{rows} Rows, {levels} columns, capacities in range [0, {cap}]",
    )
    write_network(stream, make(rows, levels, cap, seed), comments)


FAMILY = Family("washington-rlg",
                "Washington random level graph: L levels of W vertices, 3 random arcs to the next "
                "level",
                PARAMETERS, make, write, size, check)
