"""Where the solvers' kernels run: on the GPU through PyCUDA (GpuDevice), or as their Numba
twins on the CPU (TwinDevice), behind one interface (Device).

Both devices hold the graph (``first``, ``head``, ``rev``: copied once, as He & Hong keep the
pointers apart from the data) and the state arrays ``res``, ``excess`` and ``label``, which
cross only when the host algorithm asks (``to_device``, ``to_host``). The host algorithms
(maxflow_cli/solvers/) are written once against Device. The twins keep their own copies of
the state too, so a copy the host algorithm forgets shows on the CPU as it would on the GPU.
Kernels are launched by their declaration (declarations.py), arguments passed by name.
"""

import functools
import importlib
import time
from abc import ABC, abstractmethod

import numpy as np

from maxflow_cli.errors import MaxflowError, ParameterError
from maxflow_cli.kernels import gpu_unavailable, load
from maxflow_cli.kernels.declarations import (
    BFS_LEVEL,
    CANCEL_VIOLATIONS,
    PUSH_RELABEL,
    RESET_LABELS,
    SINGLE_LOOP,
    Kernel,
)
from maxflow_cli.memory import GPU

STATE_TYPES = {"res": np.int64, "excess": np.int64, "label": np.int32}
SINGLE_LOOP_STREAMS = 4  # Alvino 2015, §4.1.2: four launches, a quarter of the vertices each


def quarters(n: int) -> list[tuple[int, int]]:
    """The vertex ranges of the single-loop kernel's launches, one per stream."""
    parts = SINGLE_LOOP_STREAMS
    return [(n * k // parts, n * (k + 1) // parts) for k in range(parts)]


def default_device() -> str:
    """The GPU where one can be used, else the twins."""
    return "cpu" if gpu_unavailable() else "gpu"


def device_unavailable(options) -> str | None:
    """The registry's ``unavailable`` for solvers with kernels: only the GPU can be missing."""
    return gpu_unavailable() if options.device == "gpu" else None


def open_device(kind: str, graph, block_size: int):
    """A GpuDevice (kind "gpu") or a TwinDevice ("cpu") holding `graph`. The range of
    `block_size` (32..1024) is checked with the solver's other parameters
    (block_size_parameter); its multiple of 32 here. A device that cannot be opened holds
    nothing: GpuDevice frees what it allocated before it raises."""
    if block_size % 32:
        raise ParameterError(f"--block-size {block_size}: must be a multiple of 32 in 32..1024")
    return GpuDevice(graph, block_size) if kind == "gpu" else TwinDevice(graph)


def device_bytes(graph) -> int:
    """The GPU memory a GpuDevice allocates for `graph`: first, head, rev (int32), res
    (int64) per arc, excess (int64) and label (int32) per vertex, the counters and the flag."""
    arcs = graph.head.shape[0]
    return 4 * (graph.n + 1) + 16 * arcs + 12 * graph.n + 3 * 8 + 4


def gpu_error(cuda, error, needed: int) -> MaxflowError:
    """A one-line MaxflowError for a PyCUDA driver error (`cuda`: pycuda.driver); out of
    memory says how much the instance needs."""
    message = (str(error).strip().splitlines() or [type(error).__name__])[0]
    if isinstance(error, cuda.MemoryError) or "out of memory" in message:
        return MaxflowError(f"GPU out of memory: the instance needs about "
                            f"{-(-needed // 10**6)} MB of GPU memory ({message})")
    return MaxflowError(f"GPU error: {message}")


def counter_values(counts, launches: int) -> dict[str, int]:
    """A device's counters, from its three counts (pushes, relabels, arcs cancelled) and its
    kernel launches."""
    pushes, relabels, cancelled = (int(count) for count in counts)
    return {"pushes": pushes, "relabels": relabels, "violations_cancelled": cancelled,
            "kernel_launches": launches}


class Device(ABC):
    """The device interface of the host algorithms: state transfers, the kernels they launch,
    the counters and seconds. A subclass provides the memory (``arguments``: every kernel
    argument that is not a scalar of the launch, by name) and the launches."""

    n: int
    seconds: dict[str, float]  # "kernels", "transfer"
    launches: int
    arguments: dict

    @abstractmethod
    def host_array(self, length: int, dtype) -> np.ndarray:
        """A host array for the state, as fast to copy as this device allows."""

    @abstractmethod
    def to_device(self, name: str, host: np.ndarray) -> None:
        """Copy the host array into the state array `name` ("res", "excess" or "label")."""

    @abstractmethod
    def to_host(self, name: str, host: np.ndarray) -> None:
        """Copy the state array `name` into the host array."""

    @abstractmethod
    def close(self) -> None:
        """Free what the device holds."""

    @abstractmethod
    def _launch(self, kernel: Kernel, args: list, vertices: int) -> None:
        """Launch `kernel` with `args` over `vertices` vertices, timed into seconds["kernels"]."""

    @abstractmethod
    def _clear_flag(self) -> None:
        """Clear the flag a kernel sets (its "active_seen", "active_count" or "changed"
        argument)."""

    @abstractmethod
    def _flag(self) -> int:
        """The flag after the last flagged launch: nonzero where it was set, a count where the
        kernel counts into it ("active_count")."""

    @abstractmethod
    def _counts(self) -> np.ndarray:
        """The three counts: pushes, relabels, arcs cancelled."""

    def _arguments(self, kernel: Kernel, scalars: dict) -> list:
        return [scalars[name] if name in scalars else self.arguments[name]
                for name in kernel.arguments]

    def run(self, kernel: Kernel, **scalars) -> None:
        """Launch a declared kernel over the vertices: `scalars` by name, every other argument
        from the device's own."""
        self._launch(kernel, self._arguments(kernel, scalars), self.n)

    def run_flagged(self, kernel: Kernel, **scalars) -> bool:
        """Launch a declared kernel that sets a flag; whether it set it."""
        self._clear_flag()
        self.run(kernel, **scalars)
        return bool(self._flag())

    def _launch_streams(self, kernel: Kernel, launches: list[tuple[list, int]],
                        sweeps: int) -> None:
        """Launch `kernel` once per (args, vertices), `sweeps` times over, the flag cleared
        before the last time; on streams of their own where the device has them, here one
        after the other."""
        for sweep in range(sweeps):
            if sweep == sweeps - 1:
                self._clear_flag()
            for args, vertices in launches:
                self._launch(kernel, args, vertices)

    def push_relabel(self, cycles: int) -> bool:
        """Runs push_relabel_kernel; whether an active vertex was seen."""
        return self.run_flagged(PUSH_RELABEL, cycles=cycles)

    def single_loop(self, sweeps: int = 1) -> int:
        """Runs single_loop_kernel `sweeps` times over the vertices, each time on each quarter
        of them (Alvino's four streams), with no wait on the host between sweeps, and returns
        how many vertices the last sweep found active: 4 bytes back, not the state."""
        self._launch_streams(SINGLE_LOOP, [
            (self._arguments(SINGLE_LOOP, {"begin": begin, "end": end}), end - begin)
            for begin, end in quarters(self.n)], sweeps)
        return self._flag()

    def cancel_violations(self) -> None:
        self.run(CANCEL_VIOLATIONS)

    def reset_labels(self, unreached: int) -> None:
        self.run(RESET_LABELS, unreached=unreached)

    def bfs_level(self, level: int, unreached: int) -> bool:
        """Runs one BFS level; whether it labelled a vertex."""
        return self.run_flagged(BFS_LEVEL, level=level, unreached=unreached)

    def counters(self) -> dict[str, int]:
        return counter_values(self._counts(), self.launches)


@functools.cache
def numba_twin(file: str, name: str):
    """The Numba twin of kernel `name` of kernels/<file>.cu (in kernels/<file>_cpu.py), looked
    up once rather than at every launch."""
    return getattr(importlib.import_module(f"maxflow_cli.kernels.{file}_cpu"), name)


class TwinDevice(Device):
    """The kernels' Numba twins, launched on the CPU on arrays of their own."""

    def __init__(self, graph):
        self.n = graph.n
        lengths = {"res": graph.head.shape[0], "excess": graph.n, "label": graph.n}
        self.state = {name: np.zeros(lengths[name], kind) for name, kind in STATE_TYPES.items()}
        self.counts = np.zeros(3, np.int64)  # pushes, relabels, arcs cancelled
        self.flag = np.zeros(1, np.int32)
        self.seconds = {"kernels": 0.0, "transfer": 0.0}
        self.launches = 0
        self.arguments = {"n": graph.n, "source": graph.source, "sink": graph.sink,
                          "first": graph.first, "head": graph.head, "rev": graph.rev,
                          **self.state, "counts": self.counts, "cancelled": self.counts[2:],
                          "active_seen": self.flag, "active_count": self.flag,
                          "changed": self.flag}

    def host_array(self, length: int, dtype) -> np.ndarray:
        return np.empty(length, dtype)

    def to_device(self, name: str, host: np.ndarray) -> None:
        started = time.perf_counter()
        np.copyto(self.state[name], host)
        self.seconds["transfer"] += time.perf_counter() - started

    def to_host(self, name: str, host: np.ndarray) -> None:
        started = time.perf_counter()
        np.copyto(host, self.state[name])
        self.seconds["transfer"] += time.perf_counter() - started

    def _launch(self, kernel: Kernel, args: list, vertices: int) -> None:
        twin = numba_twin(kernel.file, kernel.name)
        started = time.perf_counter()
        twin(*args)
        self.seconds["kernels"] += time.perf_counter() - started
        self.launches += 1

    def _clear_flag(self) -> None:
        self.flag[0] = 0

    def _flag(self) -> int:
        return int(self.flag[0])

    def _counts(self) -> np.ndarray:
        return self.counts

    def close(self) -> None:
        pass


class GpuMemory:
    """What a device on the GPU shares: its allocations, freed together (``_free``), and an
    opening that turns a driver error (out of memory, say) into a one-line MaxflowError after
    freeing what was allocated; a compile error is raised as it is, with the compiler's
    output."""

    def _open_on_gpu(self, opener, needed: int) -> None:
        """Run `opener()`, which allocates; `needed` is the bytes an out-of-memory error
        names."""
        import pycuda.driver as cuda

        self.cuda = cuda
        self.allocations, self.allocated_bytes = [], 0
        try:
            opener()
        except cuda.Error as error:
            self.close()
            if isinstance(error, getattr(cuda, "CompileError", ())):
                raise
            raise gpu_error(cuda, error, needed) from None
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self._free()

    def _free(self) -> None:
        for allocation in self.allocations:
            allocation.free()
        GPU.freed(self.allocated_bytes)
        self.allocations, self.allocated_bytes = [], 0

    def _allocate(self, nbytes: int):
        allocation = self.cuda.mem_alloc(max(nbytes, 1))
        self.allocations.append(allocation)
        self.allocated_bytes += max(nbytes, 1)
        GPU.allocated(max(nbytes, 1))  # for maxflow bench's peak_gpu_bytes
        return allocation

    def _copy_in(self, array: np.ndarray):
        allocation = self._allocate(array.nbytes)
        self._upload(allocation, np.ascontiguousarray(array))
        return allocation

    def _upload(self, allocation, array: np.ndarray) -> None:
        self.cuda.memcpy_htod(allocation, array)

    def _timed(self, kind: str, operation, *args):
        """Run `operation(*args)` between two CUDA events (self.events); add its seconds to
        self.seconds[kind]."""
        start, stop = self.events
        start.record()
        operation(*args)
        stop.record()
        stop.synchronize()
        self.seconds[kind] += stop.time_since(start) / 1000


class GpuDevice(GpuMemory, Device):
    """The kernels on the GPU. Kernel and transfer times are measured with CUDA events."""

    def __init__(self, graph, block_size: int):
        """Compiles the kernels (on first use) and copies `graph` in (see GpuMemory)."""
        self.flag_host = None
        self._open_on_gpu(lambda: self._open(graph, block_size), device_bytes(graph))

    def _open(self, graph, block_size: int) -> None:
        cuda = self.cuda
        self.n = graph.n
        self.kernels = {}
        for kernel in (PUSH_RELABEL, CANCEL_VIOLATIONS, RESET_LABELS, BFS_LEVEL):
            self._prepared(kernel)
        self.streams = []
        self.block = (block_size, 1, 1)
        self.seconds = {"kernels": 0.0, "transfer": 0.0}
        self.launches = 0
        self.events = (cuda.Event(), cuda.Event())
        first, head, rev = (self._copy_in(a) for a in (graph.first, graph.head, graph.rev))
        lengths = {"res": graph.head.shape[0], "excess": graph.n, "label": graph.n}
        self.state = {name: self._allocate(lengths[name] * np.dtype(kind).itemsize)
                      for name, kind in STATE_TYPES.items()}
        self.counts = self._copy_in(np.zeros(3, np.uint64))  # pushes, relabels, cancelled
        self.flag = self._allocate(4)
        self.flag_host = cuda.pagelocked_empty(1, np.int32)
        self.arguments = {"n": graph.n, "source": graph.source, "sink": graph.sink,
                          "first": first, "head": head, "rev": rev, **self.state,
                          "counts": self.counts, "cancelled": int(self.counts) + 16,
                          "active_seen": self.flag, "active_count": self.flag,
                          "changed": self.flag}

    def _prepared(self, kernel: Kernel):
        """The kernel's PyCUDA function, compiled on first use, prepared with its declared
        argument types."""
        if kernel.name not in self.kernels:
            function = load(kernel.file).get_function(kernel.name)
            self.kernels[kernel.name] = function.prepare(kernel.pycuda_types)
        return self.kernels[kernel.name]

    def _upload(self, allocation, array: np.ndarray) -> None:
        self._timed("transfer", self.cuda.memcpy_htod, allocation, array)

    def host_array(self, length: int, dtype) -> np.ndarray:
        """Page-locked host memory (He & Hong: cudaMallocHost doubles copy speed)."""
        try:
            return self.cuda.pagelocked_empty(length, dtype)
        except self.cuda.Error as error:
            raise MaxflowError(f"cannot allocate {-(-length * np.dtype(dtype).itemsize // 10**6)}"
                               f" MB of page-locked host memory: {str(error).strip()}") from None

    def to_device(self, name: str, host: np.ndarray) -> None:
        self._timed("transfer", self.cuda.memcpy_htod, self.state[name], host)

    def to_host(self, name: str, host: np.ndarray) -> None:
        self._timed("transfer", self.cuda.memcpy_dtoh, host, self.state[name])

    def _grid(self, kernel: Kernel, vertices: int) -> tuple[int, int]:
        return (max(1, -(-kernel.threads(vertices) // self.block[0])), 1)

    def _launch(self, kernel: Kernel, args: list, vertices: int) -> None:
        self._timed("kernels", self._prepared(kernel).prepared_call,
                    self._grid(kernel, vertices), self.block, *args)
        self.launches += 1

    def _launch_streams(self, kernel: Kernel, launches: list[tuple[list, int]],
                        sweeps: int) -> None:
        """Each launch on its own stream, all sweeps queued at once; the events on the
        default stream time them together. The flag's clearing, on the default stream too,
        waits for every earlier sweep and the last sweep for it (the streams are blocking
        streams); earlier sweeps may overlap on the four streams, as their quarters do."""
        function = self._prepared(kernel)
        while len(self.streams) < len(launches):
            self.streams.append(self.cuda.Stream())

        def launch_all():
            for sweep in range(sweeps):
                if sweep == sweeps - 1:
                    self.cuda.memset_d32_async(int(self.flag), 0, 1)
                for (args, vertices), stream in zip(launches, self.streams):
                    function.prepared_async_call(self._grid(kernel, vertices), self.block,
                                                 stream, *args)
                    self.launches += 1

        self._timed("kernels", launch_all)

    def _clear_flag(self) -> None:
        self.cuda.memset_d32(self.flag, 0, 1)

    def _flag(self) -> int:
        self._timed("transfer", self.cuda.memcpy_dtoh, self.flag_host, self.flag)
        return int(self.flag_host[0])

    def _counts(self) -> np.ndarray:
        counts = np.zeros(3, np.uint64)
        self.cuda.memcpy_dtoh(counts, self.counts)
        return counts

    def close(self) -> None:
        """Frees the device's GPU memory (what was allocated, where opening failed)."""
        self._free()
        if self.flag_host is not None:
            self.flag_host.base.free()
            self.flag_host = None
