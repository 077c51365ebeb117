"""`auto`, the default of `maxflow solve`: the engines raced, the first answer taken.

Where a GPU is usable, gpu-sync runs there with its CPU rivals (hipr and hpf, each on a
thread of its own): the host's cores are idle while the kernels run. Elsewhere hpf runs alone
on the calling thread, and hipr takes over only when hpf calls for help: where its trees
grow deep (pseudoflow.hpf.help_bound), on Goldberg's bad case, its O(n^2) case. hpf was the
fastest of our CPU solvers on every other shape of the suite, hipr at least as fast as hpf
on those where it calls, and on a machine of few cores a second thread costs the first part
of its core (README, "The CPU default"). No rule read off the network's size or shape
decides in advance (see maxflow_cli.race).
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
        with Race(rivals, graph, relay=True) as race:
            result = race.first()
        result = replace(result, winner=result.solver)
        why = _cpu_why(rivals, race.called_in, result.winner)
    return replace(result, solver="auto", why=why)


def _cpu_why(rivals: list, called_in: bool, winner: str) -> str:
    """What ran on the CPU, and why."""
    first, others = rivals[0][0].name, joined(rivals[1:])
    if called_in:
        return f"no GPU is used: {first} ran on the CPU and called for help (the shape is " \
            f"bad for it), and {winner} took over"
    if not others:
        return f"no GPU is used: {first} ran on the CPU"
    return f"no GPU is used: {first} ran on the CPU ({others} would take over if it " \
        "called for help; it did not)"


def prepare_auto(options: SolveOptions) -> float:
    """Compile what runs: gpu-sync with its rivals, or the rivals of the relay."""
    if options.device == "gpu":
        return get_solver("gpu-sync").prepare(_gpu_sync_options(options))
    return prepare_rivals(_cpu_rivals(options), relay=True)


def _gpu_sync_options(options: SolveOptions) -> SolveOptions:
    return get_solver("gpu-sync").resolve(SolveOptions(options.want_flow, "gpu", {
        "rivals": options.params["rivals"]}))


def _cpu_rivals(options: SolveOptions) -> list:
    """The rivals of a relay on the CPU: at least one."""
    rivals = entrants(options.params["rivals"], options.want_flow)
    if not rivals:
        raise ParameterError("--rivals none: auto on the CPU runs its rivals in turn; name one "
                             "at least (hpf+hipr by default)")
    return rivals


AUTO_RIVALS = replace(
    RIVALS, default="hpf+hipr",
    help="CPU solvers joined by '+': where a GPU is usable, each races gpu-sync's GPU engine "
    "on a thread of its own (none: the engine alone), the first answer wins; elsewhere they "
    "run in turn, each until it answers or calls for help (hpf does where its pushes pass "
    "m plus log2 m a root it processes; hipr never does)")

register(SolverSpec(
    "auto", "the GPU engine (where a GPU is usable) raced by hipr and hpf on the CPU; "
    "elsewhere hpf, hipr taking over where hpf calls for help", "ours", solve_auto, prepare_auto,
    (AUTO_RIVALS,), devices=("gpu", "cpu"),
    unavailable=device_unavailable, default_device=default_device, falls_back_to_cpu=True,
    in_default_bench=False))
