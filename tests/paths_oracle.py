"""An independent oracle for the K-shortest-paths tests: networkx's Yen
(`shortest_simple_paths`), and the checks every returned path must pass."""

import itertools

import networkx as nx


def oracle_costs(graph, s: int, t: int, k: int) -> list[int]:
    """The costs of the k shortest loopless s-t paths, by networkx, from the graph's arcs."""
    digraph = nx.DiGraph()
    digraph.add_nodes_from(range(graph.n))
    for a in range(graph.m):
        digraph.add_edge(int(graph.tail[a]), int(graph.head[a]), length=int(graph.length[a]))
    try:
        paths = list(itertools.islice(nx.shortest_simple_paths(digraph, s, t, "length"), k))
    except nx.NetworkXNoPath:
        return []
    return [nx.path_weight(digraph, path, "length") for path in paths]


def arc_lengths(arcs) -> dict:
    """The shortest length of each (tail, head) among (tail, head, length) arcs."""
    shortest = {}
    for tail, head, length in arcs:
        if tail != head:
            shortest[tail, head] = min(length, shortest.get((tail, head), length))
    return shortest


def assert_valid(paths, s: int, t: int, lengths: dict) -> None:
    """Every path goes from s to t along arcs of the graph, visits no vertex twice, costs what
    it claims; no path comes twice."""
    for cost, vertices in paths:
        assert vertices[0] == s and vertices[-1] == t, vertices
        assert len(set(vertices)) == len(vertices), f"a loop: {vertices}"
        assert cost == sum(lengths[u, v] for u, v in zip(vertices, vertices[1:])), vertices
    assert len({tuple(vertices) for _, vertices in paths}) == len(paths)
