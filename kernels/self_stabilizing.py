"""self-stabilizing's kernels (self_stabilizing.cu, or its Numba twin self_stabilizing_cpu.py)
on one device (devices.py): ``batch(first_round, rounds)`` runs that many rounds (three
launches each) and returns which of them were busy; ``download(res)``, ``moves()``,
``close()``.

The state stays on the device from upload to download: the graph and capacities, the
residuals, two label arrays (round r reads labels[r % 2] and publishes labels[(r + 1) % 2]),
the demands and guards of the round, the busy flags of the batch and the move counts. Only
the flags (BATCH ints) cross the bus between batches.
"""

import numpy as np

from maxflow_cli.kernels import self_stabilizing_cpu
from maxflow_cli.kernels.declarations import (
    MOVE_COUNTS,
    STABILIZING_GUARDS,
    STABILIZING_LABELS,
    STABILIZING_MOVES,
)
from maxflow_cli.kernels.devices import Layout, open_device

BATCH = self_stabilizing_cpu.BATCH


def initial_state(graph) -> tuple[np.ndarray, np.ndarray]:
    """Every arc saturated (Alvino 2015, §3.2.2: the algorithm starts so) and every label n
    but the source's 0: the residuals and the first label array."""
    label = np.full(graph.n, graph.n, np.int32)
    label[graph.source] = 0
    return graph.cap[graph.rev], label  # fancy indexing: a new array


def stabilizing_layout(graph) -> Layout:
    """The buffers: first; head and rev (int32), cap and res (int64) per arc; two labels,
    demand and guard per vertex; the batch's busy flags and the move counts."""
    arcs, n = graph.head.shape[0], graph.n
    return {"first": (n + 1, np.int32), "head": (arcs, np.int32), "rev": (arcs, np.int32),
            "cap": (arcs, np.int64), "res": (arcs, np.int64), "label0": (n, np.int32),
            "label1": (n, np.int32), "demand": (n, np.int64), "guard": (n, np.int32),
            "busy": (BATCH, np.int32), "stats": (MOVE_COUNTS.size, np.int64)}


class StabilizingKernels:
    """self_stabilizing.cu's three kernels on one device, a thread per vertex; the launches
    of a batch queue without a wait, the busy flags' copy waits for them. Round r reads the
    labels label{r % 2} and publishes label{(r + 1) % 2}."""

    def __init__(self, kind: str, graph):
        """The kernels on the GPU (kind "gpu") or their twins ("cpu") holding `graph` in the
        algorithm's starting state."""
        self.n = graph.n
        res, label = initial_state(graph)
        self.device = open_device(kind, {"n": graph.n, "source": graph.source,
                                         "sink": graph.sink})
        self.device.allocate(stabilizing_layout(graph), {
            "first": graph.first, "head": graph.head, "rev": graph.rev, "cap": graph.cap,
            "res": res, "label0": label})
        self.device.fill("stats", 0)
        self.seconds = self.device.seconds
        self.close = self.device.close

    def batch(self, first_round: int, rounds: int) -> np.ndarray:
        """Rounds first_round .. first_round + rounds - 1 (rounds <= BATCH); the busy flag of
        each (slot round % BATCH): whether a label changed or a guard held in it."""
        device, buffers = self.device, self.device.buffers
        with device.timed("rounds"):
            device.fill("busy", 0)
            for number in range(first_round, first_round + rounds):
                read, written = buffers[f"label{number % 2}"], buffers[f"label{1 - number % 2}"]
                device.launch(STABILIZING_LABELS, self.n, round_number=number, label=read,
                              next_label=written)
                for kernel in (STABILIZING_GUARDS, STABILIZING_MOVES):
                    device.launch(kernel, self.n, round_number=number, label=written)
            return device.download("busy", np.empty(BATCH, np.int32))

    def download(self, res: np.ndarray) -> None:
        self.device.download("res", res)

    def moves(self) -> dict[str, int]:
        """The moves of S2, S3 and S4 (MOVE_COUNTS)."""
        return MOVE_COUNTS.read(self.device.download("stats",
                                                     np.zeros(MOVE_COUNTS.size, np.int64)))
