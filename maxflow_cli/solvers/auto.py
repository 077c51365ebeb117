"""`auto`, the default of `maxflow solve`: the engines raced, the first answer taken.

Where a GPU is usable, gpu-sync runs there with its CPU rivals (hipr and hpf, each on a
thread of its own); elsewhere the rivals race alone, the first (hipr) on the calling
thread, which has nothing else to do. No rule read off the network's size or
shape decides in advance which wins (see maxflow_cli.race): each shape of the suite has
another winner, and a race costs the others' cores, not their time.
"""

from dataclasses import replace

from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels.devices import default_device, device_unavailable
from maxflow_cli.race import RIVALS, Race, entrants, joined
from maxflow_cli.race import prepare as prepare_rivals
from maxflow_cli.registry import SolveOptions, SolverSpec, get_solver, register
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def solve_auto(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """gpu-sync and its rivals on the GPU device; the rivals alone on the CPU."""
    if options.device == "gpu":
        result = get_solver("gpu-sync").solve(graph, _gpu_sync_options(options))
        why = f"a GPU is usable, so gpu-sync ran: {result.why}"
    else:
        rivals = _cpu_rivals(options)
        with Race(rivals, graph, here=True) as race:
            result = race.first()
        result = replace(result, winner=result.solver)
        why = f"no GPU is used: {joined(rivals)} raced on the CPU and {result.winner} " \
            "answered first"
    return replace(result, solver="auto", why=why)


def prepare_auto(options: SolveOptions) -> float:
    """Compile what the race runs: gpu-sync with its rivals, or the rivals."""
    if options.device == "gpu":
        return get_solver("gpu-sync").prepare(_gpu_sync_options(options))
    return prepare_rivals(_cpu_rivals(options))


def _gpu_sync_options(options: SolveOptions) -> SolveOptions:
    return get_solver("gpu-sync").resolve(SolveOptions(options.want_flow, "gpu", {
        "rivals": options.params["rivals"]}))


def _cpu_rivals(options: SolveOptions) -> list:
    """The rivals of a race on the CPU: at least one."""
    rivals = entrants(options.params["rivals"], options.want_flow)
    if not rivals:
        raise ParameterError("--rivals none: auto on the CPU races its rivals alone; name one "
                             "at least (hipr+hpf by default)")
    return rivals


register(SolverSpec(
    "auto", "the GPU engine (where a GPU is usable) raced by hipr and hpf on the CPU: the "
    "first answer wins", "ours", solve_auto, prepare_auto, (RIVALS,), devices=("gpu", "cpu"),
    unavailable=device_unavailable, default_device=default_device, falls_back_to_cpu=True,
    in_default_bench=False))
