"""Time a DIMACS instance as a networkx graph: the 'maxflow' backend against networkx's own
preflow_push, the conversion to the backend's arrays timed apart (the README's "From Python").

    python scripts/nx_backend_timing.py FILE [--skip-networkx]

Parallel arcs are merged into one edge of their summed capacity (a DiGraph holds one edge
per pair). The backend's solvers are compiled on a tiny graph first, as the CLI keeps compile
time out of its solve times.
"""

import argparse
import json
import time

import networkx as nx

from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.nx_backend import FlowGraph


def networkx_graph(path: str):
    """The instance as an nx.DiGraph with 'capacity' attributes, and its source and sink."""
    network, _ = read_network(path)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(network.n))
    for u, v, c in zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist()):
        if graph.has_edge(u, v):
            graph[u][v]["capacity"] += c
        else:
            graph.add_edge(u, v, capacity=c)
    return graph, network.source, network.sink


def timed(call):
    started = time.perf_counter()
    value = call()
    return value, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--skip-networkx", action="store_true")
    args = parser.parse_args()
    nx.maximum_flow_value(nx.DiGraph([(0, 1, {"capacity": 1})]), 0, 1, backend="maxflow")
    (graph, s, t), read = timed(lambda: networkx_graph(args.file))
    report = {"file": args.file, "nodes": graph.number_of_nodes(),
              "edges": graph.number_of_edges(), "read_into_networkx_s": read}
    converted, report["convert_s"] = timed(lambda: FlowGraph(graph))
    _, report["arrays_s"] = timed(lambda: converted.arcs("capacity"))
    report["backend_value"], report["backend_solve_s"] = timed(
        lambda: nx.maximum_flow_value(converted, s, t))
    _, report["backend_flow_dict_s"] = timed(lambda: nx.maximum_flow(converted, s, t))
    if not args.skip_networkx:
        report["networkx_value"], report["networkx_preflow_push_s"] = timed(
            lambda: nx.maximum_flow_value(graph, s, t))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
