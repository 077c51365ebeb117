"""Solve the DIMACS max instance on stdin with python-igraph's maxflow_value, for `maxflow bench`.

    maxflow bench FILE --external igraph='python scripts/external/igraph_maxflow.py'

Prints the flow value as `s VALUE` and the CPU seconds of the maxflow_value call alone as
`c cut tm: SECONDS` (hi_pr's line), reading and building the graph left out. maxflow_value
stops at the maximum preflow, as hi_pr's stage 1 does. igraph keeps capacities as doubles, so
flow values above 2^53 may be rounded. Needs `pip install python-igraph` (not a dependency of
maxflow).
"""

import sys
import time

import numpy as np

from maxflow_cli.dimacs.reader import parse_network


def main() -> None:
    try:
        import igraph
    except ImportError:
        sys.exit("igraph_maxflow.py needs python-igraph: pip install python-igraph")
    network, _ = parse_network(sys.stdin.buffer.read(), "<stdin>")
    graph = igraph.Graph(n=network.n, edges=np.column_stack((network.tails, network.heads)),
                         directed=True)
    capacities = network.caps.astype(np.float64).tolist()
    started = time.process_time()
    value = graph.maxflow_value(network.source, network.sink, capacities)
    seconds = time.process_time() - started
    print(f"s {int(value)}")
    print(f"c cut tm: {seconds:.4f}")


if __name__ == "__main__":
    main()
