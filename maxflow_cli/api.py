"""`maximum_flow`: the solvers called from Python on arrays or a scipy sparse matrix.

The CLI reads a file; this takes arcs as numpy arrays (0-based ids), checks them with errors
that say what and where, runs a registered solver and returns the value, a minimum cut and,
when asked, the flow on each input arc. scipy is optional: a sparse matrix is recognised by
its ``tocoo`` method.
"""

import time
from dataclasses import dataclass

import numpy as np

from maxflow_cli.check import min_cut_source_side
from maxflow_cli.errors import ParameterError
from maxflow_cli.jit import compile_shared
from maxflow_cli.limits import MAX_CAPACITY, MAX_VERTICES
from maxflow_cli.network import Network
from maxflow_cli.registry import DEFAULT_SOLVER, SolveOptions, get_solver


@dataclass(frozen=True)
class FlowResult:
    """A maximum flow: its value, a minimum cut, and the flow per input arc when asked."""

    flow_value: int
    source_side: np.ndarray  # bool[n]: the vertices that cannot reach the sink (a minimum cut)
    flows: np.ndarray | None  # int64[m] per input arc, in input order; None unless flow=True
    solver: str  # the solver whose answer this is (auto's or gpu-sync's race resolved)
    device: str
    times: dict[str, float]  # seconds per phase, compiling left out
    counters: dict[str, int]
    why: str = ""  # where solvers raced: what ran and which answered first


_prepared: set = set()  # (solver, device, want_flow) compiled in this process


def maximum_flow(*args, solver: str | None = None, device: str | None = None,
                 flow: bool = False, n: int | None = None,
                 params: dict | None = None) -> FlowResult:
    """Maximum flow of ``maximum_flow(tails, heads, capacities, source, sink)`` or
    ``maximum_flow(matrix, source, sink)`` (entry (i, j) = c: an arc i->j of capacity c).

    ``n`` defaults to the largest id + 1 (a matrix: its size); ``solver`` to the CLI's
    default; ``device`` ('cpu' or 'gpu') to the solver's; ``params`` are the solver's
    parameters by name (as its command-line flags: ``{"rivals": "none"}``). Bad input raises
    ValueError.
    """
    network = _network(args, n)
    spec, options = _solver(solver, device, flow, params or {})
    times = {}
    started = time.perf_counter()
    try:
        graph = spec.build(network, options.device)
    except ParameterError as error:  # the source's capacities sum past int64
        raise ValueError(str(error)) from None
    times["build"] = time.perf_counter() - started
    result = spec.solve(graph, options)
    times.update(result.times)
    started = time.perf_counter()
    source_side = min_cut_source_side(graph, result.res)
    times["cut"] = time.perf_counter() - started
    return FlowResult(result.flow_value, source_side, graph.flows(result.res) if flow else None,
                      result.winner or spec.name, options.device, times,
                      dict(result.counters), result.why)


def _solver(name: str | None, device: str | None, want_flow: bool, params: dict):
    """The solver's spec and resolved options, compiled once per process (outside times)."""
    try:
        spec = get_solver(name or DEFAULT_SOLVER)
        options = spec.resolve_where_asked(
            SolveOptions(want_flow=want_flow, device=device, params=params), "device='cpu'")
    except ParameterError as error:
        raise ValueError(str(error)) from None
    if spec.follower is not None:
        raise ValueError(f"solver '{spec.name}' runs on several processes under mpiexec: "
                         "use the command line")
    key = (spec.name, options.device, want_flow, tuple(sorted(options.params.items())))
    if key not in _prepared:
        if not _prepared:
            compile_shared()
        spec.prepare(options)
        _prepared.add(key)
    return spec, options


def _network(args: tuple, n: int | None) -> Network:
    """The checked Network of the positional arguments, in either form."""
    if len(args) == 3 and hasattr(args[0], "tocoo"):
        if n is not None:
            raise ValueError("n is the matrix's size: do not pass it with a matrix")
        matrix, source, sink = args
        if len(matrix.shape) != 2 or matrix.shape[0] != matrix.shape[1]:
            raise ValueError(f"the matrix must be square, not of shape {matrix.shape}")
        coo = matrix.tocoo()
        tails, heads, caps, n = coo.row, coo.col, coo.data, int(matrix.shape[0])
    elif len(args) == 5:
        tails, heads, caps, source, sink = args
    else:
        raise ValueError("call maximum_flow(tails, heads, capacities, source, sink) or "
                         f"maximum_flow(matrix, source, sink), not with {len(args)} arguments")
    tails, heads = _ids(tails, "tails"), _ids(heads, "heads")
    caps = _capacities(caps)
    if not tails.shape == heads.shape == caps.shape:
        raise ValueError(f"tails, heads and capacities differ in length: {tails.shape[0]}, "
                         f"{heads.shape[0]}, {caps.shape[0]}")
    source, sink = _vertex(source, "source"), _vertex(sink, "sink")
    if source == sink:
        raise ValueError(f"the source and the sink are the same vertex {source}")
    largest = max(source, sink, int(tails.max(initial=0)), int(heads.max(initial=0)))
    n = largest + 1 if n is None else _vertex(n, "n")
    if largest >= n:
        where = _first(tails >= n, tails, "tails") or _first(heads >= n, heads, "heads") \
            or f"the {'source' if source >= n else 'sink'} {max(source, sink)}"
        raise ValueError(f"{where} is not one of the {n} vertices (0..{n - 1})")
    if n > MAX_VERTICES:
        raise ValueError(f"{n} vertices: at most {MAX_VERTICES} are supported")
    return Network(n, source, sink, np.ascontiguousarray(tails, np.int32),
                   np.ascontiguousarray(heads, np.int32), caps)


def _first(mask: np.ndarray, values: np.ndarray, name: str) -> str:
    """'name[i] = value' of the first true entry of mask, or '' when none is."""
    hits = np.flatnonzero(mask)
    return f"{name}[{hits[0]}] = {values[hits[0]]}" if hits.size else ""


def _ids(values, name: str) -> np.ndarray:
    """A 1-D integer array of vertex ids, none negative (not copied when already one)."""
    ids = np.asarray(values)
    if ids.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {ids.shape}")
    if ids.size and ids.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integer vertex ids, not {ids.dtype}")
    if ids.size and ids.min() < 0:
        raise ValueError(f"{_first(ids < 0, ids, name)} is negative: ids are 0-based")
    if ids.size and ids.max() > MAX_VERTICES:
        raise ValueError(f"{_first(ids > MAX_VERTICES, ids, name)} is past {MAX_VERTICES}")
    return ids


def capacity_problem(caps: np.ndarray) -> tuple[int, str] | None:
    """The first capacity (by the first rule it breaks) that is not a finite integer in
    0..2^62, as (its index, what is wrong); None when all are. The API and the networkx
    backend both check their capacities with it, each naming the culprit in its own terms."""
    rules = []
    if caps.dtype.kind == "f":
        rules += [(~np.isfinite(caps), "is not finite"),
                  (caps != np.round(caps), "is not an integer")]
    rules += [(caps < 0, "is negative"), (caps > MAX_CAPACITY, "is above the limit 2^62")]
    for bad, problem in rules:
        hits = np.flatnonzero(bad)
        if hits.size:
            return int(hits[0]), problem
    return None


def _capacities(values) -> np.ndarray:
    """Capacities as C-contiguous int64 (not copied when already so), each in 0..2^62."""
    caps = np.asarray(values)
    if caps.ndim != 1:
        raise ValueError(f"capacities must be one-dimensional, not of shape {caps.shape}")
    if caps.size and caps.dtype.kind not in "iubf":
        raise ValueError(f"capacities must be integers, not {caps.dtype}")
    found = capacity_problem(caps)
    if found:
        i, problem = found
        hint = (": the solvers take integer capacities; scale them (multiply by 10^k and "
                "round) and divide the flow value back" if problem == "is not an integer" else "")
        raise ValueError(f"capacities[{i}] = {caps[i]} {problem}{hint}")
    return np.ascontiguousarray(caps, np.int64)


def _vertex(value, name: str) -> int:
    """A vertex id (or n) given as a Python or numpy integer, not negative."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} = {value} is negative: ids are 0-based")
    return int(value)
