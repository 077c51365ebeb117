"""The state GPU solvers' host loops work on (DevicePreflow), and the round state the hybrids
hand over between hipr on the CPU and a kernel on the device (HandOver)."""

import math
import time

import numba
import numpy as np

from maxflow_cli.kernels.preflow import PreflowKernels
from maxflow_cli.pushrelabel.highest_label import (
    COUNTER_NAMES,
    PUSHES,
    RELABELS,
    hipr_labels,
    hipr_stage_one,
    timed_stage_two,
)
from maxflow_cli.pushrelabel.parallel_relabel import (
    Workspace,
    parallel_cancel_violations,
    parallel_reverse_bfs,
)
from maxflow_cli.pushrelabel.relabel import initialize_preflow, strand_and_count, unfinished
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


class DevicePreflow:
    """The device `options` ask for, holding `graph` (a context manager closes it), and He &
    Hong's initial preflow (2010, Program 2) in its host arrays, with ExcessTotal."""

    def __init__(self, graph: ResidualGraph, options):
        self.graph, self.params = graph, options.params
        self.device = device = PreflowKernels(options.device, graph,
                                              options.params["block_size"])
        try:
            self.res, self.excess, self.label, total = initialize_preflow(graph,
                                                                          device.host_array)
        except BaseException:
            device.close()
            raise
        self.initial_total = self.excess_total = total

    def __enter__(self):
        return self

    def __exit__(self, *exception) -> None:
        self.device.close()

    def unfinished(self, active: int | None = None, solver: str = "") -> bool:
        """He & Hong's loop condition e(s) + e(t) < ExcessTotal (relabel.unfinished)."""
        g = self.graph
        return unfinished(self.excess, g.source, g.sink, self.initial_total, self.excess_total,
                          active, solver)

    def finish(self, name: str, want_flow: bool, times: dict, counters: dict,
               trace: list) -> SolveResult:
        """The SolveResult of the stage-1 preflow in the host arrays, after hi_pr's stage 2
        when a flow is wanted."""
        flow_value = int(self.excess[self.graph.sink])
        if want_flow:
            timed_stage_two(self.graph, self.res, self.excess, times)
        times.update(self.device.seconds)
        return SolveResult(name, flow_value, np.array(self.res), want_flow, times,
                           self.device.counters() | counters, trace)


class HandOver(DevicePreflow):
    """The preflow state both engines of a hybrid work on, in the device's (page-locked) host
    arrays, with hi_pr's labels, and the bookkeeping of He & Hong's loop: the vertices
    already taken out of ExcessTotal, the device that ran last, and every round's record.

    The global relabel that ends every round runs on the --threads CPU threads (inside
    threads_in_use): Alvino's Algorithm 13 and, after a GPU round, the parallel violation
    cancellation before it, in the scratch `space` (a Workspace of `graph`'s sizes, made
    here unless given).
    """

    def __init__(self, graph: ResidualGraph, options, parallel_gap: bool = False,
                 space: Workspace | None = None):
        super().__init__(graph, options)
        self.space = space or Workspace(graph)
        self.parallel_gap = parallel_gap  # hipr's gaps by Alvino's Algorithm 14
        hipr_labels(self.label, graph.source, graph.sink)
        self.hipr_counters = np.zeros(len(COUNTER_NAMES), np.int64)
        self.active = int(np.count_nonzero(self.excess > 0) - (self.excess[graph.sink] > 0))
        self.last_device = "cpu"
        self.device_current = False  # whether the device's res and excess are the host's
        self.bytes_moved = 0
        self.relabel_seconds = 0.0
        self.cancelled = 0
        self.trace: list[dict] = []
        self.seconds_at_last_record = self._part_seconds()

    def _part_seconds(self) -> dict[str, float]:
        """The seconds spent so far in kernels, in transfers and in global relabels."""
        return {"kernel_s": self.device.seconds["kernels"],
                "transfer_s": self.device.seconds["transfer"],
                "relabel_s": self.relabel_seconds}

    def _send(self, name: str, host: np.ndarray) -> None:
        self.device.to_device(name, host)
        self.bytes_moved += host.nbytes

    def _fetch(self, name: str, host: np.ndarray) -> None:
        self.device.to_host(name, host)
        self.bytes_moved += host.nbytes

    def cpu_round(self) -> int:
        """Algorithm 5 line 17: hipr from the current labels until its next global update
        (or its end). Returns its pushes and relabels."""
        g, p, counters = self.graph, self.params, self.hipr_counters
        before = counters[PUSHES] + counters[RELABELS]
        hipr_stage_one(g.first, g.head, g.rev, self.res, self.excess, self.label, g.source,
                       g.sink, p["global_update_frequency"], p["alpha"], p["beta"], True,
                       counters, self.parallel_gap)
        self.last_device = "cpu"
        self.device_current = False
        return int(counters[PUSHES] + counters[RELABELS] - before)

    def gpu_round(self, launch) -> int:
        """Algorithm 5 lines 5-11 (Alvino's Algorithm 9 lines 9-14): the state to the device
        where the host's changed since it came back (a CPU round, or arcs cancelled by the
        global relabel), the labels, `launch()`, the state back. Returns the pushes and
        relabels the kernel did."""
        before = _operations(self.device.counters())
        if not self.device_current:
            self._send("res", self.res)
            self._send("excess", self.excess)
        self._send("label", self.label)
        launch()
        self._fetch("res", self.res)
        self._fetch("excess", self.excess)
        self._fetch("label", self.label)
        self.last_device = "gpu"
        self.device_current = True
        return _operations(self.device.counters()) - before

    def global_relabel(self) -> None:
        """The global relabel that ends a round: after a GPU round Program 4 (cancelled arcs
        go back to the device with the next GPU round, not before: the next round may be on
        the CPU), after a CPU round hi_pr's global update (hipr's labels are valid: nothing
        to cancel); then ExcessTotal and aSize."""
        g, space = self.graph, self.space
        started = time.perf_counter()
        cancelled = 0
        if self.last_device == "gpu":
            cancelled = int(parallel_cancel_violations(g.first, g.head, g.rev, self.res,
                                                       self.excess, self.label, g.source))
        parallel_reverse_bfs(g.first, g.head, g.rev, self.res, g.sink, self.label, space.order,
                             space.claimed, space.buffer, numba.get_num_threads())
        stranded, active = strand_and_count(self.label, self.excess, space.marked, g.source,
                                            g.sink)
        self.relabel_seconds += time.perf_counter() - started
        self.excess_total -= int(stranded)
        self.active = int(active)
        self.cancelled += cancelled
        if cancelled:
            self.device_current = False

    def record(self, device: str, active_before: int, threshold: float, operations: int,
               seconds: float, **extra) -> None:
        """The round's entry in the trace, with the seconds its kernels, transfers and global
        relabel took (kernel_s, transfer_s, relabel_s): where a round's time goes."""
        now = self._part_seconds()
        parts = {key: now[key] - before for key, before in self.seconds_at_last_record.items()}
        self.seconds_at_last_record = now
        self.trace.append({"round": len(self.trace) + 1, "device": device,
                           "active": active_before, "active_after": self.active,
                           "threshold": threshold if math.isfinite(threshold) else None,
                           "operations": operations, "seconds": seconds, **parts, **extra})

    def result(self, name: str, want_flow: bool, started: float) -> SolveResult:
        """The SolveResult, with the rounds on each device counted."""
        times = {"stage1": time.perf_counter() - started,
                 "global_relabel": self.relabel_seconds}
        rounds = [entry["device"] for entry in self.trace]
        counters = {f"hipr_{key}": count for key, count in
                    zip(COUNTER_NAMES, self.hipr_counters.tolist())}
        counters |= {"rounds": len(rounds), "cpu_rounds": rounds.count("cpu"),
                     "gpu_rounds": rounds.count("gpu"), "violations_cancelled": self.cancelled}
        return self.finish(name, want_flow, times, counters, self.trace)


def _operations(counters: dict) -> int:
    return counters["pushes"] + counters["relabels"]
