"""Time the seeds' GPU solvers beside hipr at the papers' sizes, in one run.

    python scripts/gpu_timings.py [--device gpu|cpu] [--presets NAME,...] [--solvers NAME,...]
                                  [--kernel-cycles N] [--limit SECONDS] [--json FILE]

For every instance (generator presets from He & Hong 2010 §VII, made in memory with seed 1):
hipr on this machine's CPU, then `cuda` (He & Hong's Algorithm 1; KERNEL_CYCLES 32 on
Acyclic-Dense, 4096 elsewhere, as §VII sets it, unless --kernel-cycles says otherwise) and
`gpu-bfs` (Gutiérrez Mota's constants).
Each solver is compiled first (its seconds are printed apart), then runs once per instance;
the flow value is compared with hipr's and the certificate is checked. Printed per run: stage-1
seconds, seconds in kernels (CUDA events), in transfers, in global relabels, kernel launches,
rounds, and stage 1 over hipr's. A solve past --limit seconds is abandoned at its next return
to Python and reported as such. With --json, the rows (with each solve's per-round trace) go
to FILE after every instance.
"""

import argparse
import json
import platform
import signal
import time

from maxflow_cli import generators, kernels
from maxflow_cli.check import check_answer
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual

PAPER_PRESETS = ("acyclic-dense-2000", "acyclic-dense-4000", "genrmf-long-24x192",
                 "genrmf-wide-64", "washington-rlg-long-512x1024", "washington-rlg-wide-1024",
                 "washington-rlg-long-1024x1536")
COLUMNS = ("instance", "solver", "flow", "stage1", "kernels", "transfer", "global_relabel",
           "launches", "rounds", "x_hipr")


def solver_params(solver: str, family: str, kernel_cycles: int | None) -> dict:
    if solver == "cuda":
        return {"kernel_cycles": kernel_cycles or (32 if family == "acyclic-dense" else 4096)}
    return {}


def _stop(signum, frame):
    raise TimeoutError


def within(limit: int, call):
    """call()'s value, or None once it runs past `limit` seconds (abandoned at its next
    return to Python; the caller has installed _stop for SIGALRM)."""
    signal.alarm(limit)
    try:
        return call()
    except TimeoutError:
        return None
    finally:
        signal.alarm(0)


def graph_of(preset_name: str):
    """The residual graph of a generator preset, made with seed 1."""
    preset = generators.preset(preset_name)
    return build_residual(generators.make(preset.family, **preset.params, seed=1))


def run_one(solver: str, device: str | None, graph, params: dict, limit: int) -> dict:
    """One solve with its certificate, or a row saying it ran past `limit` seconds."""
    spec = get_solver(solver)
    options = spec.resolve(SolveOptions(False, device, params))
    result = within(limit, lambda: spec.solve(graph, options))
    if result is None:
        return {"solver": solver, "device": options.device, "timeout": limit}
    return {"solver": solver, "device": options.device, "flow_value": result.flow_value,
            "certified": check_answer(graph, result).ok, "params": params,
            "times": result.times, "counters": result.counters, "trace": result.trace}


def row_text(instance: str, row: dict, hipr: dict) -> list[str]:
    if "timeout" in row:
        return [instance, row["solver"], f"> {row['timeout']} s"] + [""] * 7
    times, counters = row["times"], row["counters"]
    agree = row["flow_value"] == hipr.get("flow_value") and row["certified"]
    ratio = times["stage1"] / hipr["times"]["stage1"] if "times" in hipr else float("nan")
    return [instance, f"{row['solver']} ({row['device']})",
            f"{row['flow_value']} {'ok' if agree else 'WRONG'}",
            f"{times['stage1']:.3f}", f"{times.get('kernels', 0):.3f}",
            f"{times.get('transfer', 0):.3f}", f"{times.get('global_relabel', 0):.3f}",
            str(counters.get("kernel_launches", "")), str(counters.get("rounds", "")),
            f"{ratio:.1f}"]


def print_table(lines: list[list[str]]) -> None:
    widths = [max(len(line[i]) for line in lines) for i in range(len(COLUMNS))]
    for line in lines:
        print("  ".join(cell.rjust(width) for cell, width in zip(line, widths)), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("gpu", "cpu"), default=None,
                        help="where cuda and gpu-bfs run (default: the GPU if one can)")
    parser.add_argument("--presets", default=",".join(PAPER_PRESETS))
    parser.add_argument("--solvers", default="cuda,gpu-bfs", help="besides hipr")
    parser.add_argument("--kernel-cycles", type=int, help="cuda's KERNEL_CYCLES everywhere")
    parser.add_argument("--limit", type=int, default=120, help="seconds per solve")
    parser.add_argument("--json", metavar="FILE", help="write every row here as JSON")
    args = parser.parse_args()

    print(f"host: {platform.node()}, {platform.processor() or platform.machine()}, "
          f"GPU: {kernels.gpu_unavailable() or 'usable'}", flush=True)
    solvers = ["hipr"] + args.solvers.split(",")
    for solver in solvers:
        spec = get_solver(solver)
        seconds = spec.prepare(spec.resolve(SolveOptions(device=None if solver == "hipr"
                                                          else args.device)))
        print(f"compile {solver}: {seconds:.2f} s", flush=True)
    if kernels.LOAD_SECONDS:
        print("kernel modules (PyCUDA compile or load): " + ", ".join(
            f"{name} {seconds:.2f} s" for name, seconds in kernels.LOAD_SECONDS.items()))
    signal.signal(signal.SIGALRM, _stop)

    lines = [list(COLUMNS)]
    rows = []
    for name in args.presets.split(","):
        preset = generators.preset(name)
        started = time.perf_counter()
        graph = graph_of(name)
        print(f"{name}: n={graph.n} m={graph.m}, made in {time.perf_counter() - started:.1f} s",
              flush=True)
        hipr = run_one("hipr", None, graph, {}, args.limit)
        for solver in solvers:
            params = solver_params(solver, preset.family, args.kernel_cycles)
            row = hipr if solver == "hipr" else run_one(solver, args.device, graph, params,
                                                        args.limit)
            rows.append(dict(row, instance=name, n=graph.n, m=graph.m))
            lines.append(row_text(name, row, hipr))
            print("  ".join(lines[-1]), flush=True)
        if args.json:
            with open(args.json, "w") as stream:
                json.dump(rows, stream, indent=1)
    print()
    print_table(lines)


if __name__ == "__main__":
    main()
