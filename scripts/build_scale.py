"""Generation, build and search times of a generated instance, medians of several runs.

    python scripts/build_scale.py [PRESET] [RUNS]

Generates PRESET (seed 1) in memory RUNS times, builds its residual graph in each arc order
RUNS times, interleaved (warm: compiled first), and runs the certificate's search from the
sink over the capacities in parallel and on one thread (steps.reverse_bfs), RUNS times each.
Phase times and memory peaks of a whole solve come from `maxflow solve PRESET --json`.
"""

import statistics
import sys
import time
from functools import partial

import numba
import numpy as np

from maxflow_cli.check import SMALL_LEVEL, sink_distances
from maxflow_cli.errors import MaxflowError
from maxflow_cli.generators import PRESETS, make
from maxflow_cli.jit import compile_shared
from maxflow_cli.residual import ORDERS, build_residual
from maxflow_cli.steps import reverse_bfs


def timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def show(what: str, seconds: list[float]) -> None:
    print(f"  {what}: median {statistics.median(seconds):.3f} s (min {min(seconds):.3f}, "
          f"max {max(seconds):.3f}, {len(seconds)} runs)")


def main(preset="washington-rlg-long-1024x1536", runs="5"):
    chosen, runs = PRESETS[preset], int(runs)
    compile_shared()
    made = []  # the network last made: the one before is freed before the next is made

    def generate():
        made.clear()
        made.append(make(chosen.family, **chosen.params, seed=1))

    show("generate", [timed(generate) for _ in range(runs)])
    network = made.pop()
    print(f"{preset}: {network.n:,} vertices, {network.m:,} arcs, "
          f"{numba.get_num_threads()} threads")
    builds = {order: [] for order in ORDERS}
    for _ in range(runs):
        for order in ORDERS:
            builds[order].append(timed(partial(build_residual, network, order)))
    for order, seconds in builds.items():
        show(f"build in {order} order", seconds)
    graph = build_residual(network, ORDERS[-1])
    del network
    label, order = np.empty(graph.n, np.int32), np.empty(graph.n, np.int32)
    arrays = (graph.first, graph.head, graph.rev, graph.cap, graph.sink, label, order)
    threads = numba.get_num_threads()
    show("search, parallel", [timed(lambda: sink_distances(*arrays, threads, SMALL_LEVEL))
                              for _ in range(runs)])
    show("search, one thread", [timed(lambda: reverse_bfs(*arrays)) for _ in range(runs)])


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if len(arguments) > 2 or any(a.startswith("-") for a in arguments) or \
            (arguments[:1] and arguments[0] not in PRESETS) or \
            (arguments[1:] and not arguments[1].isdigit()):
        sys.exit(__doc__.split("\n\n")[1])
    try:
        main(*arguments)
    except MaxflowError as error:
        sys.exit(f"build_scale.py: {error}")
