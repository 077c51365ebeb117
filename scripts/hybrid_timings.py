"""Time the parallel CPU pieces and the solvers of the hybrids' issue, in one run.

    python scripts/hybrid_timings.py [--limit SECONDS] [--json FILE]

1. Alvino 2015, Algorithm 13 (parallel_reverse_bfs on all threads) against the sequential
   reverse_bfs, on the initial residual graph of washington-rlg-wide-1024 and genrmf-wide-64
   (median of 5 after a warm-up).
2. `lockfree` on 1 thread and on all threads, on washington-rlg-wide-1024 and
   acyclic-dense-2000.
3. Stage-1 seconds of hipr, lockfree (all threads) and, where a GPU is there, `cuda`, at one
   paper size per family (He & Hong 2010 §VII; generator presets, seed 1), each certified and
   compared with hipr; speedup over hipr. Compilation is done first and kept out.
"""

import argparse
import json
import signal
import statistics
import time

import numba
import numpy as np

from maxflow_cli import generators
from maxflow_cli.check import check_answer
from maxflow_cli.kernels import gpu_unavailable
from maxflow_cli.residual import build_residual
from maxflow_cli.solvers import SolveOptions, get_solver
from maxflow_cli.solvers.parallel_relabel import Workspace, parallel_reverse_bfs
from maxflow_cli.solvers.relabel import reverse_bfs

FAMILY_PRESETS = ("acyclic-dense-2000", "genrmf-long-24x192", "genrmf-wide-64",
                  "washington-rlg-long-512x1024", "washington-rlg-wide-1024")
ALL = numba.config.NUMBA_NUM_THREADS


def graph_of(name: str):
    preset = generators.PRESETS[name]
    return build_residual(generators.make(preset.family, seed=1, **preset.params))


def median_seconds(call, repeats=5) -> float:
    call()
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def bfs_speedups(graphs: dict) -> list[dict]:
    rows = []
    for name in ("washington-rlg-wide-1024", "genrmf-wide-64"):
        g = graphs[name]
        res = g.initial_residuals()
        label, order = np.empty(g.n, np.int32), np.empty(g.n, np.int32)
        space = Workspace(g)
        sequential = median_seconds(lambda: reverse_bfs(g.first, g.head, g.rev, res, g.sink,
                                                        label, order))
        parallel = median_seconds(lambda: parallel_reverse_bfs(
            g.first, g.head, g.rev, res, g.sink, label, space.order, space.degree_end,
            space.buffer, ALL))
        rows.append({"instance": name, "sequential": sequential, "parallel": parallel,
                     "threads": ALL, "speedup": sequential / parallel})
        print(f"BFS {name}: sequential {sequential * 1e3:.2f} ms, {ALL} threads "
              f"{parallel * 1e3:.2f} ms, speedup {sequential / parallel:.2f}", flush=True)
    return rows


def _stop(signum, frame):
    raise TimeoutError


def run(solver: str, graph, params: dict, limit: int) -> dict:
    spec = get_solver(solver)
    options = spec.resolve(SolveOptions(False, None, params))
    signal.alarm(limit)
    try:
        result = spec.solve(graph, options)
    except TimeoutError:
        return {"solver": solver, "params": params, "timeout": limit}
    finally:
        signal.alarm(0)
    return {"solver": solver, "device": options.device, "params": params,
            "flow_value": result.flow_value, "certified": check_answer(graph, result).ok,
            "stage1": result.times["stage1"], "counters": result.counters}


def text(instance: str, row: dict, hipr: dict) -> str:
    label = f"{row['solver']} {row['params'] or ''}".strip()
    if "timeout" in row:
        return f"{instance:30} {label:28} > {row['timeout']} s"
    agree = row["flow_value"] == hipr.get("flow_value") and row["certified"]
    speedup = hipr["stage1"] / row["stage1"] if "stage1" in hipr else float("nan")
    rounds = row["counters"].get("rounds", "")
    return (f"{instance:30} {label:28} {row['flow_value']:>12} {'ok' if agree else 'WRONG':5} "
            f"{row['stage1']:9.3f} s  x{speedup:5.2f}  rounds {rounds}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=60, help="seconds per solve at most")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _stop)
    solvers = ["hipr", "lockfree"] + ([] if gpu_unavailable() else ["cuda"])
    for solver in solvers:
        spec = get_solver(solver)
        print(f"compile {solver}: {spec.prepare(spec.resolve(SolveOptions())):.1f} s",
              flush=True)
    graphs = {name: graph_of(name) for name in FAMILY_PRESETS}
    report = {"threads": ALL, "gpu": gpu_unavailable() or "yes",
              "bfs": bfs_speedups(graphs), "scaling": [], "solvers": []}
    for name in ("washington-rlg-wide-1024", "acyclic-dense-2000"):
        rows = [run("lockfree", graphs[name], {"threads": k}, args.limit) for k in (1, ALL)]
        report["scaling"].append({"instance": name, "rows": rows})
        if all("stage1" in row for row in rows):
            print(f"lockfree {name}: 1 thread {rows[0]['stage1']:.3f} s, {ALL} threads "
                  f"{rows[1]['stage1']:.3f} s, scaling {rows[0]['stage1'] / rows[1]['stage1']:.2f}",
                  flush=True)
    lines = []
    for name in FAMILY_PRESETS:
        family = generators.PRESETS[name].family
        hipr = run("hipr", graphs[name], {}, args.limit)
        rows = [hipr, run("lockfree", graphs[name], {"threads": ALL}, args.limit)]
        if "cuda" in solvers:
            cycles = 32 if family == "acyclic-dense" else 4096
            rows.append(run("cuda", graphs[name], {"kernel_cycles": cycles}, args.limit))
        report["solvers"].append({"instance": name, "rows": rows})
        for row in rows:
            lines.append(text(name, row, hipr))
            print(lines[-1], flush=True)
        if args.json:
            with open(args.json, "w") as stream:
                json.dump(report, stream, indent=1)
    print("\nstage 1, speedup over hipr:")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
