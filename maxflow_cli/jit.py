"""Compile the shared Numba code once per process, timed, so that compile time (or loading
it from Numba's disk cache) stays out of the read, build and check times."""

import time

from maxflow_cli.check import check_answer
from maxflow_cli.dimacs.reader import parse_network
from maxflow_cli.residual import build_residual
from maxflow_cli.result import SolveResult

_TINY = b"p max 3 2\nn 1 s\nn 3 t\na 1 2 4\na 2 3 5\n"


def compile_shared() -> float:
    """Run the reader, the builder and the certificate on a tiny network; return seconds."""
    started = time.perf_counter()
    network, _ = parse_network(_TINY)
    graph = build_residual(network)
    check_answer(graph, SolveResult("none", 0, graph.initial_residuals(), False))
    return time.perf_counter() - started
