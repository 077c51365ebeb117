"""`auto`, the default of `maxflow solve`: the engines raced, the first answer taken.

Where a GPU is usable, gpu-sync runs there with its CPU rivals (hipr and hpf, each on a
thread of its own): the host's cores are idle while the kernels run. Elsewhere the rivals run
in turn on the calling thread, each until it answers or calls for help: hpf first, hipr
taking over where hpf's trees grow deep (pseudoflow.hpf.help_bound), as on Goldberg's bad
case, its O(n^2) case. On a machine of few cores a second thread costs the first part of its
core (README, "The CPU default"). One rule read off the network goes first: where the
terminal arcs reach a large share of the vertices on both sides, as on vision grids and
matchings, eibfs runs before them (_suits_eibfs), and calls for help where its trees grow
deep after all (ibfs.eibfs.help_bound).
"""

from dataclasses import replace

import numpy as np

from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels.devices import default_device, device_unavailable
from maxflow_cli.race import NO_RIVALS, RIVALS, Race, able, entrants, joined, takes
from maxflow_cli.race import prepare as prepare_rivals
from maxflow_cli.registry import (
    SolveOptions,
    SolverSpec,
    compile_once,
    get_solver,
    refuse_wide,
    register,
)
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult

VISION_TERMINAL_COVER, VISION_TERMINAL_SIDE = 0.5, 0.01
"""eibfs runs first on the CPU where the source's arcs and the sink's together reach at least
half of the inner vertices, and each side at least 1% (_terminal_shares). On the suite's
grids and matchings they reach them all, each side 45-55%; on its other shapes together at
most 3%, but on Dinic's bad case (a path whose vertices all drain into the sink: the source
reaches one, and eibfs took 2,000 times hpf's time) and the complete acyclic networks
(below). The side's share leaves room for images with small objects."""
VISION_MAX_DEGREE = 64
"""... and where the vertices have fewer arcs than this on average (m / n): 3.5-24 on the
grids and matchings, 250-3,000 on the complete acyclic networks, where eibfs's search took
2-6 times hpf's phase 1."""
VISION_MIN_VERTICES = 1000
"""... and where there are at least this many inner vertices: eibfs is compiled only where
it runs first (about a minute the first time, then loaded from the disk cache), and below
this size it would save hundredths of a millisecond (a 16 x 16 grid: 0.010 ms against
hpf's 0.025)."""


def solve_auto(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """gpu-sync and its rivals on the GPU device; the rivals alone on the CPU."""
    if options.device == "gpu":
        result = get_solver("gpu-sync").solve(graph, _gpu_sync_options(options))
        why = f"a GPU is usable, so gpu-sync ran: {result.why}"
    else:
        shape = _suits_eibfs(graph) if options.params["rivals"] == AUTO_RIVALS.default \
            and takes(get_solver("eibfs"), graph) else ""
        rivals = able(_cpu_rivals(options, bool(shape)), graph)
        if not rivals:
            refuse_wide(options.params["rivals"], graph.m, graph.wide)
        compiled = _compile_once(rivals[0]) if shape else 0.0
        with Race(rivals, graph, relay=True) as race:
            result = race.first()
        times = dict(result.times)
        compiled += times.pop("compile", 0.0)  # the winner's own, for a type met first
        times = ({"compile": compiled} if compiled else {}) | times
        result = replace(result, winner=result.solver, times=times)
        why = _cpu_why(rivals, race.called_in, result.winner, shape)
    return replace(result, solver="auto", why=why)


def _compile_once(rival: tuple) -> float:
    """Compile a rival that prepare_auto left out (eibfs), the first time it runs in this
    process: the seconds it took (0 after)."""
    spec, options = rival
    return compile_once(("auto rival", spec.name, options.want_flow),
                        lambda: prepare_rivals([rival], relay=True))


def _terminal_shares(graph: ResidualGraph) -> tuple[float, float, float]:
    """The shares of the inner vertices (neither source nor sink) that arcs of positive
    capacity join to the source, to the sink, and to either (0 where there are none)."""
    inner = graph.n - 2
    if inner <= 0:
        return 0.0, 0.0, 0.0
    terminals = (graph.source, graph.sink)
    source_arcs = slice(graph.first[graph.source], graph.first[graph.source + 1])
    sink_arcs = slice(graph.first[graph.sink], graph.first[graph.sink + 1])
    fed = np.setdiff1d(graph.head[source_arcs][graph.cap[source_arcs] > 0], terminals)
    drained = np.setdiff1d(graph.head[sink_arcs][graph.cap[graph.rev[sink_arcs]] > 0],
                           terminals)
    either = np.union1d(fed, drained)
    return tuple(ends.shape[0] / inner for ends in (fed, drained, either))


def _suits_eibfs(graph: ResidualGraph) -> str:
    """Why EIBFS suits the shape ('' where it does not): terminal arcs at most vertices,
    from both sides, few arcs a vertex, as on vision grids and matchings (Goldberg et al.
    2015 made EIBFS for such graphs; Jensen et al. 2023 found it the fastest serial code
    on them): its trees then start wide and stay shallow."""
    fed, drained, either = _terminal_shares(graph)
    if either < VISION_TERMINAL_COVER or min(fed, drained) < VISION_TERMINAL_SIDE \
            or graph.m >= VISION_MAX_DEGREE * graph.n or graph.n - 2 < VISION_MIN_VERTICES:
        return ""
    return f"the source's arcs reach {fed:.0%} of the vertices and the sink's {drained:.0%}, " \
        f"{graph.m / graph.n:.1f} arcs a vertex, as on vision grids"


def _cpu_why(rivals: list, called_in: bool, winner: str, shape: str) -> str:
    """What ran on the CPU, and why."""
    first, others = rivals[0][0].name, joined(rivals[1:])
    because = f", since {shape}" if shape else ""
    if called_in:
        return f"no GPU is used: {first} ran on the CPU{because} and called for help (the " \
            f"shape is bad for it), and {winner} took over"
    if not others:
        return f"no GPU is used: {first} ran on the CPU{because}"
    return f"no GPU is used: {first} ran on the CPU{because} ({others} would take over if " \
        "it called for help; it did not)"


def prepare_auto(options: SolveOptions) -> float:
    """Compile what runs: gpu-sync with its rivals, or the rivals of the relay (eibfs, where
    it runs first, when it first does: _compile_once)."""
    if options.device == "gpu":
        return get_solver("gpu-sync").prepare(_gpu_sync_options(options))
    return prepare_rivals(_cpu_rivals(options, eibfs_first=False), relay=True)


def _gpu_sync_options(options: SolveOptions) -> SolveOptions:
    return get_solver("gpu-sync").resolve(SolveOptions(options.want_flow, "gpu", {
        "rivals": options.params["rivals"]}))


def _cpu_rivals(options: SolveOptions, eibfs_first: bool) -> list:
    """The rivals of a relay on the CPU, at least one, after eibfs where `eibfs_first`."""
    names = options.params["rivals"]
    if names == NO_RIVALS:
        raise ParameterError("--rivals none: auto on the CPU runs its rivals in turn; name one "
                             "at least (hpf+hipr by default)")
    if eibfs_first:
        names = f"eibfs+{names}"
    return entrants(names, options.want_flow)


AUTO_RIVALS = replace(
    RIVALS, default="hpf+hipr",
    help="CPU solvers joined by '+': where a GPU is usable, each races gpu-sync's GPU engine "
    "on a thread of its own (none: the engine alone), the first answer wins; elsewhere they "
    "run in turn, each until it answers or calls for help (hpf does where its pushes pass "
    "m plus log2 m a root it processes, eibfs where its work passes 3m; hipr never does), "
    "the default ones after eibfs where the terminal arcs reach half of the vertices, from "
    "both sides")

register(SolverSpec(
    "auto", "the GPU engine (where a GPU is usable) raced by hipr and hpf on the CPU; "
    "elsewhere hpf (eibfs first on vision-like shapes), hipr taking over where hpf calls for "
    "help", "ours", solve_auto, prepare_auto, (AUTO_RIVALS,), devices=("gpu", "cpu"),
    unavailable=device_unavailable, default_device=default_device, falls_back_to_cpu=True,
    in_default_bench=False, wide_arcs=True))
