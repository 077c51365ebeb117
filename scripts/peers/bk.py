"""Boykov-Kolmogorov through PyMaxflow (PyPI `PyMaxflow`, Kolmogorov's maxflow 3.0 code).

    python scripts/peers/bk.py FILE        (no --program: it needs `import maxflow`, PyMaxflow)

Builds a maxflow.Graph[int] in terminal form (peerlib.terminal_form, as the EIBFS adapter)
and prints as `c cut tm` the CPU time (time.process_time) of `maxflow()` alone; reading and
building the graph are `c convert tm`. PyMaxflow's int graph is 32-bit throughout: refuses
instances whose capacity out of s or into t passes 2^31-1.
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peerlib  # noqa: E402


def solve(args) -> None:
    try:
        import maxflow
    except ImportError:
        raise peerlib.PeerError("needs PyMaxflow: pip install PyMaxflow") from None
    started = peerlib.clock()
    graph = peerlib.load(args.file)
    peerlib.check_int32(graph, flows_too=True)
    form = peerlib.terminal_form(graph)
    g = maxflow.Graph[int](form.n, form.arc_caps.size)
    g.add_nodes(form.n)
    nodes = np.flatnonzero((form.source_caps != 0) | (form.sink_caps != 0))
    g.add_grid_tedges(nodes, form.source_caps[nodes], form.sink_caps[nodes])
    g.add_edges(form.arc_tails, form.arc_heads, form.arc_caps, np.zeros_like(form.arc_caps))
    converted = peerlib.clock() - started
    cpu = time.process_time()
    flow = g.maxflow()
    peerlib.report(int(flow), time.process_time() - cpu, converted)


def main() -> None:
    args = peerlib.parser(__doc__.splitlines()[0], program=False).parse_args()
    peerlib.main(lambda workdir: solve(args))


if __name__ == "__main__":
    main()
