"""Time our Numba `hipr` stage 1 against a hi_pr binary you supply.

    python scripts/compare_hipr.py ./hi_pr genrmf.max wrlg.max [--runs 5]

The binary (Goldberg & Cherkassky's hi_pr 3.x, built e.g. with ``gcc -O3 -DNDEBUG``; not part
of this repository) is run as ``hi_pr < instance`` (a compressed instance decompressed first)
and read as ``maxflow bench --external`` reads it: its ``flow:`` and ``cut tm:`` lines, and
its ``pushes:``/``relabels:``/``updates:``/``gaps:`` lines when it prints them (-DPRINT_STAT).
hi_pr's ``cut tm`` is the user CPU time (getrusage) of its init() and stage 1,
printed with two decimals (sub-second times are coarse); ours is timed the same way: the user
CPU time of a stage-1-only solve (residuals copied, source arcs saturated, stage 1), not the
wall-clock ``stage1`` of ``maxflow solve``. CPU times suffer less than wall times from other
programs on the machine, and user time leaves out, on both sides, the kernel's time to map
fresh memory (ours allocates its residuals anew in every run).
For each instance: one warm-up of each side (ours compiles then), then `--runs` runs,
alternating hi_pr and ours so that machine noise hits both; the medians are reported.
Note that hi_pr's push count includes the initial saturation of the source arcs; ours does not.
"""

import argparse
import os
import resource
import statistics

from maxflow_cli.bench.external import DimacsInput, External, ExternalRun, RunFailed
from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.result import SolveResult
from maxflow_cli.solvers.hipr import solve_hipr

COUNTERS = ("pushes", "relabels", "global_updates", "gaps")
HIPR_COUNTERS = {"global_updates": "updates"}  # our counter -> hi_pr's name, where they differ


def run_hipr(hipr: External, dimacs: DimacsInput) -> ExternalRun:
    """One run of the binary, read as ``maxflow bench --external`` reads it: its flow value,
    its ``cut tm`` (times["stage1"]) and its counters."""
    try:
        run = hipr.run(None, dimacs)
    except RunFailed as error:
        raise SystemExit(f"{hipr.command} on {dimacs.path()}: {error}") from None
    if "stage1" not in run.times:
        raise SystemExit(f"{hipr.command} printed no 'cut tm:' line for {dimacs.path()}")
    return run


def run_ours(graph, options) -> tuple[float, SolveResult]:
    """One stage-1-only run of our hipr: its user CPU seconds and its result."""
    started = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    result = solve_hipr(graph, options)
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime - started, result


def compare(binary: str, path: str, runs: int) -> dict:
    network = read_network(path)[0]
    graph = build_residual(network)
    options = get_solver("hipr").resolve(SolveOptions())
    hipr = External("hi_pr", binary, (binary,))
    dimacs = DimacsInput(path, network)
    try:
        run_hipr(hipr, dimacs)  # warm-up (page cache)
        solve_hipr(graph, options)  # warm-up (Numba compilation)
        theirs, ours = [], []
        for _ in range(runs):
            theirs.append(run_hipr(hipr, dimacs))
            ours.append(run_ours(graph, options))
    finally:
        dimacs.close()
    return {
        "instance": os.path.basename(path), "n": graph.n, "m": graph.m,
        "flow_hipr": theirs[-1].flow_value, "flow_ours": ours[-1][1].flow_value,
        "hipr": statistics.median(r.times["stage1"] for r in theirs),
        "ours": statistics.median(seconds for seconds, _ in ours),
        "counters_hipr": [theirs[-1].counters.get(HIPR_COUNTERS.get(c, c)) for c in COUNTERS],
        "counters_ours": [ours[-1][1].counters[c] for c in COUNTERS],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hipr", help="path to a hi_pr binary (reads DIMACS on stdin)")
    parser.add_argument("instances", nargs="+", help="DIMACS max instance files")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each (default 5)")
    args = parser.parse_args()
    rows = [compare(args.hipr, path, args.runs) for path in args.instances]

    print(f"{'instance':<34}{'n':>9}{'m':>10}{'flow hi_pr':>13}{'flow ours':>13}"
          f"{'hi_pr cpu s':>13}{'ours cpu s':>12}{'ours/hi_pr':>11}")
    for r in rows:
        ratio = r["ours"] / r["hipr"] if r["hipr"] > 0 else float("inf")
        mark = "" if r["flow_hipr"] == r["flow_ours"] else "  FLOW DIFFERS"
        print(f"{r['instance']:<34}{r['n']:>9}{r['m']:>10}{r['flow_hipr']:>13}"
              f"{r['flow_ours']:>13}{r['hipr']:>13.2f}{r['ours']:>12.3f}{ratio:>11.2f}{mark}")
    print(f"\n{'counters (hi_pr / ours)':<34}" + "".join(f"{c:>24}" for c in COUNTERS))
    for r in rows:
        cells = [f"{'-' if h is None else h} / {o}"
                 for h, o in zip(r["counters_hipr"], r["counters_ours"])]
        print(f"{r['instance']:<34}" + "".join(f"{c:>24}" for c in cells))


if __name__ == "__main__":
    main()
