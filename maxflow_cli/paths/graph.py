"""The graph every K-shortest-paths algorithm reads: a forward star (CSR) of arcs sorted by
tail, with integer lengths (Reis et al., section 4: Va, Da, Wa and Sa).

Inputs: a DIMACS shortest-path file (`p sp N M`, 9th DIMACS challenge) or an SNDlib network by
name (``sndlib:germany50``) from the `topohub` package. A path is a sequence of vertices, so
parallel arcs are merged into the shortest of them and self-loops (never on a loopless path)
are dropped.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from maxflow_cli.dimacs.reader import read_lengths
from maxflow_cli.errors import InputError, ParameterError
from maxflow_cli.limits import INT64_MAX

SNDLIB_PREFIX = "sndlib:"

SNDLIB_LENGTH_SCALE = 100
"""topohub gives an SNDlib link's length as `dist`, its great-circle length in km with two
decimals (from the nodes' coordinates); lengths here are integers, in units of 10 m."""


@dataclass(frozen=True)
class PathGraph:
    """Arc a goes from tail[a] to head[a] with length[a] >= 0; the arcs of vertex v are
    first[v] .. first[v + 1] - 1, by increasing head. `names` are the vertices' labels
    (1-based ids for DIMACS files, node names for SNDlib)."""

    n: int
    first: np.ndarray  # int32[n + 1]
    tail: np.ndarray  # int32[m]
    head: np.ndarray  # int32[m]
    length: np.ndarray  # int64[m]
    names: tuple[str, ...]

    @property
    def m(self) -> int:
        return int(self.head.shape[0])

    @classmethod
    def from_arcs(cls, n: int, tails, heads, lengths, names=None) -> "PathGraph":
        """The layout of arcs (tails[i], heads[i], lengths[i]), 0-based: self-loops dropped,
        parallel arcs merged into their shortest."""
        tails, heads = np.asarray(tails, np.int64), np.asarray(heads, np.int64)
        lengths = np.asarray(lengths, np.int64)
        keep = tails != heads
        tails, heads, lengths = tails[keep], heads[keep], lengths[keep]
        order = np.lexsort((lengths, heads, tails))
        tails, heads, lengths = tails[order], heads[order], lengths[order]
        first_of_pair = np.ones(tails.shape[0], bool)
        first_of_pair[1:] = (tails[1:] != tails[:-1]) | (heads[1:] != heads[:-1])
        tails, heads, lengths = tails[first_of_pair], heads[first_of_pair], lengths[first_of_pair]
        first = np.zeros(n + 1, np.int32)
        np.cumsum(np.bincount(tails, minlength=n), out=first[1:])
        return cls(n, first, tails.astype(np.int32), heads.astype(np.int32), lengths,
                   tuple(names) if names is not None else tuple(str(v + 1) for v in range(n)))

    def vertex(self, name: str) -> int:
        """The 0-based id of the vertex called `name`: a 1-based id, or an SNDlib node name."""
        if name in self._ids:
            return self._ids[name]
        raise ParameterError(f"no vertex {name!r} in the graph (vertices: "
                             f"{', '.join(self.names[:5])}{', ...' if self.n > 5 else ''})")

    @cached_property
    def _ids(self) -> dict[str, int]:
        return {name: v for v, name in enumerate(self.names)}

    def key_lengths(self) -> np.ndarray:
        """Lengths that rank paths by cost, then by number of arcs: length * n + 1. A loopless
        path has at most n - 1 arcs, so its key // n is its cost and key % n its arcs; every
        key is positive, so zero-length cycles cannot trap a search."""
        return self.length * self.n + 1


def load_graph(spec: str) -> PathGraph:
    """The graph named by `spec`: ``sndlib:NAME`` or a DIMACS shortest-path file."""
    if spec.startswith(SNDLIB_PREFIX):
        graph = sndlib_graph(spec[len(SNDLIB_PREFIX):])
    else:
        network = read_lengths(spec)
        graph = PathGraph.from_arcs(network.n, network.tails, network.heads, network.caps)
    _check_key_range(graph, spec)
    return graph


def sndlib_graph(name: str) -> PathGraph:
    """An SNDlib network shipped by topohub: every undirected link becomes two arcs, of the
    link's length (SNDLIB_LENGTH_SCALE)."""
    try:
        import topohub
    except ImportError:
        raise ParameterError("SNDlib networks need the topohub package "
                             "(pip install 'maxflow-dimacs[paths]')") from None
    try:
        topology = topohub.get(f"sndlib/{name}")
    except (KeyError, FileNotFoundError, OSError):
        raise ParameterError(f"no SNDlib network {name!r} in topohub "
                             f"(Table 1's: {', '.join(TABLE1_NETWORKS)})") from None
    ids = {node["id"]: v for v, node in enumerate(topology["nodes"])}
    edges = topology["edges"]
    tails = [ids[edge["source"]] for edge in edges]
    heads = [ids[edge["target"]] for edge in edges]
    lengths = [round(edge["dist"] * SNDLIB_LENGTH_SCALE) for edge in edges]
    if not topology.get("directed", False):
        tails, heads, lengths = tails + heads, heads + tails, lengths + lengths
    return PathGraph.from_arcs(len(ids), tails, heads, lengths,
                               [str(node.get("name", node["id"])) for node in topology["nodes"]])


TABLE1_NETWORKS = ("abilene", "cost266", "france", "germany50", "india35", "newyork", "norway",
                   "pioro40", "polska", "ta1", "zib54")
"""The SNDlib networks of Reis et al.'s Table 1, by their topohub names."""


def _check_key_range(graph: PathGraph, name: str) -> None:
    """Refuse lengths whose path keys (PathGraph.key_lengths) could overflow int64."""
    longest = int(graph.length.max(initial=0))
    if longest and (longest + 1) * graph.n * graph.n >= INT64_MAX // 2:
        raise InputError(name, None, f"lengths up to {longest} on {graph.n} vertices: a path's "
                                     "cost could overflow 64 bits")
