"""maxflow_cli.steps: the Numba steps below both pushrelabel/ and the kernels' twins; one
direction between those layers."""

import ast
from pathlib import Path

import numpy as np

import maxflow_cli
from maxflow_cli import kernels, steps
from maxflow_cli.limits import INT32_MAX
from maxflow_cli.network import Network
from maxflow_cli.residual import build_residual


def _imports(path: Path) -> set[str]:
    """The maxflow_cli modules a source file imports from."""
    tree = ast.parse(path.read_text(), str(path))
    return {node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module} | \
        {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
         for alias in node.names}


def test_the_kernels_import_nothing_of_pushrelabel_and_steps_neither_layer():
    for path in Path(kernels.__file__).parent.glob("*.py"):
        assert not {m for m in _imports(path) if m.startswith("maxflow_cli.pushrelabel")}, path
    layers = ("maxflow_cli.pushrelabel", "maxflow_cli.kernels", "maxflow_cli.solvers")
    assert not [m for m in _imports(Path(steps.__file__)) if m.startswith(layers)]
    relabel = Path(maxflow_cli.__file__).parent / "pushrelabel" / "relabel.py"
    assert "maxflow_cli.steps" in _imports(relabel)


def test_lowest_neighbour_skips_self_loops_and_saturated_arcs():
    graph = build_residual(Network.from_arcs(4, 0, 3, [(1, 1, 5), (1, 2, 4), (1, 3, 0)]))
    res = graph.initial_residuals()
    label = np.array([4, 0, 2, 1], np.int32)
    arc, lowest = steps.lowest_neighbour(1, graph.first, graph.head, res, label)
    assert (arc, lowest) == (graph.arc_of_input[1], 2)  # (1, 3) carries nothing; 1's own 0
    res[arc] = 0
    assert steps.lowest_neighbour(1, graph.first, graph.head, res, label) == (-1, INT32_MAX)


def test_reverse_bfs_labels_distances_to_the_sink():
    graph = build_residual(Network.from_arcs(4, 0, 3, [(0, 1, 1), (1, 2, 1), (2, 3, 1)]))
    label, order = np.empty(4, np.int32), np.empty(4, np.int32)
    reached = steps.reverse_bfs(graph.first, graph.head, graph.rev, graph.initial_residuals(),
                                graph.sink, label, order)
    assert reached == 4 and label.tolist() == [3, 2, 1, 0] and order.tolist() == [3, 2, 1, 0]
