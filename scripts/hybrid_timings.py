"""Time the parallel global relabel of the hybrids against the sequential one, in one run.

    python scripts/hybrid_timings.py [--json FILE]

Alvino 2015, Algorithm 13 (parallel_reverse_bfs on all threads) against the sequential
reverse_bfs, and He & Hong's Program 4 (parallel_global_relabel against global_relabel_cpu),
on washington-rlg-wide-1024 and genrmf-wide-64, initial and carrying flow (medians of 9,
timed alternately after a warm-up). Kept as a script because `maxflow bench` times whole
solve calls of registered solvers (and external programs) from a fresh state: it has no way
to call one function inside a solver, nor to hand it residuals carrying flow as a mid-solve
relabel sees them, and registering these functions as solvers would give them no maximum flow
to check. The solvers themselves are timed by `maxflow bench` (see the README's GPU section).
"""

import argparse
import json
import statistics
import time

import numba
import numpy as np

from maxflow_cli import generators
from maxflow_cli.pushrelabel.parallel_relabel import (
    Workspace,
    parallel_global_relabel,
    parallel_reverse_bfs,
)
from maxflow_cli.pushrelabel.relabel import global_relabel_cpu
from maxflow_cli.residual import build_residual
from maxflow_cli.steps import reverse_bfs

ALL = numba.config.NUMBA_NUM_THREADS


def graph_of(preset_name: str):
    """The residual graph of a generator preset, made with seed 1."""
    preset = generators.preset(preset_name)
    return build_residual(generators.make(preset.family, **preset.params, seed=1))


def paired_medians(first, second, repeats=9) -> tuple[float, float]:
    """Median seconds of two calls timed alternately, after one warm-up each, so that both
    see the same machine (the lent one's speed drifts between minutes)."""
    first(), second()
    samples = ([], [])
    for _ in range(repeats):
        for call, kept in zip((first, second), samples):
            started = time.perf_counter()
            call()
            kept.append(time.perf_counter() - started)
    return statistics.median(samples[0]), statistics.median(samples[1])


def carrying_flow(graph, seed=5):
    """Residuals as if a third of the arcs carried flow (half their capacity, a third of
    those all of it): reverse arcs open, as in a global relabel during a solve."""
    rng = np.random.default_rng(seed)
    res = graph.initial_residuals()
    forward = np.flatnonzero((graph.cap > 0) & (rng.random(res.shape[0]) < 1 / 3))
    sent = res[forward] // 2
    whole = rng.random(forward.shape[0]) < 1 / 3
    sent[whole] = res[forward][whole]
    res[graph.rev[forward]] += sent
    res[forward] -= sent
    return res


def bfs_speedups() -> list[dict]:
    """Alvino's Algorithm 13 BFS and He & Hong's whole Program 4 (violation cancellation, BFS,
    stranded excess; what the solvers call), sequential against all threads."""
    rows = []
    for name in ("washington-rlg-wide-1024", "genrmf-wide-64"):
        g = graph_of(name)
        space = Workspace(g)
        label, order = np.empty(g.n, np.int32), np.empty(g.n, np.int32)
        excess = np.random.default_rng(1).integers(0, 3, g.n).astype(np.int64)
        for state, res in (("initial", g.initial_residuals()), ("carrying flow", carrying_flow(g))):
            bfs = paired_medians(
                lambda: reverse_bfs(g.first, g.head, g.rev, res, g.sink, label, order),
                lambda: parallel_reverse_bfs(g.first, g.head, g.rev, res, g.sink, label,
                                             space.order, space.claimed, space.buffer, ALL))
            marked = np.zeros(g.n, np.bool_)

            def sequential():
                marked[:] = False
                global_relabel_cpu(g.first, g.head, g.rev, res, excess, label, g.source, g.sink,
                                   marked, order)

            def parallel():
                marked[:] = False
                parallel_global_relabel(g.first, g.head, g.rev, res, excess, label, g.source,
                                        g.sink, marked, space.order, space.claimed,
                                        space.buffer, space.active, ALL)

            program_4 = paired_medians(sequential, parallel)
            for what, (one, many) in (("BFS (Alg. 13)", bfs), ("Program 4", program_4)):
                rows.append({"instance": name, "state": state, "what": what, "sequential": one,
                             "parallel": many, "threads": ALL, "speedup": one / many})
                print(f"{what:14} {name} ({state}): sequential {one * 1e3:.2f} ms, {ALL} threads "
                      f"{many * 1e3:.2f} ms, speedup {one / many:.2f}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    rows = bfs_speedups()
    if args.json:
        with open(args.json, "w") as stream:
            json.dump({"threads": ALL, "bfs": rows}, stream, indent=1)


if __name__ == "__main__":
    main()
