"""Where self-stabilizing's kernels run: self_stabilizing.cu through PyCUDA, or its Numba twin
(self_stabilizing_cpu.py), behind one interface (StabilizingDevice): ``batch(first_round,
rounds)`` runs that many rounds (three launches each, by their declarations) and returns
which of them were busy; ``download(res)``, ``moves()``, ``close()``.

The state stays on the device from upload to download: the graph and capacities, the
residuals, two label arrays (round r reads labels[r % 2] and publishes labels[(r + 1) % 2]),
the demands and guards of the round, the busy flags of the batch and the move counts. Only
the flags (BATCH ints) cross the bus between batches.
"""

import time

import numpy as np

from maxflow_cli.kernels import load, self_stabilizing_cpu
from maxflow_cli.kernels.declarations import (
    STABILIZING_GUARDS,
    STABILIZING_LABELS,
    STABILIZING_MOVES,
    Kernel,
    source_constant,
)
from maxflow_cli.kernels.devices import GpuMemory, numba_twin

BLOCK = source_constant("self_stabilizing", "BLOCK")
BATCH = self_stabilizing_cpu.BATCH
ROUND_KERNELS = (STABILIZING_LABELS, STABILIZING_GUARDS, STABILIZING_MOVES)


def initial_state(graph) -> tuple[np.ndarray, np.ndarray]:
    """Every arc saturated (Alvino 2015, §3.2.2: the algorithm starts so) and every label n
    but the source's 0: the residuals and the first label array."""
    label = np.full(graph.n, graph.n, np.int32)
    label[graph.source] = 0
    return graph.cap[graph.rev], label  # fancy indexing: a new array


def device_bytes(graph) -> int:
    """The GPU memory a StabilizingGpuDevice allocates: first; head and rev (int32), cap and
    res (int64) per arc; two labels, demand and guard per vertex; flags and counts."""
    arcs = graph.head.shape[0]
    return 4 * (graph.n + 1) + 24 * arcs + 20 * graph.n + 4 * BATCH + 8 * 3


class StabilizingDevice:
    """What both devices share: a batch of rounds, each kernel's arguments taken by name
    from ``self.arguments`` and the round's scalars and label arrays."""

    def __init__(self):
        self.seconds = {"rounds": 0.0}

    def _prepare_rounds(self) -> None:
        """Each kernel's argument list for even and for odd rounds, built once: the labels
        kernel reads labels[parity] and writes labels[1 - parity], which the guards and moves
        then read; from round to round only the round number changes."""
        self.calls = []
        for parity in (0, 1):
            read, written = self.labels[parity], self.labels[1 - parity]
            calls = []
            for kernel in ROUND_KERNELS:
                arguments = self.arguments | {
                    "round_number": 0, "next_label": written,
                    "label": read if kernel is STABILIZING_LABELS else written}
                calls.append((kernel, [arguments[name] for name in kernel.arguments],
                              kernel.arguments.index("round_number")))
            self.calls.append(calls)

    def batch(self, first_round: int, rounds: int) -> np.ndarray:
        """Rounds first_round .. first_round + rounds - 1 (rounds <= BATCH); the busy flag of
        each (slot round % BATCH): whether a label changed or a guard held in it."""
        started = time.perf_counter()
        self._clear_busy()
        for round_number in range(first_round, first_round + rounds):
            for kernel, arguments, round_slot in self.calls[round_number % 2]:
                arguments[round_slot] = round_number
                self._launch(kernel, arguments)
        busy = self._busy()
        self.seconds["rounds"] += time.perf_counter() - started
        return busy


class StabilizingTwinDevice(StabilizingDevice):
    """self_stabilizing.cu's Numba twin, on arrays of its own."""

    def __init__(self, graph):
        super().__init__()
        res, label = initial_state(graph)
        self.res = res
        self.labels = (label, np.empty_like(label))
        self.stats = np.zeros(3, np.int64)
        self.busy_flags = np.zeros(BATCH, np.int32)
        self.arguments = {"n": graph.n, "source": graph.source, "sink": graph.sink,
                          "first": graph.first, "head": graph.head, "rev": graph.rev,
                          "cap": graph.cap, "res": res, "demand": np.empty(graph.n, np.int64),
                          "guard": np.empty(graph.n, np.int32), "busy": self.busy_flags,
                          "stats": self.stats}
        self._prepare_rounds()

    def _launch(self, kernel: Kernel, args: list) -> None:
        numba_twin(kernel.file, kernel.name)(*args)

    def _clear_busy(self) -> None:
        self.busy_flags[:] = 0

    def _busy(self) -> np.ndarray:
        return self.busy_flags.copy()

    def download(self, res: np.ndarray) -> None:
        res[:] = self.res

    def moves(self) -> np.ndarray:
        return self.stats.copy()

    def close(self) -> None:
        pass


class StabilizingGpuDevice(GpuMemory, StabilizingDevice):
    """self_stabilizing.cu on the GPU, a thread per vertex in blocks of BLOCK. The launches
    of a batch queue without a wait; the busy flags' copy waits for them."""

    def __init__(self, graph):
        super().__init__()
        self._open_on_gpu(lambda: self._open(graph), device_bytes(graph))

    def _open(self, graph) -> None:
        module = load("self_stabilizing")
        self.kernels = {kernel.name: module.get_function(kernel.name).prepare(
            kernel.pycuda_types) for kernel in ROUND_KERNELS}
        self.grid = (max(1, -(-graph.n // BLOCK)), 1)
        res, label = initial_state(graph)
        self.labels = (self._copy_in(label), self._allocate(label.nbytes))
        self.arguments = {"n": graph.n, "source": graph.source, "sink": graph.sink,
                          "first": self._copy_in(graph.first), "head": self._copy_in(graph.head),
                          "rev": self._copy_in(graph.rev), "cap": self._copy_in(graph.cap),
                          "res": self._copy_in(res), "demand": self._allocate(8 * graph.n),
                          "guard": self._allocate(4 * graph.n),
                          "busy": self._allocate(4 * BATCH),
                          "stats": self._copy_in(np.zeros(3, np.int64))}
        self._prepare_rounds()

    def _launch(self, kernel: Kernel, args: list) -> None:
        self.kernels[kernel.name].prepared_async_call(self.grid, (BLOCK, 1, 1), None, *args)

    def _clear_busy(self) -> None:
        self.cuda.memset_d32(self.arguments["busy"], 0, BATCH)

    def _busy(self) -> np.ndarray:
        busy = np.empty(BATCH, np.int32)
        self.cuda.memcpy_dtoh(busy, self.arguments["busy"])
        return busy

    def download(self, res: np.ndarray) -> None:
        self.cuda.memcpy_dtoh(res, self.arguments["res"])

    def moves(self) -> np.ndarray:
        stats = np.zeros(3, np.int64)
        self.cuda.memcpy_dtoh(stats, self.arguments["stats"])
        return stats


def open_stabilizing_device(kind: str, graph):
    """A StabilizingGpuDevice (kind "gpu") or StabilizingTwinDevice ("cpu") holding `graph`
    in the algorithm's starting state."""
    return StabilizingGpuDevice(graph) if kind == "gpu" else StabilizingTwinDevice(graph)
