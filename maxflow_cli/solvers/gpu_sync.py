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
Stage 1 ends when a global relabel finds no active vertex: then no vertex with excess reaches
the sink, and the vertices that do form the sink side of a minimum cut. Only the kernels'
stats cross the bus in between. Its rivals (maxflow_cli.race) race it on CPU threads, and the
host looks for their answer between launches, which then last about WINDOW_SECONDS each.
With ``--device cpu`` the kernels' Numba twins run the same loop on CPU threads.
"""

import time
from dataclasses import replace

import numpy as np

from maxflow_cli.kernels import gpu_sync_cpu
from maxflow_cli.kernels.declarations import SYNC_COUNTS
from maxflow_cli.kernels.gpu_sync import SyncKernels, residual_type
from maxflow_cli.pushrelabel.highest_label import timed_stage_two
from maxflow_cli.pushrelabel.relabel import initialize_preflow
from maxflow_cli.race import NO_RIVALS, RIVALS, Race, entrants, joined
from maxflow_cli.race import prepare as prepare_rivals
from maxflow_cli.registry import (
    Parameter,
    SolveOptions,
    compile_on_tiny_graph,
    register_with_kernels,
)
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult

UNLIMITED = 1 << 30  # levels or rounds a launch may run where nobody polls between launches
# Launch lengths while rivals race: long enough that a launch and its stats read-back cost
# next to nothing, short enough that a rival's answer waits at most about this long.
WINDOW_SECONDS = 0.002


class Window:
    """How many steps (BFS levels, rounds) the next launch runs: the steps that took about
    WINDOW_SECONDS in the last launch (at least 1), or UNLIMITED where nobody polls."""

    def __init__(self, polled: bool):
        # before any step is timed: few enough that even slow steps keep the first launch
        # short, after which the measured rate decides
        self.steps = 16 if polled else UNLIMITED
        self._polled = polled

    def ran(self, steps: int, seconds: float) -> None:
        if self._polled and steps > 0:
            self.steps = max(1, min(UNLIMITED, int(steps * WINDOW_SECONDS / max(seconds, 1e-6))))


class Engine:
    """gpu-sync's GPU loop on one device. ``run(poll)`` calls ``poll()`` between launches (a
    rival's answer, or None) and stops at the first answer it gives (kept as ``answer``)."""

    def __init__(self, graph: ResidualGraph, options: SolveOptions, polled: bool):
        params = options.params
        self.params = params
        res, self.excess, _, _ = initialize_preflow(graph, res_type=residual_type(graph))
        self.res_type, self.arcs = res.dtype, res.shape[0]  # the host's copy goes once uploaded
        self.frequency = params["global_update_frequency"]
        self.budget = int((params["alpha"] * graph.n + graph.m) / self.frequency) \
            if self.frequency > 0 else 2**62
        self.device = SyncKernels(options.device, graph, res, self.excess,
                                  params["group_size"], shares_host=polled)
        self.levels, self.rounds = Window(polled), Window(polled)
        self.relabel_seconds = 0.0  # the last global relabel's launches, in seconds
        self.rounds_seconds = 0.0  # the rounds' launches since
        self.trace: list[dict] = []
        self.answer: SolveResult | None = None

    def run(self, poll) -> np.ndarray | None:
        """Global relabels and rounds until a global relabel finds no active vertex: the
        stats then; None where a rival answered first."""
        stats = self._global_relabel(poll)
        while stats is not None and stats[gpu_sync_cpu.ACTIVE] > 0:
            stats, seconds = self._launch(self.rounds, gpu_sync_cpu.ROUND, self.device.rounds,
                                          self.params["beta"], self.budget,
                                          self._rounds_ns_left())
            self.rounds_seconds += seconds
            if self._answered(poll):
                return None
            if stats[gpu_sync_cpu.ACTIVE] == 0 or stats[gpu_sync_cpu.STOP]:
                stats = self._global_relabel(poll)
        return stats

    def _rounds_ns_left(self) -> int:
        """Nanoseconds the rounds may still run before a global relabel is due by time: the
        last global relabel's time / frequency, less what the rounds took since."""
        if self.frequency <= 0:
            return 2**62
        return max(1, int((self.relabel_seconds / self.frequency - self.rounds_seconds) * 1e9))

    def _global_relabel(self, poll) -> np.ndarray | None:
        """One global relabel, in launches of a window's levels; None where a rival answered
        in between."""
        self.relabel_seconds = 0.0
        while True:
            stats, seconds = self._launch(self.levels, gpu_sync_cpu.BFS_LEVELS,
                                          self.device.global_relabel)
            self.relabel_seconds += seconds
            if not stats[gpu_sync_cpu.BFS_OPEN]:
                self.rounds_seconds = 0.0
                self.trace.append({"global_relabel": len(self.trace) + 1,
                                   "rounds": int(stats[gpu_sync_cpu.ROUND]),
                                   "active": int(stats[gpu_sync_cpu.ACTIVE])})
                return stats
            if self._answered(poll):
                return None

    def download(self, as_int64: bool) -> np.ndarray:
        """The residuals (and the excesses into self.excess), of the device's type, or as
        int64 where `as_int64` (stage 2 takes int64s): 32-bit residuals then come into the
        first half of the int64 array's bytes and are widened in place (widened), so that the
        host never holds both."""
        if not as_int64 or self.res_type == np.int64:
            res = np.empty(self.arcs, self.res_type)
            self.device.download(res, self.excess)
            return res
        wide = np.empty(self.arcs, np.int64)
        self.device.download(wide.view(np.int32)[:wide.size], self.excess)
        widened(wide)
        return wide

    def _answered(self, poll) -> bool:
        self.answer = poll()
        return self.answer is not None

    def _launch(self, window: Window, slot: int, launch,
                *arguments) -> tuple[np.ndarray, float]:
        """One launch of a window's steps: the stats after it and its seconds."""
        before = int(self.device.stats[slot])
        started = time.perf_counter()
        stats = launch(*arguments, window.steps)
        seconds = time.perf_counter() - started
        window.ran(int(stats[slot]) - before, seconds)
        return stats, seconds


def widened(wide: np.ndarray) -> None:
    """The int32s in the first half of `wide`'s bytes as int64s in place: the top half
    first, then the top half of what is left, and so on, so that no element is read after
    it is overwritten and no copy reads what it writes (NumPy would copy through a buffer)."""
    narrow = wide.view(np.int32)
    high = wide.size
    while high > 1:
        low = (high + 1) // 2  # reads bytes 4 low .. 4 high, writes from 8 low >= 4 high
        wide[low:high] = narrow[low:high]
        high = low
    if wide.size:
        wide[0] = narrow[0]


def solve_gpu_sync(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """The GPU engine, raced by its rivals on the CPU where there are some: the first answer
    wins."""
    started = time.perf_counter()
    rivals = entrants(options.params["rivals"], options.want_flow)
    with Race(rivals, graph) as race:
        engine = Engine(graph, options, polled=bool(rivals))
        try:
            stats = engine.run(race.winner)
            if stats is not None:
                res = engine.download(as_int64=options.want_flow)
        finally:
            engine.device.close()
    seconds = time.perf_counter() - started
    where = f"gpu-sync's engine (on the {options.device})"
    if stats is None:
        answer = engine.answer
        return replace(answer, solver="gpu-sync", trace=engine.trace, winner=answer.solver,
                       why=f"{answer.solver} answered before {where} and the other rivals")
    times = {"stage1": seconds} | engine.device.seconds
    flow_value = int(engine.excess[graph.sink])
    if options.want_flow:
        timed_stage_two(graph, res, engine.excess, times)
    counters = SYNC_COUNTS.read(stats) | {"global_relabels": len(engine.trace)}
    why = f"{where} answered before {joined(rivals)} on the CPU" if rivals else ""
    return SolveResult("gpu-sync", flow_value, res, options.want_flow, times, counters,
                       engine.trace, winner="gpu-sync" if rivals else "", why=why)


def prepare_gpu_sync(options: SolveOptions) -> float:
    """Compile the engine on a tiny graph, then each rival: the seconds it took."""
    engine_only = SolveOptions(options.want_flow, options.device,
                               options.params | {"rivals": NO_RIVALS})
    seconds = compile_on_tiny_graph(solve_gpu_sync, engine_only)
    return seconds + prepare_rivals(entrants(options.params["rivals"], options.want_flow))


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
        RIVALS,
    ), prepare=prepare_gpu_sync)
