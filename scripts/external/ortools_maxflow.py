"""Solve the DIMACS max instance on stdin with OR-tools' SimpleMaxFlow, for `maxflow bench`.

    maxflow bench FILE --external ortools='python scripts/external/ortools_maxflow.py'

Prints the flow value as `s VALUE` and the CPU seconds of the solve call alone as
`c cut tm: SECONDS` (hi_pr's line), reading and building the graph left out. SimpleMaxFlow's
solve also turns its maximum preflow into a flow (its second phase), which hi_pr's `cut tm`
leaves out. Needs `pip install ortools` (not a dependency of maxflow).
"""

import sys
import time

from maxflow_cli.dimacs.reader import parse_network


def main() -> None:
    try:
        from ortools.graph.python.max_flow import SimpleMaxFlow
    except ImportError:
        sys.exit("ortools_maxflow.py needs OR-tools: pip install ortools")
    network, _ = parse_network(sys.stdin.buffer.read(), "<stdin>")
    solver = SimpleMaxFlow()
    solver.add_arcs_with_capacity(network.tails, network.heads, network.caps)
    started = time.process_time()
    status = solver.solve(network.source, network.sink)
    seconds = time.process_time() - started
    if status != solver.OPTIMAL:
        sys.exit(f"SimpleMaxFlow.solve returned status {status}, not OPTIMAL")
    print(f"s {solver.optimal_flow()}")
    print(f"c cut tm: {seconds:.4f}")


if __name__ == "__main__":
    main()
