"""The networkx backend `maxflow`: ``nx.maximum_flow(G, s, t, backend="maxflow")`` runs our solvers.

networkx finds it through the ``networkx.backends`` entry point, turns a graph into a FlowGraph
with ``convert_from_nx`` and calls the function of the same name here. Semantics follow
networkx's: a missing (or infinite) capacity is infinite, undirected edges are two arcs,
non-positive capacities carry nothing, an infinite s-t path raises NetworkXUnbounded.
Backend keywords: ``solver=``, ``device=`` (``flow_func`` may also name a solver) and
``params=`` (the solver's parameters by name).
"""

import math
import numbers
from collections import defaultdict, deque

import networkx as nx
import numpy as np

from maxflow_cli.api import capacity_problem
from maxflow_cli.api import maximum_flow as _array_maximum_flow
from maxflow_cli.limits import MAX_CAPACITY


class Arcs:
    """A graph's arcs under one capacity attribute: ids into FlowGraph.nodes, infinite marked."""

    def __init__(self, graph, index: dict, capacity: str):
        edges = list(graph.edges(data=capacity, default=math.inf))
        m = len(edges)
        tails = np.fromiter((index[u] for u, _, _ in edges), np.int64, m)
        heads = np.fromiter((index[v] for _, v, _ in edges), np.int64, m)
        infinite = np.fromiter((c == math.inf for _, _, c in edges), bool, m)
        caps = _capacities(edges, capacity)
        if not graph.is_directed():
            tails, heads = np.concatenate([tails, heads]), np.concatenate([heads, tails])
            caps, infinite = np.tile(caps, 2), np.tile(infinite, 2)
        self.tails, self.heads, self.caps, self.infinite = tails, heads, caps, infinite

    def bounded_caps(self, source: int, sink: int) -> np.ndarray:
        """Capacities with infinite ones replaced by the finite total + 1, more than any cut of
        finite arcs; NetworkXUnbounded when infinite arcs alone join source to sink."""
        if not self.infinite.any():
            return self.caps
        following = defaultdict(list)
        for u, v in zip(self.tails[self.infinite].tolist(), self.heads[self.infinite].tolist()):
            following[u].append(v)
        seen, queue = {source}, deque([source])
        while queue:
            for v in following[queue.popleft()]:
                if v == sink:
                    raise nx.NetworkXUnbounded("Infinite capacity path, flow unbounded above.")
                if v not in seen:
                    seen.add(v)
                    queue.append(v)
        big = sum(self.caps.tolist()) + 1
        if big > MAX_CAPACITY:
            raise ValueError("the finite capacities sum past 2^62: no finite stand-in for the "
                             "infinite ones fits")
        return np.where(self.infinite, big, self.caps)


def _capacities(edges: list, capacity: str) -> np.ndarray:
    """The finite capacities (0 for infinite ones and for those <= 0, which carry nothing in
    networkx); a non-number, or one that the API's check refuses (api.capacity_problem: not an
    integer, above 2^62), is a ValueError naming its edge."""
    values = [0 if c == math.inf else c for _, _, c in edges]
    caps = np.array(values).reshape(len(values))
    if caps.dtype.kind not in "iuf":  # numpy holds non-numbers and ints past int64 as objects
        if not all(isinstance(c, numbers.Real) for c in values):
            bad = next(i for i, c in enumerate(values) if not isinstance(c, numbers.Real))
            raise ValueError(f"{_edge(edges, bad, capacity)}: capacities must be numbers")
        caps = np.array([min(max(c, 0), MAX_CAPACITY + 1) for c in values])
    caps = np.maximum(caps, 0)
    found = capacity_problem(caps)
    if found:
        raise ValueError(f"{_edge(edges, found[0], capacity)}: capacities must be integers in "
                         "0..2^62 (scale them: multiply by 10^k and round, then divide the flow "
                         "value back)")
    return caps.astype(np.int64)


def _edge(edges: list, i: int, capacity: str) -> str:
    u, v, c = edges[i]
    return f"edge ({u!r}, {v!r}) has {capacity}={c!r}"


class FlowGraph:
    """A networkx graph as the backend holds it: the graph, its nodes by id, and its arcs per
    capacity attribute (built on first use, kept for later calls)."""

    __networkx_backend__ = "maxflow"

    def __init__(self, graph):
        if graph.is_multigraph():
            raise nx.NetworkXError("MultiGraph and MultiDiGraph not supported (yet).")
        self.graph = graph
        self.nodes = list(graph)
        self.index = {node: i for i, node in enumerate(self.nodes)}
        self._arcs: dict[str, Arcs] = {}

    def arcs(self, capacity: str) -> Arcs:
        if capacity not in self._arcs:
            self._arcs[capacity] = Arcs(self.graph, self.index, capacity)
        return self._arcs[capacity]


def _solve(G, s, t, capacity, flow_func, flow: bool, solver, device, kwargs):
    """Our solver on G (a FlowGraph or networkx graph) with networkx's checks and errors;
    ``params=`` (the solver's parameters by name) is the one further keyword taken."""
    params = kwargs.pop("params", None)
    if kwargs:
        raise NotImplementedError(f"the maxflow backend takes no {', '.join(kwargs)}")
    if isinstance(flow_func, str):
        solver = solver or flow_func  # a callable flow_func is networkx's own: ours runs
    graph = G if isinstance(G, FlowGraph) else FlowGraph(G)
    for node in (s, t):
        if node not in graph.index:
            raise nx.NetworkXError(f"node {node!s} not in graph")
    if s == t:
        raise nx.NetworkXError("source and sink are the same node")
    source, sink = graph.index[s], graph.index[t]
    arcs = graph.arcs(capacity)
    result = _array_maximum_flow(arcs.tails, arcs.heads, arcs.bounded_caps(source, sink),
                                 source, sink, n=len(graph.nodes), solver=solver,
                                 device=device, flow=flow, params=params)
    return graph, arcs, result


def _flow_dict(graph: FlowGraph, arcs: Arcs, flows: np.ndarray) -> dict:
    """networkx's flow dict: every edge, each pair's net flow on the arc it goes along."""
    net = defaultdict(int)
    for u, v, f in zip(arcs.tails.tolist(), arcs.heads.tolist(), flows.tolist()):
        if f:
            net[u, v] += f
            net[v, u] -= f
    flow_dict = {u: dict.fromkeys(graph.graph[u], 0) for u in graph.graph}
    for (u, v), f in net.items():
        if f > 0:
            flow_dict[graph.nodes[u]][graph.nodes[v]] = f
    return flow_dict


class BackendInterface:
    """What networkx's dispatcher calls: conversions and the four flow functions."""

    @staticmethod
    def convert_from_nx(G, *args, **kwargs):
        return FlowGraph(G)

    @staticmethod
    def convert_to_nx(result, *, name=None):
        return result  # every result is plain Python (numbers, dicts, sets)

    @staticmethod
    def can_run(name, args, kwargs):
        G = args[0] if args else kwargs.get("flowG")
        if isinstance(G, nx.Graph) and G.is_multigraph():
            return "multigraphs are not supported"
        return True

    @staticmethod
    def maximum_flow(G, s, t, capacity="capacity", flow_func=None, *, solver=None, device=None,
                     **kwargs):
        """(flow value, flow dict), as nx.maximum_flow."""
        graph, arcs, result = _solve(G, s, t, capacity, flow_func, True, solver, device, kwargs)
        return result.flow_value, _flow_dict(graph, arcs, result.flows)

    @staticmethod
    def maximum_flow_value(G, s, t, capacity="capacity", flow_func=None, *, solver=None,
                           device=None, **kwargs):
        """The flow value, as nx.maximum_flow_value."""
        return _solve(G, s, t, capacity, flow_func, False, solver, device, kwargs)[2].flow_value

    @staticmethod
    def minimum_cut(G, s, t, capacity="capacity", flow_func=None, *, solver=None, device=None,
                    **kwargs):
        """(cut value, (source side, sink side)), as nx.minimum_cut; the source side is every
        node that cannot reach t in the residual graph."""
        graph, _, result = _solve(G, s, t, capacity, flow_func, False, solver, device, kwargs)
        side = result.source_side
        return result.flow_value, ({graph.nodes[i] for i in np.flatnonzero(side)},
                                   {graph.nodes[i] for i in np.flatnonzero(~side)})

    @staticmethod
    def minimum_cut_value(G, s, t, capacity="capacity", flow_func=None, *, solver=None,
                          device=None, **kwargs):
        """The cut value, as nx.minimum_cut_value."""
        return _solve(G, s, t, capacity, flow_func, False, solver, device, kwargs)[2].flow_value
