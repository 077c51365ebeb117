"""Build time and peak host memory of a solve on a generated instance, phase by phase.

    python scripts/build_scale.py [SOLVER] [PRESET] [RUNS]

Generates PRESET (seed 1) in memory, times `build_residual` RUNS times (warm: compiled
first), then builds, solves (stage 1, on the CPU) and certifies, printing the peak resident set
(VmHWM, Linux) after each phase. It uses only what the package had before the parallel build,
so a checkout of an earlier commit on PYTHONPATH gives the figures before.
"""

import statistics
import sys
import time

from maxflow_cli.check import check_answer
from maxflow_cli.errors import MaxflowError
from maxflow_cli.generators import PRESETS, make
from maxflow_cli.jit import compile_shared
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual


def peak_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1e3


def main(solver="hipr", preset="washington-rlg-long-1024x1536", runs="5"):
    spec = get_solver(solver)
    options = spec.resolve_where_asked(SolveOptions(False, "cpu", {}), "--device cpu")
    compile_shared()
    spec.prepare(options)
    marks = [("start", peak_mb())]
    network = make(PRESETS[preset].family, **(PRESETS[preset].params | {"seed": 1}))
    marks.append(("generate", peak_mb()))
    seconds = []
    for _ in range(int(runs)):
        started = time.perf_counter()
        graph = build_residual(network)
        seconds.append(time.perf_counter() - started)
        del graph
    graph = build_residual(network)
    del network  # what the graph still holds of it stays
    marks.append(("build", peak_mb()))
    result = spec.solve(graph, options)
    marks.append(("stage1", peak_mb()))
    ok = check_answer(graph, result).ok
    marks.append(("check", peak_mb()))
    print(f"{preset}: {graph.m:,} arcs, build median {statistics.median(seconds):.3f} s "
          f"(min {min(seconds):.3f}, max {max(seconds):.3f}); {solver} flow "
          f"{result.flow_value}, certificate {'ok' if ok else 'FAILED'}")
    print("peak MB after " + ", ".join(f"{phase} {mb:.0f}" for phase, mb in marks))


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if len(arguments) > 3 or any(a.startswith("-") for a in arguments) or \
            (arguments[1:2] and arguments[1] not in PRESETS) or \
            (arguments[2:] and not arguments[2].isdigit()):
        sys.exit(__doc__.split("\n\n")[1])
    try:
        main(*arguments)
    except MaxflowError as error:
        sys.exit(f"build_scale.py: {error}")
