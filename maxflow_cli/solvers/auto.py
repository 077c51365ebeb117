"""`auto`, the default of `maxflow solve`: the engines raced, the first answer taken.

Where most vertices are links of chains, the chains are contracted first, each into one arc
(chains.contract), and what follows runs on the contracted network, its answer carried back.
Where a GPU is usable and the graph has at least as many vertices as the engine's rounds
discharge at once (kernels.gpu_sync.narrow_for_gpu), gpu-sync runs there with its CPU rivals
(hipr and hpf, each on a thread of its own): the host's cores are idle while the kernels
run. Elsewhere the rivals run in turn on the calling thread, each until it answers or calls
for help: hpf first, hipr taking over where hpf's trees grow deep
(pseudoflow.hpf.help_bound), as on Goldberg's bad case, its O(n^2) case. On a machine of few
cores a second thread costs the first part of its core (README, "The CPU default"). Two
rules read off the network go first: where the terminal arcs reach a large share of the
vertices on both sides, as on vision grids and matchings, eibfs runs before them
(_suits_eibfs), and calls for help where its trees grow deep after all
(ibfs.eibfs.help_bound); on the chains contracted, hipr runs alone (chains.contracted_chains),
sparing hpf's part before it calls.
"""

import time
from dataclasses import replace

import numba
import numpy as np

from maxflow_cli.chains import prepare_contraction, solve_contracted
from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels.devices import default_device, device_unavailable
from maxflow_cli.kernels.gpu_sync import narrow_for_gpu
from maxflow_cli.race import (
    HELP_BUDGET,
    NO_RIVALS,
    RIVALS,
    Race,
    able,
    entrants,
    joined,
    takes,
)
from maxflow_cli.race import prepare as prepare_rivals
from maxflow_cli.registry import (
    SolveOptions,
    SolverSpec,
    compile_once,
    get_solver,
    refuse_wide,
    register,
    tiny_graph,
)
from maxflow_cli.residual import INPUT_ORDER, ResidualGraph
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
    """The network with its chains contracted where most vertices are links of them
    (chains.solve_contracted, with the default rivals), then gpu-sync and its rivals on the
    GPU device where the graph fills it, the rivals alone on the CPU (_solve); an answer of
    the contracted network is carried back to the network's residual graph."""
    started = time.perf_counter()
    if options.params["rivals"] == AUTO_RIVALS.default and (answer := solve_contracted(
            graph, started, lambda contracted, begun, why: _solve(contracted, options, begun,
                                                                  why))):
        return answer
    return _solve(graph, options, started)


def _solve(graph: ResidualGraph, options: SolveOptions, started: float,
           chains: str = "") -> SolveResult:
    """gpu-sync and its rivals on the GPU device where the graph fills it; the rivals alone
    on the CPU, their stage 1 counted from `started`. `chains` says why `graph` is the
    network with its chains contracted ('' where it is the network): hipr then runs alone
    on the CPU."""
    no_gpu = "no GPU is used"
    if options.device == "gpu":
        # --rivals none: the engine alone was asked for, narrow or not
        no_gpu = narrow_for_gpu(graph, "gpu") if options.params["rivals"] != NO_RIVALS else ""
        if not no_gpu:
            result = get_solver("gpu-sync").solve(graph, _gpu_sync_options(options))
            where = f" on the network with its chains contracted, since {chains}" \
                if chains else ""
            return replace(result, solver="auto", why=f"a GPU is usable, so gpu-sync ran"
                           f"{where}: {result.why}")
    first, shape = ("hipr", chains) if chains else _first_on_cpu(graph,
                                                                 options.params["rivals"])
    rivals = able(_cpu_rivals(options, first), graph)
    if not rivals:
        refuse_wide(options.params["rivals"], graph.m, graph.wide)
    chosen = time.perf_counter() - started
    compiled = _compile_once(rivals[0]) if first == "eibfs" else 0.0
    with Race(rivals, graph, relay=True) as race:
        result = race.first()
    times = dict(result.times)
    times["stage1"] += chosen  # reading the shape off the graph is part of the solve
    compiled += times.pop("compile", 0.0)  # the winner's own, for a type met first
    times = ({"compile": compiled} if compiled else {}) | times
    why = f"{no_gpu}: {_cpu_why(rivals, race, result.solver, shape)}"
    return replace(result, solver="auto", winner=result.solver, times=times, why=why)


def _first_on_cpu(graph: ResidualGraph, rivals: str) -> tuple[str, str]:
    """The solver that the shape sends first on the CPU, and why: eibfs on vision-like
    shapes; ('', '') where the default relay (hpf, then hipr) starts, or where --rivals
    names others."""
    if rivals != AUTO_RIVALS.default:
        return "", ""
    if takes(get_solver("eibfs"), graph) and (why := _suits_eibfs(graph)):
        return "eibfs", why
    return "", ""


def _compile_once(rival: tuple) -> float:
    """Compile a rival that prepare_auto left out (eibfs), the first time it runs in this
    process: the seconds it took (0 after)."""
    spec, options = rival
    return compile_once(("auto rival", spec.name, options.want_flow),
                        lambda: prepare_rivals([rival], relay=True))


def _terminal_shares(graph: ResidualGraph) -> tuple[float, float, float]:
    """The shares of the inner vertices (neither source nor sink; _suits_eibfs asks only
    where there are a thousand) that arcs of positive capacity join to the source, to the
    sink, and to either."""
    counts = _terminal_counts(graph.n, graph.source, graph.sink, graph.first, graph.head,
                              graph.rev, graph.cap)
    return tuple(count / (graph.n - 2) for count in counts)


@numba.njit(cache=True)
def _terminal_counts(n, source, sink, first, head, rev, cap):
    """How many inner vertices the source's arcs of positive capacity feed, how many drain
    into the sink, how many either."""
    joined_to = np.zeros(n, np.uint8)  # bit 1: fed by the source, bit 2: drains
    for arc in range(first[source], first[source + 1]):
        if cap[arc] > 0:
            joined_to[head[arc]] |= 1
    for arc in range(first[sink], first[sink + 1]):
        if cap[rev[arc]] > 0:
            joined_to[head[arc]] |= 2
    joined_to[source] = joined_to[sink] = 0
    fed = drained = either = 0
    for vertex in range(n):
        fed += joined_to[vertex] & 1
        drained += joined_to[vertex] >> 1
        either += joined_to[vertex] != 0
    return fed, drained, either


def _suits_eibfs(graph: ResidualGraph) -> str:
    """Why EIBFS suits the shape ('' where it does not): terminal arcs at most vertices,
    from both sides, few arcs a vertex, as on vision grids and matchings (Goldberg et al.
    2015 made EIBFS for such graphs; Jensen et al. 2023 found it the fastest serial code
    on them): its trees then start wide and stay shallow. The size, the degree and the
    terminals' residual arcs (one at least for each vertex they join) are read first: where
    they rule EIBFS out, the capacities are not scattered (graph.cap) to count the shares:
    as on Dinic's bad case, whose sink joins every vertex but whose source joins one."""
    first, inner = graph.first, graph.n - 2
    if inner < VISION_MIN_VERTICES or graph.m >= VISION_MAX_DEGREE * graph.n:
        return ""
    arcs = [(first[v + 1] - first[v]) / inner for v in (graph.source, graph.sink)]
    if _few_at_terminals(*arcs, arcs[0] + arcs[1]):  # arcs bound the shares from above
        return ""
    fed, drained, either = _terminal_shares(graph)
    if _few_at_terminals(fed, drained, either):
        return ""
    return f"the source's arcs reach {fed:.0%} of the vertices and the sink's {drained:.0%}, " \
        f"{graph.m / graph.n:.1f} arcs a vertex, as on vision grids"


def _few_at_terminals(fed: float, drained: float, either: float) -> bool:
    """Whether the source's share, the sink's and either's are too small for eibfs
    (VISION_TERMINAL_COVER, VISION_TERMINAL_SIDE)."""
    return either < VISION_TERMINAL_COVER or min(fed, drained) < VISION_TERMINAL_SIDE


def _cpu_why(rivals: list, race: Race, winner: str, shape: str) -> str:
    """What ran on the CPU, and why."""
    first, others = rivals[0][0].name, joined(rivals[1:])
    because = f", since {shape}" if shape else ""
    gave_up = f"; {race.gave_up} tried and gave up past {HELP_BUDGET} times the pushes " \
        "made before the call" if race.gave_up else ""
    if race.called_in:
        return f"{first} ran on the CPU{because} and called for help (the " \
            f"shape is bad for it), and {winner} took over{gave_up}"
    if race.gave_up:
        return f"{first} ran on the CPU{because} and called for help (the shape is bad " \
            f"for it){gave_up}, and {first} went on from where it called"
    if not others:
        return f"{first} ran on the CPU{because}"
    return f"{first} ran on the CPU{because} ({others} would take over if " \
        "it called for help; it did not)"


def prepare_auto(options: SolveOptions) -> float:
    """Compile what runs: gpu-sync with its rivals where a GPU is used (and the relay, for
    graphs too narrow for it), the rivals of the relay (eibfs, where it runs first, when it
    first does: _compile_once, though its options are resolved here) and the chains'
    contraction for each arc and capacity type."""
    started = time.perf_counter()
    if options.device == "gpu":
        get_solver("gpu-sync").prepare(_gpu_sync_options(options))
        if options.params["rivals"] == NO_RIVALS:
            return time.perf_counter() - started
    tiny = tiny_graph()
    prepare_contraction(tiny)
    for arcs in (np.int32, np.int64):
        _terminal_counts(tiny.n, tiny.source, tiny.sink, tiny.first.astype(arcs), tiny.head,
                         tiny.rev.astype(arcs), tiny.cap)
    for first in ("hipr", "eibfs"):  # resolved now, read off where the shape sends them
        _cpu_rivals(options, first)
    return time.perf_counter() - started + prepare_rivals(_cpu_rivals(options, first=""),
                                                          relay=True)


def prepare_auto_rest(options: SolveOptions) -> float:
    """Compile what prepare_auto leaves to the first shape that runs it: eibfs, first of
    the relay (_compile_once), unless no rival runs."""
    if options.params["rivals"] == NO_RIVALS:
        return 0.0
    return _compile_once(_cpu_rivals(options, "eibfs")[0])


def _gpu_sync_options(options: SolveOptions) -> SolveOptions:
    return get_solver("gpu-sync").resolve(SolveOptions(options.want_flow, "gpu", {
        "rivals": options.params["rivals"]}))


def _cpu_rivals(options: SolveOptions, first: str) -> tuple:
    """The rivals of a relay on the CPU, at least one: after eibfs where it goes `first`,
    hipr alone where it does (it never calls for help)."""
    names = options.params["rivals"]
    if names == NO_RIVALS:
        raise ParameterError("--rivals none: auto on the CPU runs its rivals in turn; name one "
                             "at least (hpf+hipr by default)")
    names = {"eibfs": f"eibfs+{names}", "hipr": "hipr"}.get(first, names)
    return entrants(names, options.want_flow)


AUTO_RIVALS = replace(
    RIVALS, default="hpf+hipr",
    help="CPU solvers joined by '+': where a GPU is usable, each races gpu-sync's GPU engine "
    "on a thread of its own (none: the engine alone), the first answer wins; elsewhere they "
    "run in turn, each until it answers or calls for help (hpf does where its pushes pass "
    "m plus log2 m a root it processes, eibfs where its work passes 3m; hipr never does), "
    "the default ones after eibfs where the terminal arcs reach half of the vertices, from "
    "both sides, and hipr alone where half of the vertices are links of chains")

register(SolverSpec(
    "auto", "the GPU engine (where a GPU is usable and the graph fills its rounds) raced "
    "by hipr and hpf on the CPU; "
    "elsewhere hpf (eibfs first on vision-like shapes, hipr alone on chains), hipr taking "
    "over where hpf calls for help", "ours", solve_auto, prepare_auto, (AUTO_RIVALS,),
    devices=("gpu", "cpu"), unavailable=device_unavailable, default_device=default_device,
    falls_back_to_cpu=True, in_default_bench=False, wide_arcs=True,
    gpu_arc_order=INPUT_ORDER, prepare_rest=prepare_auto_rest))
