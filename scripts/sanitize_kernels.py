"""Every GPU solver's kernels on small graphs whose steps go wide and narrow, each answer
checked against hipr's flow value and certified: the driver to run under compute-sanitizer.

    compute-sanitizer --tool memcheck python scripts/sanitize_kernels.py
    compute-sanitizer --tool racecheck python scripts/sanitize_kernels.py --solvers gpu-sync
    python scripts/sanitize_kernels.py --device cpu     # the Numba twins (no GPU needed)

The graphs: a 4-connected grid (wide rounds and BFS levels), a Washington line (hundreds of
BFS levels and rounds of a few vertices), Dinic's bad case at n = 9,000 (a path whose sink
joins every vertex: a BFS level of one hub of 9,000 arcs, then one of 9,000 vertices) and a
small genrmf. gpu-sync also runs alone (no rivals, no hand-over to the CPU), so that its
kernels do all the work.
Kept small: under the sanitizer a kernel runs tens of times slower. Prints a line per run;
exits 1 where an answer is wrong.
"""

import argparse
import sys

from maxflow_cli import generators
from maxflow_cli.check import check_answer
from maxflow_cli.registry import SolveOptions, get_solver, solvers
from maxflow_cli.residual import build_residual

GRAPHS = {
    "grid-c4-24x24": ("grid", {"shape": (24, 24), "connectivity": 4, "seed": 1}),
    "basic-line-60x8x8": ("washington", {"function": 6, "dim1": 60, "dim2": 8, "range": 8,
                                         "seed": 1}),
    "dinic-bad-9000": ("washington", {"function": 9, "dim1": 9000, "dim2": 0, "range": 100,
                                      "seed": 1}),
    "genrmf-4x6": ("genrmf", {"a": 4, "b": 6, "seed": 1}),
}
ENGINE_ALONE = {"rivals": "none", "hand_over": "never"}


def gpu_solvers() -> list[str]:
    """The solvers with kernels: those that run on the GPU device and need it there (auto,
    which falls back to the CPU, runs gpu-sync's)."""
    return [name for name, spec in solvers().items()
            if "gpu" in spec.devices and not spec.falls_back_to_cpu]


def runs(names: list[str]) -> list[tuple[str, dict]]:
    """Each solver with its defaults, and gpu-sync's engine alone as well."""
    return [(name, {}) for name in names] + \
        ([("gpu-sync", ENGINE_ALONE)] if "gpu-sync" in names else [])


def check_one(graph, name: str, params: dict, device: str, expected: int) -> bool:
    """Solve on `device`; True where the value is hipr's and the answer is certified."""
    spec = get_solver(name)
    result = spec.solve(graph, spec.resolve(SolveOptions(False, device=device, params=params)))
    return result.flow_value == expected and check_answer(graph, result).ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("gpu", "cpu"), default="gpu")
    parser.add_argument("--solvers", help="comma-separated (default: every GPU solver)")
    args = parser.parse_args(argv)
    names = args.solvers.split(",") if args.solvers else gpu_solvers()
    hipr = get_solver("hipr")
    wrong = 0
    for label, (family, params) in GRAPHS.items():
        graph = build_residual(generators.make(family, **params))
        expected = hipr.solve(graph, hipr.resolve(SolveOptions())).flow_value
        for name, solver_params in runs(names):
            ok = check_one(graph, name, solver_params, args.device, expected)
            wrong += not ok
            shown = ",".join(f"{k}={v}" for k, v in solver_params.items())
            print(f"{label} {name}{':' + shown if shown else ''} {'ok' if ok else 'WRONG'}",
                  flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
