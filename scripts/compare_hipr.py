"""Time our Numba `hipr` stage 1 against a hi_pr binary you supply.

    python scripts/compare_hipr.py ./hi_pr genrmf.max wrlg.max [--runs 5]

The binary (Goldberg & Cherkassky's hi_pr 3.x, built e.g. with ``gcc -O3 -DNDEBUG``; not part
of this repository) is run as ``hi_pr < instance``; its ``flow:`` and ``cut tm:`` lines are
read, and its ``pushes:``/``relabels:``/``updates:``/``gaps:`` lines when it prints them
(-DPRINT_STAT). hi_pr's ``cut tm`` is the user CPU time (getrusage) of its init() and stage 1,
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
import re
import resource
import statistics
import subprocess

from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.result import SolveResult
from maxflow_cli.solvers.hipr import solve_hipr

HIPR_FIELDS = {"flow": "flow", "cut tm": "time", "pushes": "pushes", "relabels": "relabels",
               "updates": "global_updates", "gaps": "gaps"}
COUNTERS = ("pushes", "relabels", "global_updates", "gaps")


def run_hipr(binary: str, path: str) -> dict:
    """One run of the binary on `path`: its flow, cut time and counters (last value printed)."""
    with open(path, "rb") as stream:
        done = subprocess.run([binary], stdin=stream, capture_output=True, text=True,
                              check=True)
    out = done.stdout + done.stderr
    found = {}
    for label, key in HIPR_FIELDS.items():
        values = re.findall(rf"^c?\s*{label}:\s*([0-9.]+)", out, re.MULTILINE)
        if values:
            found[key] = float(values[-1])
    if "flow" not in found or "time" not in found:
        raise SystemExit(f"{binary} printed no 'flow:' / 'cut tm:' line for {path}:\n{out}")
    return found


def run_ours(graph, options) -> tuple[float, SolveResult]:
    """One stage-1-only run of our hipr: its user CPU seconds and its result."""
    started = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    result = solve_hipr(graph, options)
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime - started, result


def compare(binary: str, path: str, runs: int) -> dict:
    graph = build_residual(read_network(path)[0])
    options = get_solver("hipr").resolve(SolveOptions())
    run_hipr(binary, path)  # warm-up (page cache)
    solve_hipr(graph, options)  # warm-up (Numba compilation)
    theirs, ours = [], []
    for _ in range(runs):
        theirs.append(run_hipr(binary, path))
        ours.append(run_ours(graph, options))
    return {
        "instance": os.path.basename(path), "n": graph.n, "m": graph.m,
        "flow_hipr": int(theirs[-1]["flow"]), "flow_ours": ours[-1][1].flow_value,
        "hipr": statistics.median(r["time"] for r in theirs),
        "ours": statistics.median(seconds for seconds, _ in ours),
        "counters_hipr": [int(theirs[-1][c]) if c in theirs[-1] else None for c in COUNTERS],
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
