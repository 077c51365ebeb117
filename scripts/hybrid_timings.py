"""Time the parallel CPU pieces and the solvers of the hybrids' issue, in one run.

    python scripts/hybrid_timings.py [--limit SECONDS] [--repeats R]
                                     [--parts bfs,scaling,solvers,sweep] [--json FILE]

1. bfs: Alvino 2015, Algorithm 13 (parallel_reverse_bfs on all threads) against the
   sequential reverse_bfs, and He & Hong's Program 4 (parallel_global_relabel against
   global_relabel_cpu), on washington-rlg-wide-1024 and genrmf-wide-64, initial and
   carrying flow (medians of 9, timed alternately after a warm-up).
2. scaling: `lockfree` on 1 thread and on all threads, on washington-rlg-wide-1024 and
   acyclic-dense-2000.
3. solvers: stage-1 seconds of hipr, lockfree (all threads) and, where a GPU is there, `cuda`,
   `hybrid` (all threads, and one) and `openmp-cuda`, at one paper size per family (He &
   Hong 2010 §VII; generator presets, seed 1), each certified and compared with hipr;
   speedup over hipr; rounds on the CPU and on the GPU. Every solver is compiled and run
   once on the instance before it is timed (warm-up), so compilation, kernel loading and
   first-touch costs stay out; then the solvers take turns, --repeats times, and each one's
   median is reported (speedups are ratios of medians measured in the same minutes).
4. sweep: openmp-cuda's --active-threshold (SWEEP) on every family, to find the crossover.
A solve past --limit seconds is abandoned at its next return to Python (gpu_timings.run_one).
"""

import argparse
import functools
import json
import signal
import statistics
import time

import numba
import numpy as np
from gpu_timings import _stop, graph_of, run_one, solver_params, within

from maxflow_cli import generators
from maxflow_cli.kernels import gpu_unavailable
from maxflow_cli.pushrelabel.parallel_relabel import (
    Workspace,
    parallel_global_relabel,
    parallel_reverse_bfs,
)
from maxflow_cli.pushrelabel.relabel import global_relabel_cpu, reverse_bfs
from maxflow_cli.registry import SolveOptions, get_solver

FAMILY_PRESETS = ("acyclic-dense-2000", "genrmf-long-24x192", "genrmf-wide-64",
                  "washington-rlg-long-512x1024", "washington-rlg-wide-1024")
ALL = numba.config.NUMBA_NUM_THREADS


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


def bfs_speedups(graph_named) -> list[dict]:
    """Alvino's Algorithm 13 BFS and He & Hong's whole Program 4 (violation cancellation, BFS,
    stranded excess; what the solvers call), sequential against all threads."""
    rows = []
    for name in ("washington-rlg-wide-1024", "genrmf-wide-64"):
        g = graph_named(name)
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


def warmed_up(solver: str, graph, params: dict, limit: int) -> bool:
    """One untimed solve (compilation, kernel loading, first touch); False past `limit`."""
    spec = get_solver(solver)
    options = spec.resolve(SolveOptions(False, None, params))
    return within(limit, lambda: spec.solve(graph, options)) is not None


def in_turns(graph, entries: list[tuple[str, dict]], limit: int, repeats: int) -> list[dict]:
    """Each (solver, params) warmed up, then all solved in turn `repeats` times: a row each,
    the last solve's, with its stage-1 seconds the median of all (each sample kept in
    "samples"), certified only if every solve was and gave the same value."""
    rows = [None if warmed_up(solver, graph, params, limit) else
            {"solver": solver, "params": params, "timeout": limit} for solver, params in entries]
    samples = [[] for _ in entries]
    for _ in range(repeats):
        for k, (solver, params) in enumerate(entries):
            if rows[k] is not None and "timeout" in rows[k]:
                continue
            row = run_one(solver, None, graph, params, limit)
            if "timeout" in row:
                rows[k] = row
                continue
            if rows[k] is not None:
                row["certified"] &= rows[k]["certified"] and \
                    row["flow_value"] == rows[k]["flow_value"]
            rows[k] = row
            samples[k].append(row["times"]["stage1"])
    for row, kept in zip(rows, samples):
        if "timeout" not in row:
            row["samples"] = kept
            row["times"]["stage1"] = statistics.median(kept)
    return rows


def text(instance: str, row: dict, hipr: dict) -> str:
    label = f"{row['solver']} {row.get('params') or ''}".strip()
    if "timeout" in row:
        return f"{instance:30} {label:36} > {row['timeout']} s"
    agree = row["flow_value"] == hipr.get("flow_value") and row["certified"]
    stage1 = row["times"]["stage1"]
    speedup = hipr["times"]["stage1"] / stage1 if "times" in hipr else float("nan")
    counters = row["counters"]
    rounds = counters.get("rounds", "")
    if "gpu_rounds" in counters:
        rounds = f"{rounds} (cpu {counters['cpu_rounds']}, gpu {counters['gpu_rounds']})"
    return (f"{instance:30} {label:36} {row['flow_value']:>12} {'ok' if agree else 'WRONG':5} "
            f"{stage1:9.3f} s  x{speedup:5.2f}  rounds {rounds}")


def family_params(solver: str, family: str) -> dict:
    """He & Hong's KERNEL_CYCLES (§VII) for their kernel; all threads for the parallel CPU
    code."""
    cycles = solver_params("cuda", family, None)
    if solver == "cuda":
        return cycles
    if solver == "hybrid":
        return cycles | {"threads": ALL}
    if solver in ("lockfree", "openmp-cuda"):
        return {"threads": ALL}
    return {}


def save(report: dict, path: str | None) -> None:
    """The report as JSON in `path`, if one was given."""
    if path:
        with open(path, "w") as stream:
            json.dump(report, stream, indent=1)


SWEEP = (0, 4000, 65536)  # and the default, 17000, with the solvers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=60, help="seconds per solve at most")
    parser.add_argument("--repeats", type=int, default=3, help="timed solves per solver")
    parser.add_argument("--parts", default="bfs,scaling,solvers,sweep")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    parts = args.parts.split(",")
    signal.signal(signal.SIGALRM, _stop)
    solvers = ["hipr", "lockfree"] + ([] if gpu_unavailable() else ["cuda", "hybrid",
                                                                      "openmp-cuda"])
    solving = "solvers" in parts or "sweep" in parts
    for solver in solvers if solving or "scaling" in parts else ():
        spec = get_solver(solver)
        print(f"compile {solver}: {spec.prepare(spec.resolve(SolveOptions())):.1f} s",
              flush=True)
    graph_named = functools.cache(graph_of)  # each made once, when a part first needs it
    report = {"threads": ALL, "gpu": gpu_unavailable() or "yes", "bfs": [], "scaling": [],
              "solvers": []}
    if "bfs" in parts:
        report["bfs"] = bfs_speedups(graph_named)
    for name in ("washington-rlg-wide-1024", "acyclic-dense-2000") if "scaling" in parts else ():
        rows = in_turns(graph_named(name), [("lockfree", {"threads": k}) for k in (1, ALL)],
                        args.limit, args.repeats)
        report["scaling"].append({"instance": name, "rows": rows})
        if all("times" in row for row in rows):
            one, all_ = (row["times"]["stage1"] for row in rows)
            print(f"lockfree {name}: 1 thread {one:.3f} s, {ALL} threads {all_:.3f} s, "
                  f"scaling {one / all_:.2f}", flush=True)
    lines = []
    for name in FAMILY_PRESETS if solving else ():
        family = generators.PRESETS[name].family
        entries = [("hipr", {})]
        if "solvers" in parts:
            entries += [(solver, family_params(solver, family)) for solver in solvers[1:]]
            if "hybrid" in solvers:  # He & Hong's sequential global relabel, for comparison
                entries.append(("hybrid", family_params("hybrid", family) | {"threads": 1}))
        if "sweep" in parts and "openmp-cuda" in solvers:
            entries += [("openmp-cuda", {"threads": ALL, "active_threshold": k}) for k in SWEEP]
        rows = in_turns(graph_named(name), entries, args.limit, args.repeats)
        hipr = rows[0]
        report["solvers"].append({"instance": name, "rows": rows})
        for row in rows:
            lines.append(text(name, row, hipr))
            print(lines[-1], flush=True)
        save(report, args.json)  # what is done so far, should a later solve hang
    save(report, args.json)
    if lines:
        print("\nstage 1, speedup over hipr:")
        print("\n".join(lines))


if __name__ == "__main__":
    main()
