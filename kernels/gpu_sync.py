"""gpu-sync's kernels (gpu_sync.cu, or its Numba twin gpu_sync_cpu.py) on one device
(devices.py): ``global_relabel(max_levels)`` and ``rounds(beta, budget, max_rounds)`` each
run one persistent kernel and return the stats (gpu_sync_cpu's slots); ``download(res,
excess)`` brings the preflow back and ``upload(res, excess)`` sends it again (gpu-sync's
hand-over to the CPU); ``close()``.

The state lives on the device from upload to download: the graph (first, head, rev; arc
numbers 32-bit, or 64-bit in a wide graph), the residuals (16-bit or 32-bit where every
residual fits, else 64-bit), excesses (64-bit), labels, the round each vertex was last
queued for, two active lists and the stats. Only the stats (320 bytes) cross the bus
between kernels, unless the engine hands the preflow to the CPU.
"""

from contextlib import ExitStack

import numpy as np

from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels import gpu_sync_cpu
from maxflow_cli.kernels.declarations import (
    GPU_SYNC_RELABEL,
    GPU_SYNC_ROUNDS,
    Kernel,
    source_constant,
)
from maxflow_cli.kernels.devices import Layout, gpu_multiprocessors, open_device

C_TYPES = {np.uint16: "unsigned short", np.int32: "int", np.int64: "long long"}


def sync_layout(graph, res_type) -> Layout:
    """The buffers: first; head, rev and res per arc; excess, label, queued and two lists per
    vertex; the stats. first and rev hold arc numbers, of the graph's index type."""
    arcs, n, index = graph.head.shape[0], graph.n, graph.rev.dtype
    return {"first": (n + 1, index), "head": (arcs, np.int32), "rev": (arcs, index),
            "res": (arcs, res_type), "excess": (n, np.int64), "label": (n, np.int32),
            "queued": (n, np.int32), "list0": (n, np.int32), "list1": (n, np.int32),
            "stats": (gpu_sync_cpu.STATS_SLOTS, np.int64)}


class SyncKernels:
    """gpu_sync.cu's two persistent kernels on one device, holding the graph and the preflow
    from upload to download; each launch returns the stats after it."""

    def __init__(self, kind: str, graph, res: np.ndarray, excess: np.ndarray, width: int = 0,
                 shares_host: bool = False, held: tuple = ()):
        """The kernels on the GPU (kind "gpu") or their twins ("cpu") holding `graph` and the
        preflow (res, of residual_type(graph); excess); the GPU's lane groups are `width`
        wide (0: group_width); `shares_host` as Device.shares_host. The host arrays `held`
        (the ones every transfer of the preflow copies) stay locked (Device.locked) until
        close()."""
        if width & (width - 1):
            raise ParameterError(f"--group-size {width}: must be a power of two (or 0)")
        width = width or group_width(graph)
        defines = tuple(f"{name}={C_TYPES[array.dtype.type]}"
                        for name, array in (("RES_T", res), ("ARC_T", graph.rev)))
        self.n = graph.n
        self.device = open_device(kind, {"n": graph.n, "source": graph.source,
                                         "sink": graph.sink, "width": width},
                                  defines=defines)
        self.device.shares_host = shares_host
        self._held = ExitStack()
        try:
            for array in held:
                self._held.enter_context(self.device.locked(array))
            self.device.allocate(sync_layout(graph, res.dtype), {
                "first": graph.first, "head": graph.head, "rev": graph.rev, "res": res,
                "excess": excess, "stats": gpu_sync_cpu.new_stats()})
        except BaseException:
            self._held.close()
            raise
        self.device.fill("queued", -1)
        self.stats = gpu_sync_cpu.new_stats()
        self.seconds = self.device.seconds

    def close(self) -> None:
        """Free what the device holds, and unlock the held arrays."""
        self.device.close()
        self._held.close()

    def global_relabel(self, max_levels: int) -> np.ndarray:
        """Up to `max_levels` levels of a global relabel, and the next round's list once it is
        done (stats[BFS_OPEN] == 0); the stats after them."""
        return self._run("global_relabel", GPU_SYNC_RELABEL, {"max_levels": max_levels})

    def rounds(self, beta: int, budget: int, max_ns: int, max_rounds: int) -> np.ndarray:
        """Rounds until the list empties, the work (arcs scanned, `beta` a relabel) reaches
        `budget` or the launch has run `max_ns` nanoseconds (either sets stats[STOP]), or
        `max_rounds` ran; the stats after them."""
        return self._run("rounds", GPU_SYNC_ROUNDS, {
            "beta": beta, "budget": budget, "max_ns": max_ns, "max_rounds": max_rounds})

    def _run(self, kind: str, kernel: Kernel, scalars: dict) -> np.ndarray:
        with self.device.timed(kind):
            self.device.launch(kernel, self.n, **scalars)
        return self.device.download("stats", self.stats).copy()

    def download(self, res: np.ndarray, excess: np.ndarray,
                 label: np.ndarray | None = None) -> None:
        """The preflow into the host's arrays, and the labels where `label` is given."""
        self.device.download("res", res)
        self.device.download("excess", excess)
        if label is not None:
            self.device.download("label", label)

    def upload(self, res: np.ndarray, excess: np.ndarray) -> None:
        """The host's preflow onto the device; the next global relabel makes the labels,
        from the start where one was left open."""
        self.device.upload("res", res)
        self.device.upload("excess", excess)
        self.stats[gpu_sync_cpu.BFS_OPEN] = 0
        self.device.upload("stats", self.stats)


def group_width(graph) -> int:
    """Lanes that discharge or scan a vertex together: the smallest power of two at least
    the mean number of arcs a vertex has, at most a warp."""
    mean = graph.head.shape[0] / max(graph.n, 1)
    width = 1
    while width < min(mean, 32):
        width *= 2
    return width


def vertices_at_once(graph) -> int:
    """How many vertices the GPU's rounds discharge at once: gpu_sync.cu's resident threads
    (MIN_BLOCKS blocks of BLOCK threads a multiprocessor) over the lanes a vertex takes
    (group_width)."""
    threads = gpu_multiprocessors() * source_constant("gpu_sync", "MIN_BLOCKS") \
        * source_constant("gpu_sync", "BLOCK")
    return threads // group_width(graph)


def narrow_for_gpu(graph, device: str) -> str:
    """Why the GPU would not pay ('' where it may): the graph has fewer vertices than the
    rounds discharge at once (vertices_at_once), so every round leaves lanes idle even with
    every vertex active, and still costs its grid barriers, while the engine's set-up (the
    preflow, the page-locking, the uploads) costs as much as a CPU solver's. The twins
    (device "cpu") are never too narrow."""
    if device != "gpu":
        return ""
    at_once = vertices_at_once(graph)
    if graph.n - 2 >= at_once:
        return ""
    return f"the GPU would not pay: its rounds discharge {at_once:,} vertices at once, and " \
        f"the graph has {graph.n - 2:,}"
