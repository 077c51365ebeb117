"""Where gpu-sync's kernels run: gpu_sync.cu through PyCUDA, or its Numba twin
(gpu_sync_cpu.py), behind one interface (SyncDevice): ``global_relabel()`` and
``rounds(beta, budget, max_rounds)`` each run one persistent kernel, launched by its
declaration (declarations.py), and return the stats (gpu_sync_cpu's slots);
``download(res, excess)`` brings the preflow back; ``close()``.

The state lives on the device from upload to download: the graph (first, head, rev), the
residuals (32-bit when every residual fits, else 64-bit), excesses (64-bit), labels, the
round each vertex was last queued for, two active lists and the stats. Only the stats (320
bytes) cross the bus between kernels.
"""

import time

import numpy as np

from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels import gpu_sync_cpu, load
from maxflow_cli.kernels.declarations import (
    GPU_SYNC_RELABEL,
    GPU_SYNC_ROUNDS,
    Kernel,
    source_constant,
)
from maxflow_cli.kernels.devices import GpuMemory
from maxflow_cli.limits import INT32_MAX

BLOCK = source_constant("gpu_sync", "BLOCK")
MIN_BLOCKS = source_constant("gpu_sync", "MIN_BLOCKS")  # resident per multiprocessor


def residual_type(graph) -> type:
    """int32 where no residual can pass 2^31 - 1 (an arc's residual is at most its capacity
    plus its reverse arc's: twice the largest capacity bounds it), else int64."""
    return np.int32 if 2 * int(graph.cap.max(initial=0)) <= INT32_MAX else np.int64


def device_bytes(graph, res_type) -> int:
    """The GPU memory a SyncGpuDevice allocates: first; head, rev and res per arc; excess,
    label, queued and two lists per vertex; the stats."""
    arcs = graph.head.shape[0]
    per_arc = 8 + np.dtype(res_type).itemsize
    return 4 * (graph.n + 1) + per_arc * arcs + 24 * graph.n + 8 * gpu_sync_cpu.STATS_SLOTS


class SyncDevice:
    """What both devices share: the two kernels launched by their declarations, each argument
    taken by name from ``self.arguments`` (the scalars a call gives, the device's own arrays
    otherwise), and the seconds in each."""

    def __init__(self, graph, width: int):
        self.graph = graph
        self.width = width
        self.seconds = {"global_relabel": 0.0, "rounds": 0.0}

    def _common_arguments(self) -> dict:
        g = self.graph
        return {"n": g.n, "source": g.source, "sink": g.sink, "width": self.width}

    def global_relabel(self) -> np.ndarray:
        """One global relabel (and the next round's list); the stats after it."""
        return self._run("global_relabel", GPU_SYNC_RELABEL, {})

    def rounds(self, beta: int, budget: int, max_rounds: int) -> np.ndarray:
        """Rounds until the list empties, the work reaches `budget` or `max_rounds` ran; the
        stats after them."""
        return self._run("rounds", GPU_SYNC_ROUNDS,
                         {"beta": beta, "budget": budget, "max_rounds": max_rounds})

    def _run(self, kind: str, kernel: Kernel, scalars: dict) -> np.ndarray:
        arguments = self.arguments | scalars
        started = time.perf_counter()
        stats = self._launch(kernel, [arguments[name] for name in kernel.arguments])
        self.seconds[kind] += time.perf_counter() - started
        return stats


class SyncTwinDevice(SyncDevice):
    """gpu_sync.cu's Numba twin, on arrays of its own."""

    def __init__(self, graph, res, excess, width: int):
        super().__init__(graph, width)
        n = graph.n
        self.res = res.copy()
        self.excess = excess.copy()
        self.stats = gpu_sync_cpu.new_stats()
        self.arguments = self._common_arguments() | {
            "first": graph.first, "head": graph.head, "rev": graph.rev, "res": self.res,
            "excess": self.excess, "label": np.empty(n, np.int32),
            "queued": np.full(n, -1, np.int32), "list0": np.empty(n, np.int32),
            "list1": np.empty(n, np.int32), "stats": self.stats}

    def _launch(self, kernel: Kernel, args: list) -> np.ndarray:
        getattr(gpu_sync_cpu, kernel.name)(*args)
        return self.stats.copy()

    def download(self, res: np.ndarray, excess: np.ndarray) -> None:
        res[:] = self.res
        excess[:] = self.excess

    def close(self) -> None:
        pass


class SyncGpuDevice(GpuMemory, SyncDevice):
    """gpu_sync.cu on the GPU: a grid of MIN_BLOCKS blocks per multiprocessor, all resident,
    as the kernels' grid barrier needs. A launch returns once its stats are back."""

    def __init__(self, graph, res, excess, width: int):
        super().__init__(graph, width)
        self._open_on_gpu(lambda: self._open(graph, res, excess),
                          device_bytes(graph, res.dtype))

    def _open(self, graph, res, excess) -> None:
        cuda = self.cuda
        define = "RES_T=int" if res.dtype == np.int32 else "RES_T=long long"
        module = load("gpu_sync", (define,))
        self.kernels = {kernel.name: module.get_function(kernel.name).prepare(
            kernel.pycuda_types) for kernel in (GPU_SYNC_RELABEL, GPU_SYNC_ROUNDS)}
        device = cuda.Context.get_device()
        multiprocessors = device.get_attribute(cuda.device_attribute.MULTIPROCESSOR_COUNT)
        self.grid = (multiprocessors * MIN_BLOCKS, 1)
        n = graph.n
        self.stats_host = gpu_sync_cpu.new_stats()
        self.arguments = self._common_arguments() | {
            "first": self._copy_in(graph.first), "head": self._copy_in(graph.head),
            "rev": self._copy_in(graph.rev), "res": self._copy_in(res),
            "excess": self._copy_in(excess), "label": self._allocate(4 * n),
            "queued": self._allocate(4 * n), "list0": self._allocate(4 * n),
            "list1": self._allocate(4 * n), "stats": self._copy_in(self.stats_host)}
        cuda.memset_d32(self.arguments["queued"], 0xFFFFFFFF, max(n, 1))

    def _launch(self, kernel: Kernel, args: list) -> np.ndarray:
        self.kernels[kernel.name].prepared_call(self.grid, (BLOCK, 1, 1), *args)
        self.cuda.memcpy_dtoh(self.stats_host, self.arguments["stats"])
        return self.stats_host.copy()

    def download(self, res: np.ndarray, excess: np.ndarray) -> None:
        self.cuda.memcpy_dtoh(res, self.arguments["res"])
        self.cuda.memcpy_dtoh(excess, self.arguments["excess"])


def group_width(graph) -> int:
    """Lanes that discharge or scan a vertex together: the smallest power of two at least
    the mean number of arcs a vertex has, at most a warp."""
    mean = graph.head.shape[0] / max(graph.n, 1)
    width = 1
    while width < min(mean, 32):
        width *= 2
    return width


def open_sync_device(kind: str, graph, res: np.ndarray, excess: np.ndarray, width: int = 0):
    """A SyncGpuDevice (kind "gpu") or SyncTwinDevice ("cpu") holding `graph` and the
    preflow (res, of residual_type(graph); excess); the GPU's lane groups are `width` wide
    (0: group_width)."""
    if width & (width - 1):
        raise ParameterError(f"--group-size {width}: must be a power of two (or 0)")
    device = SyncGpuDevice if kind == "gpu" else SyncTwinDevice
    return device(graph, res, excess, width or group_width(graph))
