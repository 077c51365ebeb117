"""Compile the shared Numba code once per process, timed, so that compile time (or loading
it from Numba's disk cache) stays out of the read, build and check times; and say so on a
terminal when compiling takes long, as it does on a first run."""

import contextlib
import sys
import threading
import time
from dataclasses import replace
from typing import Iterator

import numpy as np

from maxflow_cli.check import check_answer
from maxflow_cli.dimacs.reader import parse_network
from maxflow_cli.network import narrowed
from maxflow_cli.residual import ORDERS, build_residual
from maxflow_cli.result import SolveResult

_TINY = b"p max 3 2\nn 1 s\nn 3 t\na 1 2 4\na 2 3 5\n"

NOTICE_AFTER = 1.0
"""Seconds of compiling after which a terminal is told why nothing happens: loading from the
cache takes well under this, compiling a solver 10-25 s on a 2-core machine."""


def compile_shared() -> float:
    """Run the reader, the builder (in each arc order) and the certificate on a tiny network,
    with capacities as read (int64) and as generated (int32), and residuals as every solver
    gives them (int64) and as gpu-sync does (int32 or uint16); return seconds."""
    started = time.perf_counter()
    network, _ = parse_network(_TINY)
    for order in ORDERS:
        build_residual(network, order)
    for caps in (network.caps, narrowed(network.caps)):
        graph = build_residual(replace(network, caps=caps))
        for res_type in (np.int64, np.int32, np.uint16):
            check_answer(graph, SolveResult("none", 0, graph.initial_residuals(res_type), False))
    return time.perf_counter() - started


@contextlib.contextmanager
def compile_notice(what: str) -> Iterator[None]:
    """Around a compile step: when stderr is a terminal and the step is still running after
    NOTICE_AFTER seconds, say on stderr what is compiled and that it happens once."""
    if not sys.stderr.isatty():
        yield
        return
    stream = sys.stderr
    notice = threading.Timer(NOTICE_AFTER, lambda: print(
        f"maxflow: compiling {what} for this machine; this happens once (later runs load it "
        "from Numba's cache)...", file=stream, flush=True))
    notice.daemon = True
    notice.start()
    try:
        yield
    finally:
        notice.cancel()
