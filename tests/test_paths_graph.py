"""The K-shortest-paths graph layout: parallel arcs merged, self-loops dropped, the CSR by
tail; SNDlib networks from topohub with both directions of every link; the key range."""

import pytest

from maxflow_cli.errors import InputError, ParameterError
from maxflow_cli.paths.graph import TABLE1_NETWORKS, PathGraph, load_graph, sndlib_graph


def test_parallel_arcs_keep_the_shortest_and_self_loops_go():
    graph = PathGraph.from_arcs(3, [1, 0, 0, 2, 0], [2, 1, 1, 2, 2], [4, 9, 3, 1, 5])
    assert graph.first.tolist() == [0, 2, 3, 3]
    assert list(zip(graph.tail.tolist(), graph.head.tolist(), graph.length.tolist())) == \
        [(0, 1, 3), (0, 2, 5), (1, 2, 4)]
    assert graph.key_lengths().tolist() == [10, 16, 13]


def test_every_table1_network_has_both_directions_of_its_links():
    sizes = {}
    for name in TABLE1_NETWORKS:
        graph = sndlib_graph(name)
        arcs = set(zip(graph.tail.tolist(), graph.head.tolist()))
        assert all((head, tail) in arcs for tail, head in arcs), name
        assert (graph.length > 0).all()
        sizes[name] = (graph.n, graph.m // 2)
    assert sizes["germany50"] == (50, 88) and sizes["abilene"] == (12, 15)


def test_vertices_by_name():
    graph = sndlib_graph("polska")
    assert graph.names[graph.vertex("Gdansk")] == "Gdansk"
    with pytest.raises(ParameterError, match="no vertex 'Atlantis'"):
        graph.vertex("Atlantis")


def test_lengths_that_could_overflow_a_path_cost_are_refused(tmp_path):
    path = tmp_path / "big.gr"
    path.write_text(f"p sp 3 1\na 1 2 {2**60}\n")
    with pytest.raises(InputError, match="overflow"):
        load_graph(str(path))
    path.write_text("p sp 3 1\na 1 2 7\n")
    assert load_graph(str(path)).length.tolist() == [7]
