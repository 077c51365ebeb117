"""Shared code of the peer adapters: run a peer max-flow program built from its own sources
on a DIMACS ``max`` file and print hi_pr-style lines for ``maxflow bench --external``.

Every adapter is called as ``python scripts/peers/PEER.py --program BINARY [options] [FILE]``
(FILE omitted or ``-``: the instance on stdin; gzip, bzip2 and xz files are read too). It
converts the instance into the peer's input format in a temporary directory when the peer needs
one (under ``maxflow bench``, once an instance: ``converted``), runs the program, and prints

    c flow: VALUE          the peer's flow value
    c cut tm: SECONDS      the peer's own solve time (what each adapter's docstring says)
    c convert tm: SECONDS  reading and converting the instance here (not in cut tm)
    c NAME: INTEGER        the peer's counters, where it prints some

It exits 1 with a one-line message on stderr when the peer fails, prints no value or the
instance cannot be read, and 2 when the instance is out of the peer's range (32-bit capacities
or flows).

Needs the project importable: ``maxflow_cli`` installed (as in the dev venv) or PYTHONPATH set
to the repository root (failing both, the repository this file lies in is tried, which still
needs the project's dependencies: numpy, numba). The instance is read by the project's own
reader, ``maxflow_cli.dimacs.reader.read_network`` (strict: the 'p' line's arc count must
match), and every conversion is done on its numpy arrays, with no loop per arc in Python.
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

try:
    import maxflow_cli  # noqa: F401
except ImportError:  # not installed: the repository this script lies in
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
try:
    from maxflow_cli.bench.external import INSTANCE_CACHE
    from maxflow_cli.dimacs import bbk
    from maxflow_cli.dimacs.reader import is_compressed, read_network  # noqa: F401 (wbpr.py)
    from maxflow_cli.dimacs.writer import write_network
    from maxflow_cli.errors import MaxflowError
    from maxflow_cli.limits import INT32_MAX, INT64_MAX
    from maxflow_cli.network import Network
except ImportError as missing:
    sys.exit(f"{os.path.basename(sys.argv[0])}: needs the maxflow_cli package and its "
             f"dependencies ({missing}): install the project or set PYTHONPATH to its root")


class PeerError(Exception):
    """The peer failed or printed no usable answer; exit code 1."""


class OutOfRange(Exception):
    """The instance is out of the peer's range; exit code 2."""


def exact_sum(values: np.ndarray) -> int:
    """The sum of non-negative int64 values as a Python int, exact however large: numpy's int64
    sum wraps past 2^63-1 (capacities go up to 2^62), so it is used only where it cannot."""
    if values.size == 0:
        return 0
    if int(values.max()) <= INT64_MAX // values.size:
        return int(values.sum(dtype=np.int64))
    return sum(values.tolist())


def terminal_sums(g: Network) -> tuple[int, int]:
    """(capacity out of s, capacity into t), self-loops left out: bounds of the flow value."""
    out_s = exact_sum(g.caps[(g.tails == g.source) & (g.heads != g.source)])
    in_t = exact_sum(g.caps[(g.heads == g.sink) & (g.tails != g.sink)])
    return out_s, in_t


def check_int32(g: Network, flows_too: bool = True) -> None:
    """OutOfRange unless every capacity fits a signed 32-bit integer and, with flows_too, the
    capacity out of s and into t do as well (the peer keeps excesses and the flow in 32 bits:
    a push-relabel peer puts all of out(s) on the source's neighbours, a pseudoflow peer all of
    in(t) on the sink's, so both must fit, not only the flow value min(out(s), in(t)) bounds)."""
    top = int(g.caps.max()) if g.m else 0
    if top > INT32_MAX:
        raise OutOfRange(f"capacity {top} exceeds 2^31-1, the peer's 32-bit capacities")
    if flows_too:
        out_s, in_t = terminal_sums(g)
        if max(out_s, in_t) > INT32_MAX:
            raise OutOfRange(f"capacity out of the source ({out_s}) or into the sink ({in_t}) "
                             f"exceeds 2^31-1; the peer's 32-bit excesses and flow may overflow "
                             f"(the flow is at most {min(out_s, in_t)})")


def write_pbbs_flow_graph(g: Network, path: str) -> None:
    """The PBBS binary flow graph (benchmarks/common/graphIO.h readFlowGraph): 'FLOWFLOW',
    then int64 little-endian n, m, S, T (0-based), n offsets into the arc list, and per arc
    (head, capacity), arcs grouped by tail in input order. Every arc is kept as it is."""
    n, m = g.n, g.m
    order = np.argsort(g.tails, kind="stable")  # stable: input order within a tail
    offsets = np.zeros(n, dtype="<i8")
    np.cumsum(np.bincount(g.tails, minlength=n)[:-1], out=offsets[1:])
    pairs = np.empty((m, 2), dtype="<i8")
    pairs[:, 0] = g.heads[order]
    pairs[:, 1] = g.caps[order]
    del order
    with open(path, "wb") as out:
        out.write(b"FLOWFLOW")
        np.array([n, m, g.source, g.sink], dtype="<i8").tofile(out)
        offsets.tofile(out)
        pairs.tofile(out)


@dataclass
class TerminalForm:
    """The instance as vision codes take it (BK, EIBFS): n inner nodes 0..n-1, per node its
    capacity from the source and to the sink (int64[n]), and arcs between inner nodes
    (arc_tails, arc_heads: int64 node ids; arc_caps: int64), in input order."""

    n: int
    source_caps: np.ndarray
    sink_caps: np.ndarray
    arc_tails: np.ndarray
    arc_heads: np.ndarray
    arc_caps: np.ndarray
    dropped: int  # arcs into s, out of t, and self-loops, left out


def _per_node(k: int, nodes: np.ndarray, caps: np.ndarray, what: str) -> np.ndarray:
    """int64[k]: the capacities summed per node, exactly; OutOfRange if a node's sum passes
    2^63-1. np.add.at in int64 wraps silently, so where the total could, the high and low 31
    bits of the capacities (at most 2^62 each, fewer than 2^30 arcs) are summed apart, where
    nothing can wrap, and each node's sum is checked before it is put together."""
    sums = np.zeros(k, dtype=np.int64)
    if exact_sum(caps) <= INT64_MAX:
        np.add.at(sums, nodes, caps)
        return sums
    high, low = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
    np.add.at(high, nodes, caps >> 31)
    np.add.at(low, nodes, caps & INT32_MAX)
    over = np.flatnonzero(high > (INT64_MAX - low) >> 31)
    if over.size:
        node = int(over[0])
        raise OutOfRange(f"the capacity {what} of one node sums to "
                         f"{(int(high[node]) << 31) + int(low[node])}, beyond 2^63-1")
    return (high << 31) + low


def terminal_form(g: Network) -> TerminalForm:
    """Arcs s->v become v's source capacity, v->t its sink capacity (parallel ones summed),
    u->v between other vertices stay arcs; arcs into s, out of t and self-loops are dropped
    (some maximum flow carries nothing on them: a flow decomposes into s-t paths, t-s paths
    and cycles; a maximum flow has no t-s path, and dropping the cycles keeps its value, and
    a simple s-t path never enters s or leaves t). An arc s->t of capacity c becomes an extra
    node with source and sink capacity c, whose c units the peer counts as flow. OutOfRange
    if a summed terminal capacity passes 2^63-1."""
    s, t, tails, heads, caps = g.source, g.sink, g.tails, g.heads, g.caps
    inner = np.ones(g.n, dtype=bool)
    inner[[s, t]] = False
    index = np.cumsum(inner, dtype=np.int64) - 1  # vertex -> inner node (s and t: unused)
    k = g.n - 2
    dropped = (tails == heads) | (heads == s) | (tails == t)
    from_s = (tails == s) & ~dropped
    to_t = (heads == t) & ~dropped
    direct = exact_sum(caps[from_s & to_t])
    only_s = from_s & ~to_t
    only_t = to_t & ~from_s
    kept = ~(dropped | from_s | to_t)
    source_caps = _per_node(k, index[heads[only_s]], caps[only_s], "out of the source")
    sink_caps = _per_node(k, index[tails[only_t]], caps[only_t], "into the sink")
    if direct > INT64_MAX:
        raise OutOfRange(f"the capacity from the source to the sink sums to {direct}, "
                         "beyond 2^63-1")
    if direct:
        source_caps = np.append(source_caps, np.int64(direct))
        sink_caps = np.append(sink_caps, np.int64(direct))
        k += 1
    return TerminalForm(k, source_caps, sink_caps, index[tails[kept]], index[heads[kept]],
                        caps[kept], int(np.count_nonzero(dropped)))


BBK_TERMINAL_TYPE, BBK_ARC_TYPE = bbk.TYPES.index("int64"), bbk.TYPES.index("int32")
BBK_TERMINAL, BBK_NEIGHBOR = bbk.records(BBK_TERMINAL_TYPE, BBK_ARC_TYPE)  # packed, 24 bytes


def write_bbk(form: TerminalForm, path: str) -> None:
    """An uncompressed binary BK file (patmjen/maxflow_algorithms, README 'Binary File
    Formats'): 'BBQ', type codes int32 (5) for arcs and int64 (7) for terminals, uint64
    num_nodes, num_terminal_arcs, num_neighbor_arcs, then BkTermArc<int64> (uint64 node,
    int64 source_cap, int64 sink_cap) per node with a terminal capacity and BkNborArc<int32>
    (uint64 i, uint64 j, int32 cap, int32 rev_cap) per arc; little-endian. OutOfRange if an
    arc capacity passes 2^31-1."""
    if form.arc_caps.size and int(form.arc_caps.max()) > INT32_MAX:
        raise OutOfRange(f"capacity {int(form.arc_caps.max())} exceeds 2^31-1, the .bbk "
                         "file's 32-bit arc capacities")
    nodes = np.flatnonzero((form.source_caps != 0) | (form.sink_caps != 0))
    terms = np.empty(nodes.size, dtype=BBK_TERMINAL)
    terms["node"] = nodes
    terms["source_cap"] = form.source_caps[nodes]
    terms["sink_cap"] = form.sink_caps[nodes]
    arcs = np.empty(form.arc_caps.size, dtype=BBK_NEIGHBOR)
    arcs["i"] = form.arc_tails
    arcs["j"] = form.arc_heads
    arcs["cap"] = form.arc_caps
    arcs["rev_cap"] = 0
    with open(path, "wb") as out:
        out.write(b"BBQ" + bytes([BBK_ARC_TYPE, BBK_TERMINAL_TYPE]))
        np.array([form.n, terms.size, arcs.size], dtype="<u8").tofile(out)
        terms.tofile(out)
        arcs.tofile(out)


def write_dimacs(g: Network, path: str) -> None:
    """The instance as a plain DIMACS max file (p, n and a lines only; 1-based ids), written
    by the project's writer."""
    with open(path, "wb") as out:
        write_network(out, g)


def run_program(argv: list, env: dict | None = None, timeout: float | None = None) -> str:
    """The program's stdout; PeerError if it cannot start, crashes or exits non-zero."""
    try:
        done = subprocess.run(argv, capture_output=True, env=env, timeout=timeout)
    except OSError as error:
        raise PeerError(f"cannot start {argv[0]}: {error.strerror}") from None
    except subprocess.TimeoutExpired:
        raise PeerError(f"{argv[0]} ran past {timeout:g} s") from None
    output = done.stdout.decode(errors="replace")
    if done.returncode != 0:
        why = (f"crashed with signal {-done.returncode}" if done.returncode < 0
               else f"exited with status {done.returncode}")
        tail = (done.stderr.decode(errors="replace") or output).strip().splitlines()
        raise PeerError(f"{os.path.basename(argv[0])} {why}"
                        + (f": {tail[-1][:200]}" if tail else ""))
    return output


def last_match(pattern: str, output: str, what: str) -> str:
    """The first group of the last match of pattern in output; PeerError if none."""
    found = re.findall(pattern, output, re.MULTILINE)
    if not found:
        raise PeerError(f"the peer printed no {what}")
    return found[-1]


def report(flow: int, cut_seconds: float, convert_seconds: float,
           counters: dict | None = None, extra: dict | None = None) -> None:
    """Print the hi_pr-style lines `maxflow bench --external` reads."""
    print(f"c flow: {flow}")
    print(f"c cut tm: {cut_seconds:.6f}")
    print(f"c convert tm: {convert_seconds:.6f}")
    for name, seconds in (extra or {}).items():
        print(f"c {name}: {seconds:.6f}")
    for name, value in (counters or {}).items():
        print(f"c {name}: {int(value)}")


def parser(description: str, program: bool = True) -> argparse.ArgumentParser:
    """The options every adapter takes: --program BINARY (unless program is False), --timeout,
    FILE."""
    p = argparse.ArgumentParser(description=description)
    if program:
        p.add_argument("--program", required=True,
                       help="the peer's binary, built from its sources")
    p.add_argument("--timeout", type=float, default=None, help="seconds before the peer is killed")
    p.add_argument("file", nargs="?", default="-", help="DIMACS max file (default: stdin)")
    return p


def load(path: str) -> Network:
    """Read the instance from path or stdin ('-'), plain or compressed, with the project's
    reader (its warnings, such as a skipped 's' seed line, are not shown); PeerError, one
    line, on a malformed or unreadable file."""
    try:
        network, _ = read_network(path)
    except MaxflowError as error:
        raise PeerError(f"cannot read the instance: {error}") from None
    except MemoryError:
        raise PeerError(f"cannot read the instance {path}: out of memory") from None
    return network


def converted(file: str, workdir: str, name: str, convert) -> tuple[str, float]:
    """The instance `file` in a peer's format: the path of a file that convert(network, path)
    wrote (its range checks first; `name` says what it holds and checked, as
    'checked-flows.flow'), and the seconds it took here. Under `maxflow bench`, which names
    a folder of the instance's own in MAXFLOW_INSTANCE_CACHE, the file is kept there (under
    `name` and the file's path, size and modification time) and the instance's next runs
    read it back without reading the DIMACS file again (2-3.5 s on 1-3 M arcs); elsewhere
    it goes in `workdir`."""
    started = clock()
    folder = os.environ.get(INSTANCE_CACHE)
    if not (folder and os.path.isdir(folder) and os.path.isfile(file)):  # stdin: file '-'
        path = os.path.join(workdir, name)
        convert(load(file), path)
        return path, clock() - started
    stat = os.stat(file)
    key = f"{os.path.abspath(file)}\0{stat.st_size}\0{stat.st_mtime_ns}"
    path = os.path.join(folder, f"{hashlib.sha1(key.encode()).hexdigest()[:16]}-{name}")
    if not os.path.exists(path):
        partial = f"{path}.{os.getpid()}.part"  # renamed whole: never half a file at path
        try:
            convert(load(file), partial)
            os.replace(partial, path)
        finally:
            if os.path.exists(partial):
                os.remove(partial)
    return path, clock() - started


def main(solve) -> None:
    """Run solve(args, workdir) -> None with the adapter's exit codes: 1 on PeerError, 2 on
    OutOfRange, each with a one-line message on stderr."""
    name = os.path.basename(sys.argv[0])
    try:
        with tempfile.TemporaryDirectory(prefix="peer-") as workdir:
            solve(workdir)
    except OutOfRange as error:
        print(f"{name}: out of range: {error}", file=sys.stderr)
        sys.exit(2)
    except PeerError as error:
        print(f"{name}: {error}", file=sys.stderr)
        sys.exit(1)


def clock() -> float:
    return time.perf_counter()
