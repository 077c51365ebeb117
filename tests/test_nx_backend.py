"""The networkx backend 'maxflow' against networkx's own preflow_push on hypothesis graphs:
directed and undirected, missing capacities, string labels, separate components; its flow
dicts and cuts checked, and networkx's errors kept."""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

from maxflow_cli.kernels.devices import gpu_unavailable  # noqa: E402
from maxflow_cli.nx_backend import FlowGraph  # noqa: E402  (needs networkx)


@pytest.fixture(autouse=True, scope="module")
def _quiet_cache():
    """Several calls on one graph reuse networkx's cached conversion, which it warns about."""
    nx.config.warnings_to_ignore.add("cache")
    yield
    nx.config.warnings_to_ignore.discard("cache")


@st.composite
def graphs(draw):
    """Small graphs with string labels, some capacities missing (infinite), often s and t in
    separate components; (graph, s, t)."""
    directed = draw(st.booleans())
    n = draw(st.integers(2, 8))
    names = [f"v{i}" for i in range(n)]
    graph = nx.DiGraph() if directed else nx.Graph()
    graph.add_nodes_from(names)
    vertex = st.sampled_from(names)
    capacity = st.one_of(st.none(), st.integers(0, 20), st.integers(2**40, 2**41))
    for u, v, c in draw(st.lists(st.tuples(vertex, vertex, capacity), max_size=3 * n)):
        graph.add_edge(u, v, **({} if c is None else {"capacity": c}))
    s, t = draw(st.lists(vertex, min_size=2, max_size=2, unique=True))
    return graph, s, t


def assert_valid_flow(graph, s, t, value, flow_dict):
    """networkx's flow dict: an entry per edge, 0 <= flow <= capacity, conservation."""
    assert {u: set(graph[u]) for u in graph} == {u: set(flow_dict[u]) for u in flow_dict}
    for u, v, c in graph.edges(data="capacity", default=float("inf")):
        assert 0 <= flow_dict[u][v] <= c
        if not graph.is_directed():
            assert 0 <= flow_dict[v][u] <= c
    balance = {u: sum(flow_dict[w].get(u, 0) for w in graph) - sum(flow_dict[u].values())
               for u in graph}
    assert balance[t] == value and balance[s] == -value
    assert all(balance[u] == 0 for u in graph if u not in (s, t))


def cut_capacity(graph, reachable, non_reachable):
    edges = graph.edges(data="capacity", default=float("inf"))
    return sum(c for u, v, c in edges if (u in reachable and v in non_reachable) or
               (not graph.is_directed() and v in reachable and u in non_reachable))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=graphs())
def test_agrees_with_networkx(case):
    graph, s, t = case
    try:
        expected = nx.maximum_flow_value(graph, s, t)
    except nx.NetworkXUnbounded:
        with pytest.raises(nx.NetworkXUnbounded):
            nx.maximum_flow_value(graph, s, t, backend="maxflow")
        return
    assert nx.maximum_flow_value(graph, s, t, backend="maxflow") == expected
    assert nx.minimum_cut_value(graph, s, t, backend="maxflow", solver="hpf") == expected
    value, flow_dict = nx.maximum_flow(graph, s, t, backend="maxflow")
    assert value == expected
    assert_valid_flow(graph, s, t, value, flow_dict)
    cut_value, (reachable, non_reachable) = nx.minimum_cut(graph, s, t, backend="maxflow")
    assert cut_value == expected
    assert reachable | non_reachable == set(graph) and not reachable & non_reachable
    assert s in reachable and t in non_reachable
    assert cut_capacity(graph, reachable, non_reachable) == expected


def test_capacity_attribute_name_and_solver_choice():
    graph = nx.DiGraph([("a", "b", {"w": 3}), ("b", "c", {"w": 2}), ("a", "c", {"w": 1})])
    assert nx.maximum_flow_value(graph, "a", "c", capacity="w", backend="maxflow") == 3
    assert nx.maximum_flow_value(graph, "a", "c", capacity="w", flow_func="hpf",
                                 backend="maxflow") == 3
    with pytest.raises(ValueError, match="unknown solver 'nope'"):
        nx.maximum_flow_value(graph, "a", "c", capacity="w", flow_func="nope",
                              backend="maxflow")
    with pytest.raises(ValueError, match="unknown solver 'nope'"):
        nx.maximum_flow_value(graph, "a", "c", "w", backend="maxflow", solver="nope")


def test_a_backend_graph_dispatches_by_itself():
    graph = nx.Graph([(1, 2, {"capacity": 4}), (2, 3, {"capacity": 6})])
    assert nx.maximum_flow_value(FlowGraph(graph), 1, 3) == 4


def test_infinite_path_is_unbounded():
    graph = nx.DiGraph([("s", "a"), ("a", "t"), ("s", "t", {"capacity": 2})])
    with pytest.raises(nx.NetworkXUnbounded):
        nx.maximum_flow(graph, "s", "t", backend="maxflow")
    graph["a"]["t"]["capacity"] = 5
    graph.__networkx_cache__.clear()
    assert nx.maximum_flow(graph, "s", "t", backend="maxflow")[0] == 7


def test_networkx_errors_are_kept():
    graph = nx.DiGraph([("s", "t", {"capacity": 1})])
    with pytest.raises(nx.NetworkXError, match="node x not in graph"):
        nx.maximum_flow_value(graph, "x", "t", backend="maxflow")
    with pytest.raises(nx.NetworkXError, match="source and sink are the same node"):
        nx.maximum_flow_value(graph, "s", "s", backend="maxflow")
    with pytest.raises(ValueError, match=r"edge \('a', 'b'\) has capacity=0.5: .* integers"):
        nx.maximum_flow_value(nx.DiGraph([("a", "b", {"capacity": 0.5})]), "a", "b",
                              backend="maxflow")
    with pytest.raises(ValueError, match=r"edge \(0, 1\) has capacity=nan: .* integers"):
        nx.maximum_flow_value(nx.DiGraph([(0, 1, {"capacity": math.nan})]), 0, 1,
                              backend="maxflow")
    with pytest.raises(ValueError, match=r"edge \(0, 1\) has capacity=4611686018427387905"):
        nx.maximum_flow_value(nx.DiGraph([(0, 1, {"capacity": 2**62 + 1})]), 0, 1,
                              backend="maxflow")
    with pytest.raises(ValueError, match="edge \\(0, 1\\) has capacity='x': .* numbers"):
        nx.maximum_flow_value(nx.DiGraph([(0, 1, {"capacity": "x"})]), 0, 1, backend="maxflow")
    with pytest.raises(ValueError, match=r"edge \(1, 2\) has capacity=18446744073709551616"):
        nx.maximum_flow_value(nx.DiGraph([(0, 1, {"capacity": -(2**70)}), (1, 2, {
            "capacity": 2**64})]), 0, 2, backend="maxflow")
    with pytest.raises(ValueError, match="the finite capacities sum past 2\\^62"):
        nx.maximum_flow_value(nx.DiGraph([(0, 1, {"capacity": 2**62}), (0, 2), (2, 1, {
            "capacity": 1})]), 0, 1, backend="maxflow")
    with pytest.raises(NotImplementedError) as raised:  # networkx's, ours as its cause
        nx.maximum_flow_value(graph, "s", "t", backend="maxflow", cutoff=3)
    assert "the maxflow backend takes no cutoff" in str(raised.value.__cause__)
    with pytest.raises(NotImplementedError):
        nx.maximum_flow_value(nx.MultiDiGraph([("s", "t")]), "s", "t", backend="maxflow")


@pytest.mark.gpu
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=graphs())
def test_gpu_backend_agrees_with_networkx(case):
    if gpu_unavailable():
        pytest.skip(gpu_unavailable())
    graph, s, t = case
    try:
        expected = nx.maximum_flow_value(graph, s, t)
    except nx.NetworkXUnbounded:
        return
    value, flow_dict = nx.maximum_flow(graph, s, t, backend="maxflow", flow_func="gpu-sync",
                                       device="gpu", params={"rivals": "none"})
    assert value == expected
    assert_valid_flow(graph, s, t, value, flow_dict)
    cut_value, (reachable, non_reachable) = nx.minimum_cut(graph, s, t, backend="maxflow",
                                                           device="gpu")
    assert cut_value == expected == cut_capacity(graph, reachable, non_reachable)
