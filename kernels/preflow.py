"""The push-relabel kernels of cuda, gpu-bfs, hybrid and openmp-cuda (push_relabel.cu,
single_loop.cu, global_relabel.cu) on one device (devices.py).

The graph (``first``, ``head``, ``rev``) is copied once, as He & Hong keep the pointers apart
from the data; the state arrays ``res``, ``excess`` and ``label`` cross only when the host
loop asks (``to_device``, ``to_host``). Each kernel that reports whether it found work sets a
flag of its own (``active_seen``, ``active_count``, ``changed``); the counts follow
PREFLOW_COUNTS.
"""

import numpy as np

from maxflow_cli.kernels.declarations import (
    BFS_LEVEL,
    CANCEL_VIOLATIONS,
    PREFLOW_COUNTS,
    PUSH_RELABEL,
    RESET_LABELS,
    SINGLE_LOOP,
)
from maxflow_cli.kernels.devices import Layout, layout_bytes, open_device

STATE_TYPES = {"res": np.int64, "excess": np.int64, "label": np.int32}
FLAGS = ("active_seen", "active_count", "changed")
SINGLE_LOOP_STREAMS = 4  # Alvino 2015, §4.1.2: four launches, a quarter of the vertices each


def quarters(n: int) -> list[tuple[int, int]]:
    """The vertex ranges of the single-loop kernel's launches, one per stream."""
    parts = SINGLE_LOOP_STREAMS
    return [(n * k // parts, n * (k + 1) // parts) for k in range(parts)]


def preflow_layout(graph) -> Layout:
    """The buffers: the graph, the state, the counts and the flags."""
    arcs, n = graph.head.shape[0], graph.n
    lengths = {"res": arcs, "excess": n, "label": n}
    return {"first": (n + 1, np.int32), "head": (arcs, np.int32), "rev": (arcs, np.int32),
            **{name: (lengths[name], kind) for name, kind in STATE_TYPES.items()},
            "counts": (PREFLOW_COUNTS.size, np.uint64), **{flag: (1, np.int32) for flag in FLAGS}}


def device_bytes(graph) -> int:
    """The GPU memory the kernels hold for `graph`."""
    return layout_bytes(preflow_layout(graph))


class PreflowKernels:
    """The kernels' launches, the state's transfers, the counters and the seconds."""

    def __init__(self, kind: str, graph, block_size: int):
        """The graph on a device of `kind` ("gpu" or "cpu": the twins)."""
        self.n = graph.n
        self.device = open_device(kind, {"n": graph.n, "source": graph.source,
                                         "sink": graph.sink}, block_size)
        self.device.allocate(preflow_layout(graph), {"first": graph.first, "head": graph.head,
                                                     "rev": graph.rev})
        self.device.fill("counts", 0)
        self.seconds = self.device.seconds
        self.seconds.setdefault("kernels", 0.0)
        self.host_array = self.device.host_array
        self.to_device = self.device.upload
        self.to_host = self.device.download
        self.close = self.device.close

    @property
    def launches(self) -> int:
        return self.device.launches

    def _flagged(self, flag: str, launches) -> int:
        """Clear `flag`, run `launches()` timed as kernels; the flag after them."""
        self.device.fill(flag, 0)
        with self.device.timed("kernels"):
            launches()
        return int(self.device.download(flag, np.zeros(1, np.int32))[0])

    def push_relabel(self, cycles: int) -> bool:
        """Runs push_relabel_kernel; whether an active vertex was seen."""
        return bool(self._flagged("active_seen", lambda: self.device.launch(
            PUSH_RELABEL, self.n, cycles=cycles)))

    def single_loop(self, sweeps: int = 1) -> int:
        """Runs single_loop_kernel `sweeps` times over the vertices, each time on each quarter
        of them on a stream of its own (Alvino's four streams), with no wait on the host
        between sweeps, and returns how many vertices the last sweep found active: 4 bytes
        back, not the state. The flag is cleared, on the default stream, after every earlier
        sweep and before the last."""
        def sweep_all():
            for sweep in range(sweeps):
                if sweep == sweeps - 1:
                    self.device.fill("active_count", 0)
                for stream, (begin, end) in enumerate(quarters(self.n), start=1):
                    self.device.launch(SINGLE_LOOP, end - begin, stream, begin=begin, end=end)
        return self._flagged("active_count", sweep_all)

    def cancel_violations(self) -> None:
        with self.device.timed("kernels"):
            self.device.launch(CANCEL_VIOLATIONS, self.n)

    def reset_labels(self, unreached: int) -> None:
        with self.device.timed("kernels"):
            self.device.launch(RESET_LABELS, self.n, unreached=unreached)

    def bfs_level(self, level: int, unreached: int) -> bool:
        """Runs one BFS level; whether it labelled a vertex."""
        return bool(self._flagged("changed", lambda: self.device.launch(
            BFS_LEVEL, self.n, level=level, unreached=unreached)))

    def counters(self) -> dict[str, int]:
        counts = self.device.download("counts", np.zeros(PREFLOW_COUNTS.size, np.uint64))
        return PREFLOW_COUNTS.read(counts) | {"kernel_launches": self.device.launches}
