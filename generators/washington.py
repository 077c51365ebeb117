"""Washington: Richard Anderson's ``washington`` generator (v2.2), all eleven functions.

Re-implements the program (University of Washington; DIMACS first implementation challenge,
1991; version 2.2 as Goldberg distributed it in 1999) on glibc ``random()``, byte for byte on
the same arguments and seed for functions 1-10. Every function builds its graph through the
original's AddEdge, whose per-vertex lists (new records prepended, a second u->v or a v->u
merged into the record already there) decide the file's arc order. Function 2 is the
washington-rlg family's code; function 3 writes the same arcs under its own first comment, as
the original does (it calls function 2's code). Function 11 (Cheriyan) crashes in the original,
so it is made as specified. Exact specification: docs WASHINGTON.md.
"""

from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator

import numba
import numpy as np

from maxflow_cli.dimacs.writer import write_network
from maxflow_cli.errors import ParameterError
from maxflow_cli.generators import washington_rlg
from maxflow_cli.generators.family import Family, Parameter, check_limits, check_size, text_size
from maxflow_cli.generators.rng import glibc_next, glibc_seed
from maxflow_cli.limits import INT32_MAX
from maxflow_cli.network import Network

WORDS = ("mesh", "rlg", "rlg2", "matching", "square-mesh", "basic-line", "exp-line", "dexp-line",
         "dinic-bad", "goldberg-bad", "cheriyan")
(MESH, RLG, RLG2, MATCHING, SQUARE_MESH, BASIC_LINE, EXP_LINE, DEXP_LINE, DINIC_BAD,
 GOLDBERG_BAD, CHERIYAN) = range(1, 12)

LINE_MAX = 1_000_000  # MAX of the line functions (6-8)
EXP_RANGES = np.array([1000000, 500000, 250000, 125000, 62500, 31250, 15625, 7812, 3906, 1953,
                       976, 488, 244, 122, 61, 31, 15, 7, 4, 2], np.int64)  # RANGE of 7 and 8
CHERIYAN_CAP = 10_000_000  # the Cheriyan gadgets' chain arcs and the sink arc

SHORT = 16
"""A list this short is scanned; a lookup between two longer ones indexes the tail's list."""

PARAMETERS = (
    Parameter(
        "function",
        "which graph: 1 mesh, 2 rlg (as washington-rlg), 3 rlg2 (rlg's arcs, its own comment: "
        "the original calls function 2's code), 4 matching, 5 square-mesh, 6 basic-line, "
        "7 exp-line, 8 dexp-line, 9 dinic-bad, 10 goldberg-bad, 11 cheriyan",
        1,
        11,
        words=WORDS,
    ),
    Parameter(
        "dim1",
        "DIM1: rows (mesh, rlg, rlg2, the lines), vertices n (matching, dinic-bad, "
        "goldberg-bad), side (square-mesh), bridge width n (cheriyan)",
        0,
        INT32_MAX,
    ),
    Parameter(
        "dim2",
        "DIM2: columns (mesh, rlg, rlg2, the lines), degree (matching, square-mesh), gadget taps "
        "m (cheriyan); unused by dinic-bad and goldberg-bad",
        0,
        INT32_MAX,
        default=0,
    ),
    Parameter(
        "range",
        "RANGE: capacities in [1, RANGE] (mesh, rlg, rlg2, square-mesh), degree (the lines), "
        "chain length c (cheriyan); unused by matching, dinic-bad and goldberg-bad",
        0,
        INT32_MAX,
        default=10000,
    ),
    washington_rlg.SEED,
)


# ---------------------------------------------------------------- the functions' tables


def _capacities(r: int) -> Iterator[tuple[bool, str]]:
    """Capacities drawn from [1, RANGE], source and sink arcs 3 RANGE, in a C int."""
    yield r < 1, "needs --range >= 1 (capacities are drawn from [1, RANGE])"
    yield 3 * r > INT32_MAX, f"needs --range <= {INT32_MAX // 3} (3 RANGE must fit a C int)"


def _mesh_needs(d1: int, d2: int, r: int) -> Iterator[tuple[bool, str]]:
    """Function 1 checks its sizes ("Degenerate graph")."""
    yield d1 < 2 or d2 < 2, "needs --dim1 >= 2 and --dim2 >= 2 (the original's Degenerate graph)"
    yield from _capacities(r)


def _rlg_needs(d1: int, d2: int, r: int) -> Iterator[tuple[bool, str]]:
    """Functions 2 and 3: washington-rlg's limits, in this family's option names."""
    yield d1 < 3, ("needs --dim1 >= 3 (each vertex draws Subset(1, DIM1, 3): the original's "
                   "Invalid range for Random Subset)")
    yield d2 < 1, "needs --dim2 >= 1 (levels)"
    yield from _capacities(r)


DEGENERATE = "needs --dim1 >= {} and --dim2 <= --dim1 (the original's Degenerate graph)"


def _matching_needs(d1: int, d2: int, r: int) -> Iterator[tuple[bool, str]]:
    """Function 4 checks its sizes ("Degenerate graph")."""
    yield d1 < 2 or d2 > d1, DEGENERATE.format(2)


def _square_mesh_needs(d1: int, d2: int, r: int) -> Iterator[tuple[bool, str]]:
    """Function 5 checks DIM1 >= DIM2 ("Degenerate graph"); DIM1 = 0 would make no arc."""
    yield d1 < 1 or d2 > d1, DEGENERATE.format(1)
    yield from _capacities(r)


def _line_needs(double: bool) -> Callable[[int, int, int], Iterator[tuple[bool, str]]]:
    """Functions 6-8: Subset's range, and the C ints deg MAX and i + x (and 2 m deg + 1)."""

    def needs(d1: int, d2: int, r: int) -> Iterator[tuple[bool, str]]:
        yield d1 < 1, "needs --dim1 >= 1 (rows of the line)"
        yield r < 1, "needs --range >= 1 (the degree)"
        yield d2 < 1, ("needs --dim2 >= 1 (each vertex draws Subset over DIM2 * RANGE values: "
                       "the original's Invalid range for Random Subset)")
        yield r * LINE_MAX > INT32_MAX, (f"needs --range <= {INT32_MAX // LINE_MAX} (the source "
                                         f"and sink arcs' capacity RANGE * {LINE_MAX} must fit "
                                         "a C int)")
        spread = 2 * r if double else r
        yield d2 * (d1 + spread) + 1 > INT32_MAX, ("needs DIM2 * (DIM1 + "
                                                   f"{'2 ' if double else ''}RANGE) + 1 to fit "
                                                   "a C int (the original's vertex arithmetic)")

    return needs


def _dinic_needs(d1: int, d2: int, r: int) -> Iterator[tuple[bool, str]]:
    """Function 9 checks nothing; below 2 vertices source and sink coincide."""
    yield d1 < 2, "needs --dim1 >= 2 (the source is vertex 1, the sink vertex DIM1)"


def _goldberg_needs(d1: int, d2: int, r: int) -> Iterator[tuple[bool, str]]:
    """Function 10 checks nothing; with 0 every capacity is 0."""
    yield d1 < 1, "needs --dim1 >= 1 (capacities are DIM1)"


def _cheriyan_needs(d1: int, d2: int, r: int) -> Iterator[tuple[bool, str]]:
    """Function 11: with c = 0 a gadget's m taps merge into one arc of capacity m n."""
    yield d1 < 1 or d2 < 1, "needs --dim1 >= 1 and --dim2 >= 1 (capacities n, m taps a gadget)"
    yield r == 0 and d1 * d2 > INT32_MAX, "needs DIM1 * DIM2 to fit a C int when --range is 0"


def _line_arcs(d1: int, d2: int, r: int) -> int:
    """Bound on functions 6-7's arcs: 2m, and min(deg, t) for the vertex t before the sink."""
    count, deg = d1 * d2, r
    inner = count * (count - 1) // 2 if count <= deg else deg * (deg - 1) // 2 + deg * (
        count - deg)
    return 2 * d2 + inner


@dataclass(frozen=True)
class Function:
    """One function of the original: its comment lines, its checks, and its size (vertices,
    arcs exact or a bound, and a typical capacity for the file size) from (DIM1, DIM2, RANGE)."""

    word: str
    comments: Callable[[int, int, int], tuple[str, str]]
    needs: Callable[[int, int, int], Iterator[tuple[bool, str]]]
    size: Callable[[int, int, int], tuple[int, int, int]]
    exact: bool = True  # whether size gives the arcs exactly, or an upper bound


def _mesh_comments(title: str) -> Callable[[int, int, int], tuple[str, str]]:
    """Functions 1-3's two comment lines, which differ in the title only."""
    return lambda d1, d2, r: (title, f"{d1} Rows, {d2} columns, capacities in range [0, {r}]")


def _line_comments(title: str) -> Callable[[int, int, int], tuple[str, str]]:
    """Functions 7 and 8's two comment lines (6 prints a literal d for the degree)."""
    return lambda d1, d2, r: (title, f"{d1} x {d2} vertices, degree {r}")


def _rlg_size(d1: int, d2: int, r: int) -> tuple[int, int, int]:
    """Functions 2 and 3: washington-rlg's counts."""
    n, m, _ = washington_rlg.size(rows=d1, levels=d2, cap=r)
    return n, m, r


FUNCTIONS: dict[int, Function] = {
    MESH: Function(
        "mesh", _mesh_comments("Mesh Graph"), _mesh_needs,
        lambda d1, d2, r: (d1 * d2 + 2, 2 * d1 + (3 if d1 > 2 else 2) * d1 * (d2 - 1), r)),
    RLG: Function("rlg", _mesh_comments("Random Leveled Graph"), _rlg_needs, _rlg_size),
    RLG2: Function("rlg2", _mesh_comments("Random 2 Leveled Graph"), _rlg_needs, _rlg_size),
    MATCHING: Function(
        "matching", lambda d1, d2, r: ("Matching Graph", f"{d1} vertices, {d2} degree"),
        _matching_needs, lambda d1, d2, r: (2 * d1 + 2, d1 * (d2 + 2), 1)),
    SQUARE_MESH: Function(
        "square-mesh",
        lambda d1, d2, r: ("Square Mesh", f"{d1} x {d1} vertices, {d2} degree, range [0,{r}]"),
        _square_mesh_needs,
        lambda d1, d2, r: (d1 * d1 + 2,
                           2 * d1 + (d1 - 1) * d1 * d2 - d2 * (d2 - 1) // 2, r)),
    BASIC_LINE: Function(
        "basic-line", lambda d1, d2, r: ("Basic Line Mesh", f"{d1} x {d2} vertices, degree d"),
        _line_needs(False), lambda d1, d2, r: (d1 * d2 + 2, _line_arcs(d1, d2, r), LINE_MAX),
        exact=False),
    EXP_LINE: Function(
        "exp-line", _line_comments("Exponential Line"), _line_needs(False),
        lambda d1, d2, r: (d1 * d2 + 2, _line_arcs(d1, d2, r), LINE_MAX), exact=False),
    DEXP_LINE: Function(
        "dexp-line", _line_comments("Double Exponential Line"), _line_needs(True),
        lambda d1, d2, r: (d1 * d2 + 2, 2 * d2 + d1 * d2 * min(r, d1 * d2 - 1), LINE_MAX),
        exact=False),
    DINIC_BAD: Function(
        "dinic-bad", lambda d1, d2, r: ("Line Graph - Bad case for Dinics", f"{d1} vertices"),
        _dinic_needs, lambda d1, d2, r: (d1, 2 * d1 - 3, d1)),
    GOLDBERG_BAD: Function(
        "goldberg-bad", lambda d1, d2, r: (" Bad case for Goldberg", f"{d1} vertices"),
        _goldberg_needs, lambda d1, d2, r: (3 * d1 + 3, 4 * d1 + 1, d1)),
    CHERIYAN: Function(
        "cheriyan",
        lambda d1, d2, r: (" Cheryian Graph",
                           f"n = {d1}, m = {d2}, c = {r}, total vertices {4 * d2 * r + 6 + d1} "),
        _cheriyan_needs,
        lambda d1, d2, r: (4 * d2 * r + 2 * d1 + 7,
                           (4 * d2 * (r + 1) if r else 4) + 3 * d1 + 3, CHERIYAN_CAP)),
}


def size(function: int, dim1: int, dim2: int, range: int, **_) -> tuple[int, int, int]:
    """Vertices (exact), arcs (exact but for the lines 6-8, where an upper bound within about
    RANGE / (2 DIM1) of the count: the last vertices lose the arcs past the sink), and the
    approximate file size."""
    n, m, capacity = FUNCTIONS[function].size(dim1, dim2, range)
    return n, m, text_size(n, m, capacity)


def check(function: int, dim1: int, dim2: int, range: int, seed: int) -> None:
    """Refuse what the original refuses (its Degenerate graph and Subset errors, decided from
    the parameters), what overflows its C ints, and networks too large or without an arc.
    No accepted parameters make a loop (the original's No Loops)."""
    values = dict(function=function, dim1=dim1, dim2=dim2, range=range, seed=seed)
    check_limits("washington", PARAMETERS, values)
    chosen = FUNCTIONS[function]
    for failed, message in chosen.needs(dim1, dim2, range):
        if failed:
            raise ParameterError(f"washington --function {chosen.word}: {message}")
    n, m, _ = size(function, dim1, dim2, range)
    check_size("washington", n, m)


# ---------------------------------------------------------------- AddEdge's lists, in Numba

VERTEX = np.dtype([("first", np.int32), ("size", np.int32), ("mark", np.int32),
                   ("marked_by", np.int32), ("bits", np.uint64)], align=True)
"""A vertex: its list's first record and length; mark, the record of the owner's list whose
head is this vertex (valid where marked_by is the owner); bits, a filter of its list's heads."""

RECORD = np.dtype([("head", np.int32), ("cap", np.int32), ("next", np.int32)])
"""A record of a list; records 2k and 2k + 1 are an arc and its mate. Every capacity, merged
or not, fits a C int as in the original (check refuses the rest)."""

USED, POSITIVE, OWNER, DRAWS = 0, 1, 2, 3  # the state: records made, of capacity > 0, owner,
# and random() outputs drawn


@numba.njit(cache=True)
def _bit(v):
    """v's bit in a list's filter (Fibonacci hashing to one of 64 bits)."""
    return np.uint64(1) << ((np.uint64(v) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(58))


@numba.njit(cache=True)
def _scan(vertices, records, u, v):
    """The record of u's list with head v, or -1, by walking the list."""
    r = vertices[u].first
    while r >= 0:
        if records[r].head == v:
            return r
        r = records[r].next
    return -1


@numba.njit(cache=True)
def _index(vertices, records, state, u):
    """Make u the owner: its list's records marked on their heads."""
    r = vertices[u].first
    while r >= 0:
        vertices[records[r].head].mark = r
        vertices[records[r].head].marked_by = u
        r = records[r].next
    state[OWNER] = u


@numba.njit(cache=True)
def _find(vertices, records, state, u, v):
    """u's record with head v, or -1. The filter rules most absences out at once; otherwise
    scan the shorter of u's and v's lists (v's holds the pair's other record), or index u's
    when both are long, so that hubs (a source, Goldberg's vertex 2, Cheriyan's bridge) and
    long runs of one tail (a high degree) stay linear."""
    if vertices[u].bits & _bit(v) == 0:
        return -1
    if state[OWNER] != u and min(vertices[u].size, vertices[v].size) > SHORT:
        _index(vertices, records, state, u)
    if state[OWNER] == u:
        return vertices[v].mark if vertices[v].marked_by == u else -1
    if vertices[u].size <= vertices[v].size:
        return _scan(vertices, records, u, v)
    r = _scan(vertices, records, v, u)
    return r ^ 1 if r >= 0 else -1


@numba.njit(cache=True)
def _prepend(vertices, records, state, u, r, v, c):
    """Record r (head v, capacity c) becomes the first of u's list; the owner's marks follow."""
    records[r].head = v
    records[r].cap = c
    records[r].next = vertices[u].first
    vertices[u].first = r
    vertices[u].size += 1
    vertices[u].bits |= _bit(v)
    if state[OWNER] == u:
        vertices[v].mark = r
        vertices[v].marked_by = u


@numba.njit(cache=True)
def _add_edge(vertices, records, state, u, v, c):
    """Anderson's washington v2.2, AddEdge(u, v, c): c joins u's record with head v (an arc, or
    the mate an earlier v->u left), else u->v is prepended to u's list and its 0 mate to v's."""
    r = _find(vertices, records, state, u, v)
    if r >= 0:
        if records[r].cap == 0 and c > 0:
            state[POSITIVE] += 1
        records[r].cap += c
        return
    r = state[USED]
    if r + 2 > records.size:
        raise IndexError("washington: more records than the size bound")
    state[USED] += 2
    _prepend(vertices, records, state, u, r, v, c)
    _prepend(vertices, records, state, v, r + 1, u, 0)
    if c > 0:
        state[POSITIVE] += 1


@numba.njit(cache=True)
def _file_order(vertices, records, state):
    """The records of capacity > 0, vertex by vertex, each list in order: the file's arcs."""
    tails = np.empty(state[POSITIVE], np.int32)
    heads = np.empty(state[POSITIVE], np.int32)
    caps = np.empty(state[POSITIVE], np.int64)
    k = 0
    for u in range(vertices.size):
        r = vertices[u].first
        while r >= 0:
            if records[r].cap > 0:
                tails[k], heads[k], caps[k] = u, records[r].head, records[r].cap
                k += 1
            r = records[r].next
    return tails, heads, caps


@numba.njit(cache=True)
def _ri(ring, state, lo, hi):
    """The original's RI(lo, hi) = lo + random() mod (hi - lo + 1)."""
    o = glibc_next(ring, state[DRAWS])
    state[DRAWS] += 1
    return lo + o % (hi - lo + 1)


@numba.njit(cache=True)
def _subset(ring, state, lo, hi, chosen, seen, stamp):
    """Subset(lo, hi, k = chosen.size): distinct RI(lo, hi) in order of first appearance,
    duplicates using up draws; seen[x - lo] == stamp marks those kept by this call."""
    kept = 0
    while kept < chosen.size:
        x = _ri(ring, state, lo, hi)
        if seen[x - lo] != stamp:
            seen[x - lo] = stamp
            chosen[kept] = x
            kept += 1


@numba.njit(cache=True)
def _terminal_arcs(vertices, records, state, first_level, sink, c):
    """Source to vertex i, then vertex sink - i to the sink, for i = 1..first_level."""
    for i in range(1, first_level + 1):
        _add_edge(vertices, records, state, 0, i, c)
        _add_edge(vertices, records, state, sink - i, sink, c)


@numba.njit(cache=True)
def _mesh(vertices, records, state, ring, d1, d2, r):
    """Anderson's washington v2.2, function 1 (Mesh): each vertex to the three nearest rows of
    the next column, rows wrapping round (with 2 rows, coinciding arcs merge)."""
    _terminal_arcs(vertices, records, state, d1, d1 * d2 + 1, 3 * r)
    for level in range(d2 - 1):
        b, c = level * d1, (level + 1) * d1
        for j in range(1, d1 + 1):
            for head in (c + (j + d1 - 2) % d1 + 1, c + j, c + j % d1 + 1):
                _add_edge(vertices, records, state, b + j, head, _ri(ring, state, 1, r))


@numba.njit(cache=True)
def _matching(vertices, records, state, ring, n, d):
    """Anderson's washington v2.2, function 4 (Matching): left vertex j to Subset(1, n, d) of
    the right side, unit capacities."""
    _terminal_arcs(vertices, records, state, n, 2 * n + 1, 1)
    chosen = np.empty(d, np.int64)
    seen = np.full(n, -1, np.int64)
    for j in range(1, n + 1):
        _subset(ring, state, 1, n, chosen, seen, j)
        for x in chosen:
            _add_edge(vertices, records, state, j, n + x, 1)


@numba.njit(cache=True)
def _square_mesh(vertices, records, state, ring, d, deg, r):
    """Anderson's washington v2.2, function 5 (Square Mesh): vertex j of row i to vertices
    j..j+deg-1 of row i + 1, counting on into later rows, none past the last vertex."""
    last = d * d
    _terminal_arcs(vertices, records, state, d, last + 1, 3 * r)
    for i in range(d - 1):
        for j in range(1, d + 1):
            for k in range(deg):
                if (i + 1) * d + j + k <= last:
                    _add_edge(vertices, records, state, i * d + j, (i + 1) * d + j + k,
                              _ri(ring, state, 1, r))


@numba.njit(cache=True)
def _line(vertices, records, state, ring, n, m, deg, function):
    """Anderson's washington v2.2, functions 6-8 (Basic, Exponential and Double Exponential
    Line): vertex i to i + x for x in a Subset of [1, m deg] (8: [-m deg, m deg], x != 0),
    capacity from [1, MAX] (7 and 8: [1, RANGE[|x - 1| / m]], less for longer arcs)."""
    sink = n * m + 1
    _terminal_arcs(vertices, records, state, m, sink, deg * LINE_MAX)
    lo = -m * deg if function == DEXP_LINE else 1
    chosen = np.empty(deg, np.int64)
    seen = np.full(m * deg - lo + 1, -1, np.int64)
    for i in range(1, sink):
        _subset(ring, state, lo, m * deg, chosen, seen, i)
        for x in chosen:
            if 0 < i + x < sink and x != 0:
                q = abs(x - 1) // m  # C's division truncates: |(x - 1) / m|
                top = LINE_MAX if function == BASIC_LINE else EXP_RANGES[q if q < 20 else 0]
                _add_edge(vertices, records, state, i, i + x, _ri(ring, state, 1, top))


@numba.njit(cache=True)
def _dinic_bad(vertices, records, state, n):
    """Anderson's washington v2.2, function 9 (Dinic's bad case): the path 0..n-1 of capacity
    n, and a unit arc from each of its first n - 2 vertices to the sink."""
    for i in range(n - 1):
        _add_edge(vertices, records, state, i, i + 1, n)
    for i in range(n - 2):
        _add_edge(vertices, records, state, i, n - 1, 1)


@numba.njit(cache=True)
def _goldberg_bad(vertices, records, state, n):
    """Anderson's washington v2.2, function 10 (Goldberg's bad case): 0 -> 1 -> n vertices,
    each by a unit arc to its own vertex, all into 2n + 2, then a path of n arcs to the sink."""
    _add_edge(vertices, records, state, 0, 1, n)
    for i in range(2, n + 2):
        _add_edge(vertices, records, state, 1, i, n)
        _add_edge(vertices, records, state, i, i + n, 1)
        _add_edge(vertices, records, state, i + n, 2 * n + 2, n)
    for i in range(2 * n + 2, 3 * n + 2):
        _add_edge(vertices, records, state, i, i + 1, n)


@numba.njit(cache=True)
def _gadget(vertices, records, state, a, b, n, m, c, fresh):
    """Cheriyan's Gadget(a, b): a chain of m c new vertices into b, a tapping every c-th with
    capacity n; returns the next new vertex."""
    v = b
    for _ in range(m):
        for _ in range(c):
            w, v = v, fresh
            fresh += 1
            _add_edge(vertices, records, state, v, w, CHERIYAN_CAP)
        _add_edge(vertices, records, state, a, v, n)
    return fresh


@numba.njit(cache=True)
def _cheriyan(vertices, records, state, n, m, c):
    """Anderson's washington v2.2, function 11 (Cheriyan's graph), as specified (the original
    crashes): gadgets 0 => 1, 0 => 2, 1 => 3, 2 => 3, a bridge 1 => 2 of n unit paths, 3 -> t."""
    fresh = 4
    for a, b in ((0, 1), (0, 2), (1, 3), (2, 3)):
        fresh = _gadget(vertices, records, state, a, b, n, m, c, fresh)
    v1, v2 = fresh, fresh + 1
    fresh += 2
    _add_edge(vertices, records, state, 1, v1, n)
    _add_edge(vertices, records, state, v2, 2, n)
    for _ in range(n):
        v, w = fresh, fresh + 1
        fresh += 2
        _add_edge(vertices, records, state, v1, v, n)
        _add_edge(vertices, records, state, w, v2, n)
        _add_edge(vertices, records, state, v, w, 1)
    _add_edge(vertices, records, state, 3, fresh, CHERIYAN_CAP)


@numba.njit(cache=True)
def _build(function, vertices, records, d1, d2, r, seed):
    """Function ``function`` (not 2 or 3) through AddEdge on empty lists; the arcs in file
    order, 0-based."""
    state = np.zeros(4, np.int64)
    state[OWNER] = -1
    ring = glibc_seed(2 * abs(seed) + 1)
    if function == MESH:
        _mesh(vertices, records, state, ring, d1, d2, r)
    elif function == MATCHING:
        _matching(vertices, records, state, ring, d1, d2)
    elif function == SQUARE_MESH:
        _square_mesh(vertices, records, state, ring, d1, d2, r)
    elif function == DINIC_BAD:
        _dinic_bad(vertices, records, state, d1)
    elif function == GOLDBERG_BAD:
        _goldberg_bad(vertices, records, state, d1)
    elif function == CHERIYAN:
        _cheriyan(vertices, records, state, d1, d2, r)
    else:
        _line(vertices, records, state, ring, d1, d2, r, function)
    return _file_order(vertices, records, state)


# ---------------------------------------------------------------- the family


def make(function: int, dim1: int, dim2: int, range: int, seed: int) -> Network:
    """The network in memory, arcs in file order (source 0, sink the last vertex)."""
    check(function, dim1, dim2, range, seed)
    if function in (RLG, RLG2):
        return washington_rlg.make(rows=dim1, levels=dim2, cap=range, seed=seed)
    n, m, _ = FUNCTIONS[function].size(dim1, dim2, range)
    vertices = np.zeros(n, VERTEX)
    vertices["first"] = vertices["marked_by"] = -1
    # Every AddEdge has capacity > 0 here, so each pair of records prints at least one arc.
    records = np.empty(2 * m, RECORD)
    tails, heads, caps = _build(function, vertices, records, dim1, dim2, range, seed)
    return Network(n, 0, n - 1, tails, heads, caps)


def write(stream: BinaryIO, function: int, dim1: int, dim2: int, range: int, seed: int) -> None:
    """Write exactly what washington v2.2 writes for these arguments (function 11: as
    specified, its comment keeping the original's vertex count 4 m c + n + 6)."""
    if function == RLG:
        washington_rlg.write(stream, rows=dim1, levels=dim2, cap=range, seed=seed)
        return
    network = make(function, dim1, dim2, range, seed)
    write_network(stream, network, FUNCTIONS[function].comments(dim1, dim2, range))


# bytes_per_arc: AddEdge's record lists (two 12-byte records an arc) beside the network
FAMILY = Family("washington",
                "Washington (Anderson, v2.2): mesh, rlg, rlg2, matching, square-mesh, basic-, exp- "
                "and dexp-line, Dinic's and Goldberg's bad cases, Cheriyan's graph (--function)",
                PARAMETERS, make, write, size, check, bytes_per_arc=64)
