"""Acyclic dense: the complete DAG on N vertices, arc p -> q for every p < q.

Re-implements ``ac`` (Gary Waissi's acyclic dense network generator, rewritten in C by João
Setubal, 1991, DIMACS first implementation challenge) on glibc ``random()``: capacities
``1 + random() % 1000000``, arcs in order p = 1..N-1, q = p+1..N. By default the output is
valid DIMACS; ``original_format`` adds the original's ``s <seed>`` line, which strict readers
refuse. Checked byte for byte against the original's outputs in data/generator-vectors/
(the README's "Generating instances" has the fidelity notes).
"""

from typing import BinaryIO

import numba
import numpy as np

from maxflow_cli.dimacs.writer import write_arcs, write_header
from maxflow_cli.generators.family import (
    Family,
    Flag,
    Parameter,
    check_limits,
    check_size,
    text_size,
)
from maxflow_cli.generators.rng import glibc_random
from maxflow_cli.limits import INT32_MAX
from maxflow_cli.network import Network

CAPACITY_RANGE = 1_000_000  # fixed in the original
COMMENTS = ("Fully Dense Acyclic Network", "for Max-Flow", "Arcs with random capacities")

PARAMETERS = (
    Parameter("n", "N: number of vertices (source 1, sink N)", 2, INT32_MAX),
    Parameter("seed", "seed of srandom (0 acts as 1, as in glibc)", 0, INT32_MAX),
)
FLAGS = (Flag("original_format", "also write the original's 's <seed>' line (not valid DIMACS)"),)


def size(n: int, **_) -> tuple[int, int, int]:
    """Vertices N, arcs N(N-1)/2, and the approximate file size."""
    m = n * (n - 1) // 2
    return n, m, text_size(n, m, CAPACITY_RANGE)


def check(n: int, seed: int) -> None:
    """Refuse parameters outside the limits or too large to read back."""
    check_limits("acyclic-dense", PARAMETERS, dict(n=n, seed=seed))
    check_size("acyclic-dense", *size(n)[:2])


@numba.njit(cache=True)
def _pairs(n):
    """Tails and heads of every pair p < q, in order p = 0..n-2, q = p+1..n-1."""
    tails = np.empty(n * (n - 1) // 2, np.int32)
    heads = np.empty(n * (n - 1) // 2, np.int32)
    k = 0
    for p in range(n - 1):
        for q in range(p + 1, n):
            tails[k], heads[k] = p, q
            k += 1
    return tails, heads


def make(n: int, seed: int) -> Network:
    """The acyclic dense network in memory, arcs in file order (source 0, sink N - 1)."""
    check(n, seed)
    tails, heads = _pairs(n)
    caps = glibc_random(seed, tails.size)
    caps %= CAPACITY_RANGE
    caps += 1
    return Network(n, 0, n - 1, tails, heads, caps)


def write(stream: BinaryIO, n: int, seed: int, original_format: bool = False) -> None:
    """Write what ``ac`` writes; without ``original_format``, minus its ``s <seed>`` line."""
    network = make(n, seed)
    write_header(stream, network, COMMENTS)
    if original_format:
        stream.write(b"s %d\n" % seed)
    write_arcs(stream, network)


FAMILY = Family("acyclic-dense",
                "Acyclic dense (ac): the complete DAG on N vertices, capacities in [1, 10^6]",
                PARAMETERS, make, write, size, check, flags=FLAGS)
