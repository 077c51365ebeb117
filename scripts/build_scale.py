"""Generation, build and search times of a generated instance, medians of several runs.

    python scripts/build_scale.py [INSTANCE] [RUNS]

Generates INSTANCE (a preset or a generator spec as `maxflow bench` takes them; seed 1 by
default) in memory RUNS times, builds its residual graph in each arc order
RUNS times, interleaved (warm: compiled first), and runs the certificate's search from the
sink over the capacities in parallel and on one thread (steps.reverse_bfs), RUNS times each.
Phase times and memory peaks of a whole solve come from `maxflow solve INSTANCE --json`.
"""

import statistics
import sys
import time
from functools import partial

import numba
import numpy as np

from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.check import SMALL_LEVEL, sink_distances
from maxflow_cli.errors import MaxflowError
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


def main(text="washington-rlg-long-1024x1536", runs="5"):
    instances, runs = parse_instance(text), int(runs)
    if len(instances) != 1 or instances[0].path is not None:
        raise MaxflowError(f"{text}: not one generated instance")
    compile_shared()
    made = []  # the network last made: the one before is freed before the next is made

    def generate():
        made.clear()
        made.append(instances[0].load()[0])

    show("generate", [timed(generate) for _ in range(runs)])
    network = made.pop()
    print(f"{text}: {network.n:,} vertices, {network.m:,} arcs, "
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
            (arguments[1:] and not arguments[1].isdigit()):
        sys.exit(__doc__.split("\n\n")[1])
    try:
        main(*arguments)
    except MaxflowError as error:
        sys.exit(f"build_scale.py: {error}")
