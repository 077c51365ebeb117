"""`gpu-sync`: our device-resident push-relabel, synchronous rounds over a compacted active
list with frequent global relabels on the GPU.

Ideas taken: Baumstark, Blelloch & Shun 2015 (synchronous rounds over the active vertices,
global relabels triggered by work), Goldberg's global-update rule (hi_pr: work since the last
one * frequency > alpha * n + m), He & Hong 2010's lock-free push to the lowest neighbour
(Program 3). The host initialises the preflow (He & Hong's Program 2) and uploads it once;
then it alternates two persistent kernels (kernels/gpu_sync.cu): a global relabel (a BFS
that may take several launches) that lists the active vertices, and rounds until the list is
empty, the work budget is spent, or the rounds have taken 1 / frequency times as long as that
global relabel (ours: a GPU round over a few vertices costs its barriers, not its work).
Stage 1 ends when a global relabel finds no active vertex: then no vertex with excess
reaches the sink, and the vertices that do form the sink side of a minimum cut. Only the
kernels' stats cross the bus in between, unless the engine hands over (He & Hong 2010, §IV:
where parallelism drops, the CPU is the faster engine). With ``--hand-over auto`` launches
last about WINDOW_SECONDS, and between them the host compares, in hi_pr's units of work (a
push; a relabel's BETA and arc scans) at the CPU's seconds per unit last measured
(calibrated once a process, then measured by each CPU phase): after rounds, hipr's time for
the active vertices (a push and a relabel each) against one of the launch's rounds (its
fixed cost taken out: the shortest launch's time); during a global relabel, hipr's time for
a BFS (a unit an arc, and the download) against the device's BFS so far. Where the CPU is
the shorter, the preflow comes to the host and hipr's core goes on, from the device's labels
after rounds, from a global update of its own during a BFS. hipr stops when it is done, when
its next global update is due (unless the device's BFS was the slower: then hipr runs its
own), or when it has run as long as stage 1 so far (and the transfers); the last two send
the preflow back, and the device goes on until the host's next comparison. (A round over a
few vertices costs its barriers, a BFS level over a few its barrier, and a vertex of a high
degree its lanes' scan of every arc: the tails of long paths and Goldberg's bad case.) Its
rivals (maxflow_cli.race) race it on CPU threads, and the host looks for their answer
between launches; on a graph with fewer vertices than the rounds discharge at once
(kernels.gpu_sync.narrow_for_gpu) the CPU runs alone, the default rivals as auto's relay
runs them. With ``--device cpu`` the kernels' Numba
twins run the same loop on CPU threads.
"""

import functools
import threading
import time
from dataclasses import replace

import numpy as np

from maxflow_cli import generators
from maxflow_cli.chains import solve_contracted
from maxflow_cli.kernels import gpu_sync_cpu
from maxflow_cli.kernels.declarations import SYNC_COUNTS
from maxflow_cli.kernels.gpu_sync import C_TYPES, SyncKernels, narrow_for_gpu
from maxflow_cli.pushrelabel.highest_label import (
    COUNTER_NAMES,
    DONE,
    PUSHES,
    RELABELS,
    STOPPED,
    STOPPED_AT_GLOBAL_UPDATE,
    hipr_stage_one,
    timed_stage_two,
)
from maxflow_cli.pushrelabel.relabel import initialize_preflow
from maxflow_cli.race import NO_RIVALS, RIVALS, Race, able, entrants, joined
from maxflow_cli.race import prepare as prepare_rivals
from maxflow_cli.registry import (
    Parameter,
    SolveOptions,
    compile_for_graph,
    compile_once,
    get_solver,
    register_with_kernels,
    tiny_graph,
)
from maxflow_cli.residual import ResidualGraph, build_residual, residual_type
from maxflow_cli.result import SolveResult

UNLIMITED = 1 << 30  # levels or rounds a launch may run where nobody polls between launches
# Launch lengths while rivals race: long enough that a launch and its stats read-back cost
# next to nothing, short enough that a rival's answer waits at most about this long.
WINDOW_SECONDS = 0.002


class Window:
    """How many steps (BFS levels, rounds) the next launch runs: the steps that took about
    WINDOW_SECONDS in the last launch (at least 1), or UNLIMITED where nobody polls."""

    def __init__(self, polled: bool):
        # before any step is timed: one, so that even a slow step keeps the first launch
        # short, after which the measured rate decides
        self.steps = 1 if polled else UNLIMITED
        self._polled = polled

    def ran(self, steps: int, seconds: float) -> None:
        if self._polled and steps > 0:
            self.steps = max(1, min(UNLIMITED, int(steps * WINDOW_SECONDS / max(seconds, 1e-6))))


class Engine:
    """gpu-sync's GPU loop on one device. ``run(race)`` looks for a rival's answer between
    launches (``race.winner()``) and stops at the first (kept as ``answer``); a CPU phase
    ends with the race too (``race.stopping``).
    With the hand-over on (``cpu``), launches are windows too, and the host decides between
    them whether the CPU goes on instead (_cpu_phase)."""

    def __init__(self, graph: ResidualGraph, options: SolveOptions, polled: bool):
        params = options.params
        self.params = params
        res, self.excess, _, _ = initialize_preflow(graph, res_type=residual_type(graph))
        self.res_type, self.arcs = res.dtype, res.shape[0]
        self.frequency = params["global_update_frequency"]
        self.budget = int((params["alpha"] * graph.n + graph.m) / self.frequency) \
            if self.frequency > 0 else 2**62
        # where stage 2 takes int64 residuals (wide), the host's copy goes once uploaded;
        # else it is the one the device's residuals come back into, locked for every copy
        self.wide = options.want_flow and self.res_type != np.int64
        self.host_res: np.ndarray | None = None if self.wide else res
        self.device = SyncKernels(options.device, graph, res, self.excess,
                                  params["group_size"], shares_host=polled,
                                  held=(self.excess,) if self.wide else (res, self.excess))
        self.cpu = CpuFinish(graph, params, self.frequency) \
            if params["hand_over"] == "auto" else None
        windowed = polled or self.cpu is not None
        self.levels, self.rounds = Window(windowed), Window(windowed)
        self.relabel_seconds = 0.0  # the last global relabel's launches, in seconds
        self.rounds_seconds = 0.0  # the rounds' launches since
        self.trace: list[dict] = []
        self.answer: SolveResult | None = None
        self.race = None  # the Race that run() is given
        self.global_relabels = 0
        self.started = time.perf_counter()
        self.download_seconds = hand_over_download_seconds(graph, res, self.device.seconds)
        self.launch_seconds = float("inf")  # the shortest launch: its fixed cost, at most
        self.bfs_given_up = False  # the last global relabel was the CPU's (see _relabel)
        self.finished_on_cpu = False

    def run(self, race) -> np.ndarray | None:
        """Global relabels and rounds until a global relabel finds no active vertex or the
        CPU finishes: the stats then; None where a rival answered first."""
        self.race = race
        stats = self._relabel()
        while stats is not None and not self.finished_on_cpu and stats[gpu_sync_cpu.ACTIVE]:
            stats, seconds, rounds = self._launch(
                self.rounds, gpu_sync_cpu.ROUND, self.device.rounds, self.params["beta"],
                self.budget, self._rounds_ns_left())
            self.rounds_seconds += seconds
            if self._answered():
                return None
            active = int(stats[gpu_sync_cpu.ACTIVE])
            round_seconds = (seconds - self.launch_seconds) / max(rounds, 1)
            handed = active > 0 and self._cpu_pays(lambda cpu: active * cpu.vertex_seconds,
                                                   round_seconds)
            if handed and not self._cpu_phase(active, from_labels=True):
                return None
            if not self.finished_on_cpu and (handed or not active or stats[gpu_sync_cpu.STOP]):
                stats = self._relabel()
        return stats

    def _rounds_ns_left(self) -> int:
        """Nanoseconds the rounds may still run before a global relabel is due by time: the
        last global relabel's time / frequency, less what the rounds took since."""
        if self.frequency <= 0:
            return 2**62
        return max(1, int((self.relabel_seconds / self.frequency - self.rounds_seconds) * 1e9))

    def _relabel(self) -> np.ndarray | None:
        """A global relabel on the device, or hipr's own (from a global update on the CPU)
        where the device's BFS has run longer than the CPU's would take (_cpu_pays: an arc
        scan a unit of hi_pr's work): the stats after it, None where a rival answered."""
        while True:
            stats = self._global_relabel()
            self.bfs_given_up = stats is not None and bool(stats[gpu_sync_cpu.BFS_OPEN])
            if not self.bfs_given_up:
                return stats
            if not self._cpu_phase(-1, from_labels=False):
                return None
            if self.finished_on_cpu:
                return stats

    def _global_relabel(self) -> np.ndarray | None:
        """One global relabel, in launches of a window's levels: the stats after it (still
        open where the CPU's BFS pays, see _relabel); None where a rival answered first."""
        self.relabel_seconds = 0.0
        while True:
            stats, seconds, _ = self._launch(self.levels, gpu_sync_cpu.BFS_LEVELS,
                                             self.device.global_relabel)
            self.relabel_seconds += seconds
            if not stats[gpu_sync_cpu.BFS_OPEN]:
                self.rounds_seconds = 0.0
                self.global_relabels += 1
                self.trace.append({"global_relabel": len(self.trace) + 1,
                                   "rounds": int(stats[gpu_sync_cpu.ROUND]),
                                   "active": int(stats[gpu_sync_cpu.ACTIVE])})
                return stats
            if self._answered():
                return None
            if self._cpu_pays(lambda cpu: self.arcs * cpu.unit_seconds + self.download_seconds,
                              self.relabel_seconds):
                return stats

    def _cpu_pays(self, cpu_seconds, device_seconds: float) -> bool:
        """Whether the preflow goes to the CPU now: the hand-over is on and the CPU's
        estimate (`cpu_seconds` of the CpuFinish) is shorter than the device's seconds."""
        return self.cpu is not None and cpu_seconds(self.cpu) < device_seconds

    def _cpu_phase(self, active: int, from_labels: bool) -> bool:
        """The preflow to the host, hipr on it (CpuFinish.run: from the device's labels, or
        from a global update of its own) for as long as stage 1 has run so far plus the
        transfers, and back unless hipr finished stage 1. A phase cut short at most doubles
        the time spent, and each is longer than all before it together: the CPU is never
        starved, and a wrong guess costs at most what has been spent (a doubling strategy).
        False where a rival answered meanwhile (its answer stops hipr as well)."""
        narrow = self._host_residuals()[0]
        transfers = self.device.seconds["transfer"]
        self.device.download(narrow, self.excess, self.cpu.label)
        transfers = self.device.seconds["transfer"] - transfers
        with self.race.stopping(np.zeros(1, np.uint8)) as stop:
            self.finished_on_cpu = self.cpu.run(
                narrow, self.excess, active, not from_labels, not self.bfs_given_up,
                self._elapsed() + transfers, stop)
        self.trace.append(self.cpu.trace[-1] | {"after_global_relabel": self.global_relabels})
        if self.finished_on_cpu:
            return True
        if self._answered():
            return False
        self.device.upload(narrow, self.excess)  # a global relabel left open starts over
        return True

    def _elapsed(self) -> float:
        """Stage 1's seconds so far, from the upload on."""
        return time.perf_counter() - self.started

    def _host_residuals(self) -> tuple[np.ndarray, np.ndarray]:
        """The host's residuals: the array the device's residuals come into, and the array
        stage 2 takes (the same, or the int64 array, made once, whose first bytes hold
        them)."""
        if not self.wide:
            return self.host_res, self.host_res
        if self.host_res is None:
            self.host_res = np.empty(self.arcs, np.int64)
        return self.host_res.view(self.res_type)[:self.arcs], self.host_res

    def download(self) -> np.ndarray:
        """The residuals (and the excesses into self.excess), of the device's type, or as
        int64 where stage 2 takes them (self.wide): narrower residuals then come into the first
        bytes of the int64 array and are widened in place (widened), so that the host never
        holds both. The host's own where the CPU finished stage 1."""
        narrow, res = self._host_residuals()
        if not self.finished_on_cpu:
            self.device.download(narrow, self.excess)
        if self.wide:
            widened(res, self.res_type)
        return res

    def _answered(self) -> bool:
        self.answer = self.race.winner()
        return self.answer is not None

    def _launch(self, window: Window, slot: int, launch,
                *arguments) -> tuple[np.ndarray, float, int]:
        """One launch of a window's steps: the stats after it, its seconds and steps."""
        before = int(self.device.stats[slot])
        started = time.perf_counter()
        stats = launch(*arguments, window.steps)
        seconds = time.perf_counter() - started
        steps = int(stats[slot]) - before
        window.ran(steps, seconds)
        self.launch_seconds = min(self.launch_seconds, seconds)
        return stats, seconds, steps


@functools.cache
def cpu_unit_seconds() -> float:
    """hipr's seconds per unit of work on this machine (work_units), the hand-over's
    estimate until a CPU phase measures it on the instance: stage 1 on genrmf a=16, b=16
    (4,096 vertices, frames joined by random permutations, so little locality), the second of
    two runs (the first compiles and warms)."""
    from maxflow_cli.registry import get_solver

    graph = build_residual(generators.make("genrmf", a=16, b=16, seed=1))
    spec = get_solver("hipr")
    options = spec.resolve(SolveOptions())
    for _ in range(2):
        result = spec.solve(graph, options)
    units = work_units(result.counters["pushes"], result.counters["relabels"],
                       options.params["beta"], graph)
    return result.times["stage1"] / max(units, 1)


def work_units(pushes: int, relabels: int, beta: int, graph: ResidualGraph) -> float:
    """hi_pr's measure of work, its pushes counted: a unit a push, and a relabel's BETA plus
    a scan of a vertex's arcs (of a mean vertex: the counters do not say which)."""
    return pushes + relabels * (beta + graph.head.shape[0] / max(graph.n, 1))


class CpuFinish:
    """hipr's core (hi_pr's stage 1) on the host's copy of gpu-sync's preflow: the
    hand-over's CPU side, with its counters, seconds, and the seconds per unit of work
    (work_units) it last measured."""

    OUTCOMES = {DONE: "done", STOPPED_AT_GLOBAL_UPDATE: "global update due",
                STOPPED: "time up"}

    def __init__(self, graph: ResidualGraph, params: dict, frequency: float):
        self.graph, self.params, self.frequency = graph, params, frequency
        self.label = np.empty(graph.n, np.int32)
        self.counters = np.zeros(len(COUNTER_NAMES), np.int64)
        self.unit_seconds = cpu_unit_seconds()
        self.seconds = 0.0
        self.trace: list[dict] = []

    @property
    def vertex_seconds(self) -> float:
        """The estimate for discharging an active vertex: a push and a relabel."""
        return work_units(1, 1, self.params["beta"], self.graph) * self.unit_seconds

    def run(self, res: np.ndarray, excess: np.ndarray, active: int, update_first: bool,
            stop_at_update: bool, allowance: float, stop: np.ndarray) -> bool:
        """hipr on (res, excess, self.label), from a global update where `update_first`,
        until it is done, its next global update is due (where `stop_at_update`),
        `allowance` seconds have passed or `stop` is set otherwise; True when it is done."""
        g, p, counters = self.graph, self.params, self.counters
        if allowance <= 0:  # no time: stopped before it starts
            stop[0] = 1
        timer = threading.Timer(allowance, stop.fill, (1,))
        pushes, relabels = int(counters[PUSHES]), int(counters[RELABELS])
        started = time.perf_counter()
        timer.start()
        try:
            outcome = hipr_stage_one(g.first, g.head, g.rev, res, excess, self.label, g.source,
                                     g.sink, self.frequency, p["alpha"], p["beta"],
                                     stop_at_update, counters, update_first=update_first,
                                     stop=stop)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - started
        units = work_units(int(counters[PUSHES]) - pushes, int(counters[RELABELS]) - relabels,
                           p["beta"], g)
        if units:
            self.unit_seconds = seconds / units
        self.seconds += seconds
        self.trace.append({"cpu_phase": len(self.trace) + 1, "active": active,
                           "update_first": update_first, "allowance": allowance,
                           "work_units": units, "seconds": seconds,
                           "unit_ns": self.unit_seconds * 1e9,
                           "outcome": self.OUTCOMES[outcome]})
        return outcome == DONE

    def counts(self) -> dict[str, int]:
        """Its phases, pushes and relabels, as gpu-sync's counters name them."""
        return {"cpu_phases": len(self.trace), "cpu_pushes": int(self.counters[PUSHES]),
                "cpu_relabels": int(self.counters[RELABELS])}


def hand_over_download_seconds(graph: ResidualGraph, res: np.ndarray, seconds: dict) -> float:
    """The estimated seconds of a hand-over's download (residuals, excesses, labels), at the
    rate the upload of the graph and the preflow took (`seconds`, the device's so far),
    counted in the CPU's estimate for a BFS (at a billion arcs it is seconds). After rounds
    it is not: there the rounds' rate decides, and the doubling bounds a wrong guess."""
    uploaded = sum(a.nbytes for a in (graph.first, graph.head, graph.rev, res)) + 8 * graph.n
    downloaded = res.nbytes + 12 * graph.n
    return seconds["transfer"] * downloaded / max(uploaded, 1)


def widened(wide: np.ndarray, narrow_type=np.int32) -> None:
    """The `narrow_type`s (of s bytes) in the first bytes of `wide` as int64s in place: the
    top part first, then the top part of what is left, and so on, so that no element is read
    after it is overwritten and no copy reads what it writes (NumPy would copy through a
    buffer)."""
    narrow = wide.view(narrow_type)
    size = narrow.itemsize
    high = wide.size
    while high > 1:
        low = -(-high * size // 8)  # reads bytes s low .. s high, writes from 8 low >= s high
        wide[low:high] = narrow[low:high]
        high = low
    if wide.size:
        wide[0] = narrow[0]


def solve_gpu_sync(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """With the default rivals, where most vertices are links of chains, the network with
    its chains contracted (chains.solve_contracted: on Goldberg's bad case and Cheriyan's
    graph a round moves an excess one link, and the rounds grow with the chains), then the
    engine and its rivals (_solve_gpu_sync); --rivals none runs the engine on the network as
    it is."""
    if options.params["rivals"] == RIVALS.default and (answer := solve_contracted(
            graph, time.perf_counter(), lambda contracted, started, why: replace(
                result := _solve_gpu_sync(contracted, options, chains=True),
                why=f"on the network with its chains contracted, since {why}: {result.why}"))):
        return answer
    return _solve_gpu_sync(graph, options)


def _solve_gpu_sync(graph: ResidualGraph, options: SolveOptions,
                    chains: bool = False) -> SolveResult:
    """The GPU engine, raced by its rivals on the CPU where there are some: the first answer
    wins. On a graph too narrow for the GPU (narrow_for_gpu) the CPU runs alone
    (_solve_narrow); `chains`: `graph` is the network with its chains contracted."""
    rivals = able(entrants(options.params["rivals"], options.want_flow), graph)
    if rivals and (narrow := narrow_for_gpu(graph, options.device)):
        return _solve_narrow(graph, options, rivals, narrow, chains)
    compiled = _compile_for(graph, options)
    started = time.perf_counter()
    with Race(rivals, graph) as race:
        engine = Engine(graph, options, polled=bool(rivals))
        try:
            stats = engine.run(race)
            if stats is not None:
                res = engine.download()
        finally:
            engine.device.close()
    seconds = time.perf_counter() - started
    where = f"gpu-sync's engine (on the {options.device})"
    if stats is None:
        answer = engine.answer
        return replace(answer, solver="gpu-sync", trace=engine.trace, winner=answer.solver,
                       why=f"{answer.solver} answered before {where} and the other rivals")
    times = ({"compile": compiled} if compiled else {}) | {"stage1": seconds} \
        | engine.device.seconds
    flow_value = int(engine.excess[graph.sink])
    if options.want_flow:
        timed_stage_two(graph, res, engine.excess, times)
    counters = SYNC_COUNTS.read(stats) | {"global_relabels": engine.global_relabels}
    if engine.cpu is not None:
        counters |= engine.cpu.counts()
        times["cpu"] = engine.cpu.seconds
    why = f"{where} answered before {joined(rivals)} on the CPU" if rivals else ""
    if engine.finished_on_cpu:
        why += ("; " if why else "") + hand_over_reason(engine)
    return SolveResult("gpu-sync", flow_value, res, options.want_flow, times, counters,
                       engine.trace, winner="gpu-sync" if rivals else "", why=why)


def _solve_narrow(graph: ResidualGraph, options: SolveOptions, rivals: list, narrow: str,
                  chains: bool) -> SolveResult:
    """On a graph too narrow for the GPU, the CPU alone: with the default rivals, as auto
    runs them there (hpf, hipr taking over where it calls for help; eibfs first on
    vision-like shapes; hipr alone on the chains contracted), each set-up timed apart, as it
    is for the solvers they race; the rivals named race alone on threads of their own, each
    set-up on the clock."""
    if options.params["rivals"] == RIVALS.default:
        auto, on_cpu = _relay(options.want_flow, "hipr" if chains else None)
        # on gpu-sync's device, auto weighs the graph as gpu-sync did and says why it runs
        # on the CPU
        answer = auto.solve(graph, replace(on_cpu, device=options.device))
        return replace(answer, solver="gpu-sync")
    with Race(rivals, graph) as race:
        answer = race.first()
    return replace(answer, solver="gpu-sync", winner=answer.solver,
                   why=f"{narrow}: {answer.solver} answered first of {joined(rivals)}")


def _relay(want_flow: bool, rivals: str | None = None) -> tuple:
    """auto, whose relay runs on graphs too narrow for the GPU, and its options on the CPU,
    with `rivals` (None: its default)."""
    auto = get_solver("auto")
    params = {} if rivals is None else {"rivals": rivals}
    return auto, auto.resolve(SolveOptions(want_flow, "cpu", params))


def hand_over_reason(engine: Engine) -> str:
    """Why the CPU finished stage 1, and from what."""
    phase = engine.trace[-1]
    start = ("a global update of its own, the device's BFS being slower"
             if phase["update_first"] else f"{phase['active']} active vertices")
    return (f"hipr finished stage 1 on the CPU after global relabel "
            f"{phase['after_global_relabel']}, from {start} (CPU phase {phase['cpu_phase']})")


def prepare_gpu_sync(options: SolveOptions) -> float:
    """Compile the engine on a tiny graph, then each rival: the seconds it took."""
    seconds = 0.0
    if options.params["rivals"] == RIVALS.default:  # the relay and the chains' contraction
        auto, on_cpu = _relay(options.want_flow)
        seconds = auto.prepare(on_cpu)
    seconds += _compile_for(tiny_graph(), options)
    if options.params["hand_over"] == "auto":
        seconds += compile_hand_over(options.params)
    return seconds + prepare_rivals(entrants(options.params["rivals"], options.want_flow))


def prepare_gpu_sync_rest(options: SolveOptions) -> float:
    """What auto's relay leaves to its first solve (_solve_narrow runs the relay with the
    default rivals): the seconds it took."""
    if options.params["rivals"] != RIVALS.default:
        return 0.0
    auto, on_cpu = _relay(options.want_flow)
    return auto.prepare_rest(on_cpu)


def _compile_for(graph: ResidualGraph, options: SolveOptions) -> float:
    """The engine compiled for the graph's arc numbers and residual type, the first time
    they come in this process (compile_for_graph: prepare_gpu_sync compiles for 32-bit arc
    numbers and 16-bit residuals; each other pair would lengthen every first run), and the
    hand-over for a wide graph's 64-bit arc numbers: the seconds it took."""
    engine_only = SolveOptions(options.want_flow, options.device,
                               options.params | {"rivals": NO_RIVALS})
    seconds = compile_for_graph("gpu-sync", solve_gpu_sync, engine_only, graph)
    if graph.wide and options.params["hand_over"] == "auto":
        seconds += compile_once(("gpu-sync hand-over wide", options.want_flow),
                                lambda: compile_hand_over(options.params, np.int64))
    return seconds


def compile_hand_over(params: dict, arc_type=None) -> float:
    """hipr's core compiled for every residual type the hand-over gives it (on the tiny
    graph, its arcs indexed by `arc_type`s), and the CPU's seconds per unit of work measured
    (cpu_unit_seconds): the seconds it took."""
    started = time.perf_counter()
    graph = tiny_graph(arc_type)
    for res_type in C_TYPES:
        res, excess, label, _ = initialize_preflow(graph, res_type=res_type)
        cpu = CpuFinish(graph, params, params["global_update_frequency"])
        cpu.label[:] = label
        for update_first in (False, True):
            cpu.run(res.copy(), excess.copy(), 0, update_first, True, 60.0,
                    np.zeros(1, np.uint8))
    return time.perf_counter() - started


register_with_kernels(
    "gpu-sync", "our device-resident push-relabel: synchronous rounds over an active list, "
    "global relabels by a BFS on the GPU, raced by CPU solvers (--rivals)",
    "ours, after Baumstark, Blelloch & Shun 2015 and He & Hong 2010", solve_gpu_sync, (
        Parameter("global_update_frequency", float, 0.25,
                  "global relabel when work * this > alpha * n + m (0: only when "
                  "no vertex is active)", minimum=0.0, maximum=1e6),
        Parameter("alpha", int, 6, "weight of n in the global relabel budget",
                  minimum=0, maximum=10**6),
        Parameter("beta", int, 12, "work charged per relabel besides its arc scans",
                  minimum=0, maximum=10**6),
        Parameter("group_size", int, 0, "lanes that discharge a vertex together, a "
                  "power of two up to 32 (0: the mean degree's, rounded up)", minimum=0,
                  maximum=32),
        Parameter("hand_over", str, "auto",
                  "auto: after a global relabel that leaves fewer active vertices than the "
                  "CPU discharges in the time of a device round, hipr goes on on the CPU "
                  "(and hands back when its global update is due or its time is up); "
                  "never: the device alone", choices=("auto", "never")),
        RIVALS,
    ), prepare=prepare_gpu_sync, prepare_rest=prepare_gpu_sync_rest, wide_arcs=True)
