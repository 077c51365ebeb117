"""Where gpu-sync's kernels run: gpu_sync.cu through PyCUDA, or its Numba twin
(gpu_sync_cpu.py), behind one interface: ``global_relabel()`` and ``rounds(budget,
max_rounds)`` each run one persistent kernel and return the stats (gpu_sync_cpu's slots);
``download(res, excess)`` brings the preflow back; ``close()``.

The state lives on the device from upload to download: the graph (first, head, rev), the
residuals (32-bit when every residual fits, else 64-bit), excesses (64-bit), labels, the
round each vertex was last queued for, two active lists and the stats. Only the few hundred bytes of
stats cross the bus between kernels.
"""

import time

import numpy as np

from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels import gpu_sync_cpu, load
from maxflow_cli.kernels.devices import gpu_error

BLOCK = 512  # as in gpu_sync.cu
MIN_BLOCKS = 2  # blocks resident per multiprocessor (gpu_sync.cu's __launch_bounds__)
INT32_MAX = 2**31 - 1


def residual_type(graph) -> type:
    """int32 where no residual can pass 2^31 - 1 (an arc's residual is at most its capacity
    plus its reverse arc's: twice the largest capacity bounds it), else int64."""
    return np.int32 if 2 * int(graph.cap.max(initial=0)) <= INT32_MAX else np.int64


def device_bytes(graph, res_type) -> int:
    """The GPU memory a SyncGpuDevice allocates: first; head, rev and res per arc; excess,
    label, queued and two lists per vertex; the stats."""
    arcs = graph.head.shape[0]
    return 4 * (graph.n + 1) + (8 + np.dtype(res_type).itemsize) * arcs + 24 * graph.n + 8 * gpu_sync_cpu.STATS_SLOTS


class SyncTwinDevice:
    """gpu_sync.cu's Numba twin, on arrays of its own."""

    def __init__(self, graph, res, excess):
        self.graph = graph
        self.res = res.astype(residual_type(graph))
        self.excess = excess.copy()
        n = graph.n
        self.label = np.empty(n, np.int32)
        self.queued = np.full(n, -1, np.int32)
        self.lists = (np.empty(n, np.int32), np.empty(n, np.int32))
        self.stats = gpu_sync_cpu.new_stats()
        self.seconds = {"global_relabel": 0.0, "rounds": 0.0}

    def global_relabel(self) -> np.ndarray:
        g = self.graph
        started = time.perf_counter()
        gpu_sync_cpu.global_relabel(g.n, g.source, g.sink, g.first, g.head, g.rev, self.res,
                                    self.excess, self.label, self.queued, *self.lists,
                                    self.stats)
        self.seconds["global_relabel"] += time.perf_counter() - started
        return self.stats.copy()

    def rounds(self, beta: int, budget: int, max_rounds: int) -> np.ndarray:
        g = self.graph
        started = time.perf_counter()
        gpu_sync_cpu.rounds(g.n, g.source, g.sink, beta, budget, max_rounds, g.first, g.head,
                            g.rev, self.res, self.excess, self.label, self.queued, *self.lists,
                            self.stats)
        self.seconds["rounds"] += time.perf_counter() - started
        return self.stats.copy()

    def download(self, res: np.ndarray, excess: np.ndarray) -> None:
        res[:] = self.res
        excess[:] = self.excess

    def close(self) -> None:
        pass


class SyncGpuDevice:
    """gpu_sync.cu on the GPU: a grid of MIN_BLOCKS blocks per multiprocessor, all resident,
    as the kernels' grid barrier needs. Kernel times by CUDA events."""

    def __init__(self, graph, res, excess, width: int):
        import pycuda.driver as cuda

        self.cuda = cuda
        self.allocations = []
        self.width = width
        res_type = residual_type(graph)
        try:
            self._open(graph, res.astype(res_type), excess, res_type)
        except cuda.Error as error:
            self.close()
            if isinstance(error, getattr(cuda, "CompileError", ())):
                raise
            raise gpu_error(cuda, error, device_bytes(graph, res_type)) from None
        except BaseException:
            self.close()
            raise

    def _open(self, graph, res, excess, res_type) -> None:
        cuda = self.cuda
        define = "RES_T=int" if res_type == np.int32 else "RES_T=long long"
        module = load("gpu_sync", (define,))
        self.relabel_kernel = module.get_function("global_relabel_kernel").prepare(
            "iiiiPPPPPPPPPP")
        self.rounds_kernel = module.get_function("rounds_kernel").prepare(
            "iiiiiqiPPPPPPPPPP")
        device = cuda.Context.get_device()
        multiprocessors = device.get_attribute(cuda.device_attribute.MULTIPROCESSOR_COUNT)
        self.grid = (multiprocessors * MIN_BLOCKS, 1)
        self.graph = graph
        self.res_type = res_type
        n = graph.n
        self.first, self.head, self.rev, self.res = (
            self._copy_in(a) for a in (graph.first, graph.head, graph.rev, res))
        self.excess = self._copy_in(excess)
        self.label, self.queued, self.list0, self.list1 = (
            self._allocate(4 * n) for _ in range(4))
        cuda.memset_d32(self.queued, 0xFFFFFFFF, max(n, 1))
        self.stats_host = np.zeros(gpu_sync_cpu.STATS_SLOTS, np.int64)
        self.stats = self._copy_in(self.stats_host)
        self.events = (cuda.Event(), cuda.Event())
        self.seconds = {"global_relabel": 0.0, "rounds": 0.0}

    def _allocate(self, nbytes: int):
        allocation = self.cuda.mem_alloc(max(nbytes, 1))
        self.allocations.append(allocation)
        return allocation

    def _copy_in(self, array: np.ndarray):
        allocation = self._allocate(array.nbytes)
        self.cuda.memcpy_htod(allocation, np.ascontiguousarray(array))
        return allocation

    def _run(self, kind: str, kernel, *args) -> np.ndarray:
        start, stop = self.events
        start.record()
        kernel.prepared_call(self.grid, (BLOCK, 1, 1), *args)
        stop.record()
        stop.synchronize()
        self.seconds[kind] += stop.time_since(start) / 1000
        self.cuda.memcpy_dtoh(self.stats_host, self.stats)
        return self.stats_host.copy()

    def _state(self):
        """The kernels' array arguments, in their order."""
        return (self.first, self.head, self.rev, self.res, self.excess, self.label,
                self.queued, self.list0, self.list1, self.stats)

    def global_relabel(self) -> np.ndarray:
        g = self.graph
        return self._run("global_relabel", self.relabel_kernel, g.n, g.source, g.sink,
                         self.width, *self._state())

    def rounds(self, beta: int, budget: int, max_rounds: int) -> np.ndarray:
        g = self.graph
        return self._run("rounds", self.rounds_kernel, g.n, g.source, g.sink,
                         self.width, beta, budget, max_rounds, *self._state())

    def download(self, res: np.ndarray, excess: np.ndarray) -> None:
        on_device = np.empty(res.shape[0], self.res_type)
        self.cuda.memcpy_dtoh(on_device, self.res)
        res[:] = on_device
        self.cuda.memcpy_dtoh(excess, self.excess)

    def close(self) -> None:
        for allocation in self.allocations:
            allocation.free()
        self.allocations = []


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
    preflow (res, excess); the GPU's lane groups are `width` wide (0: group_width)."""
    if width & (width - 1):
        raise ParameterError(f"--group-size {width}: must be a power of two (or 0)")
    if kind == "gpu":
        return SyncGpuDevice(graph, res, excess, width or group_width(graph))
    return SyncTwinDevice(graph, res, excess)
