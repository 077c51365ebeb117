"""Where the lock-free solvers' kernels run: on the GPU through PyCUDA, or as their Numba
twins on the CPU, behind one interface.

Both devices hold the graph (``first``, ``head``, ``rev``: copied once, as He & Hong keep the
pointers apart from the data) and the state arrays ``res``, ``excess`` and ``label``, which
cross only when the host algorithm asks (``to_device``, ``to_host``). The host algorithms
(``solvers/cuda.py``, ``solvers/gpu_bfs.py``) are written once against this interface. The
twins keep their own copies of the state too, so a copy the host algorithm forgets shows on
the CPU as it would on the GPU.
"""

import time

import numpy as np

from maxflow_cli.errors import MaxflowError, ParameterError
from maxflow_cli.kernels import gpu_unavailable, load
from maxflow_cli.kernels import global_relabel_cpu, push_relabel_cpu, single_loop_cpu

STATE_TYPES = {"res": np.int64, "excess": np.int64, "label": np.int32}
SINGLE_LOOP_STREAMS = 4  # Alvino 2015, §4.1.2: four launches, a quarter of the vertices each
VERTICES_PER_THREAD = 4  # as in single_loop.cu


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


class TwinDevice:
    """The kernels' Numba twins, launched on the CPU on arrays of their own."""

    def __init__(self, graph):
        self.n, self.source, self.sink = graph.n, graph.source, graph.sink
        self.first, self.head, self.rev = graph.first, graph.head, graph.rev
        lengths = {"res": graph.head.shape[0], "excess": graph.n, "label": graph.n}
        self.state = {name: np.zeros(lengths[name], kind) for name, kind in STATE_TYPES.items()}
        self.counts = np.zeros(3, np.int64)  # pushes, relabels, arcs cancelled
        self.seconds = {"kernels": 0.0, "transfer": 0.0}
        self.launches = 0

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

    def _launch(self, kernel, *args):
        started = time.perf_counter()
        outcome = kernel(*args)
        self.seconds["kernels"] += time.perf_counter() - started
        self.launches += 1
        return outcome

    def push_relabel(self, cycles: int) -> bool:
        """Runs push_relabel_kernel; whether an active vertex was seen."""
        s = self.state
        return self._launch(push_relabel_cpu.push_relabel_kernel, self.n, self.source,
                            self.sink, cycles, self.first, self.head, self.rev, s["res"],
                            s["excess"], s["label"], self.counts)

    def single_loop(self) -> None:
        """Runs single_loop_kernel on each quarter of the vertices in turn."""
        s = self.state
        for begin, end in quarters(self.n):
            self._launch(single_loop_cpu.single_loop_kernel, self.n, self.source, self.sink,
                         begin, end, self.first, self.head, self.rev, s["res"], s["excess"],
                         s["label"], self.counts)

    def cancel_violations(self) -> None:
        s = self.state
        self.counts[2] += self._launch(global_relabel_cpu.cancel_violations, self.first,
                                       self.head, self.rev, s["res"], s["excess"], s["label"],
                                       self.source)

    def reset_labels(self, unreached: int) -> None:
        self._launch(global_relabel_cpu.reset_labels, self.n, self.source, self.sink, unreached,
                     self.state["label"])

    def bfs_level(self, level: int, unreached: int) -> bool:
        """Runs one BFS level; whether it labelled a vertex."""
        s = self.state
        return self._launch(global_relabel_cpu.bfs_level, self.n, level, unreached, self.first,
                            self.head, self.rev, s["res"], s["label"])

    def counters(self) -> dict[str, int]:
        return counter_values(self.counts, self.launches)

    def close(self) -> None:
        pass


class GpuDevice:
    """The kernels on the GPU. Kernel and transfer times are measured with CUDA events."""

    def __init__(self, graph, block_size: int):
        """Compiles the kernels (on first use) and copies `graph` in. A driver error (out of
        memory, say) frees what was allocated and becomes a one-line MaxflowError; a
        compile error is raised as it is, with the compiler's output."""
        import pycuda.driver as cuda

        self.cuda = cuda
        self.allocations = []
        self.flag_host = None
        try:
            self._open(graph, block_size)
        except cuda.Error as error:
            self.close()
            if isinstance(error, getattr(cuda, "CompileError", ())):
                raise
            raise gpu_error(cuda, error, device_bytes(graph)) from None
        except BaseException:
            self.close()
            raise

    def _open(self, graph, block_size: int) -> None:
        cuda = self.cuda
        self.n, self.source, self.sink = graph.n, graph.source, graph.sink
        push_relabel, global_relabel = load("push_relabel"), load("global_relabel")
        self.kernels = {
            "push_relabel": push_relabel.get_function("push_relabel_kernel").prepare("iiiiPPPPPPPP"),
            "cancel_violations": global_relabel.get_function("cancel_violations_kernel")
            .prepare("iiPPPPPPP"),
            "reset_labels": global_relabel.get_function("reset_labels_kernel").prepare("iiiiP"),
            "bfs_level": global_relabel.get_function("bfs_level_kernel").prepare("iiiPPPPPP"),
        }
        self.block = (block_size, 1, 1)
        self.grid = ((graph.n + block_size - 1) // block_size, 1)
        self.seconds = {"kernels": 0.0, "transfer": 0.0}
        self.launches = 0
        self.events = (cuda.Event(), cuda.Event())
        self.first, self.head, self.rev = (self._copy_in(a) for a in (graph.first, graph.head,
                                                                      graph.rev))
        lengths = {"res": graph.head.shape[0], "excess": graph.n, "label": graph.n}
        self.state = {name: self._allocate(lengths[name] * np.dtype(kind).itemsize)
                      for name, kind in STATE_TYPES.items()}
        self.counts = self._copy_in(np.zeros(3, np.uint64))  # pushes, relabels, cancelled
        self.flag = self._allocate(4)
        self.flag_host = cuda.pagelocked_empty(1, np.int32)

    def _allocate(self, nbytes: int):
        allocation = self.cuda.mem_alloc(max(nbytes, 1))
        self.allocations.append(allocation)
        return allocation

    def _copy_in(self, array: np.ndarray):
        allocation = self._allocate(array.nbytes)
        self._timed("transfer", self.cuda.memcpy_htod, allocation, array)
        return allocation

    def _timed(self, kind: str, operation, *args):
        start, stop = self.events
        start.record()
        operation(*args)
        stop.record()
        stop.synchronize()
        self.seconds[kind] += stop.time_since(start) / 1000

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

    def _launch(self, kernel: str, *args) -> None:
        self._timed("kernels", self.kernels[kernel].prepared_call, self.grid, self.block, *args)
        self.launches += 1

    def _launch_flagged(self, kernel: str, *args) -> bool:
        """Launches a kernel whose arguments include self.flag, cleared first; whether the
        kernel set it."""
        self.cuda.memset_d32(self.flag, 0, 1)
        self._launch(kernel, *args)
        self._timed("transfer", self.cuda.memcpy_dtoh, self.flag_host, self.flag)
        return bool(self.flag_host[0])

    def push_relabel(self, cycles: int) -> bool:
        """Runs push_relabel_kernel; whether an active vertex was seen."""
        s = self.state
        return self._launch_flagged("push_relabel", self.n, self.source, self.sink, cycles,
                                    self.first, self.head, self.rev, s["res"], s["excess"],
                                    s["label"], self.flag, self.counts)

    def single_loop(self) -> None:
        """Runs single_loop_kernel on each quarter of the vertices, on its own stream; the
        events on the default stream time the four together."""
        if "single_loop" not in self.kernels:  # compiled on first use: only openmp-cuda has it
            module = load("single_loop")
            self.kernels["single_loop"] = (module.get_function("single_loop_kernel")
                                           .prepare("iiiiiPPPPPPP"))
            self.streams = [self.cuda.Stream() for _ in range(SINGLE_LOOP_STREAMS)]
        self._timed("kernels", self._launch_quarters)

    def _launch_quarters(self) -> None:
        s = self.state
        for (begin, end), stream in zip(quarters(self.n), self.streams):
            threads = -(-(end - begin) // VERTICES_PER_THREAD)
            grid = (max(1, -(-threads // self.block[0])), 1)
            self.kernels["single_loop"].prepared_async_call(
                grid, self.block, stream, self.n, self.source, self.sink, begin, end,
                self.first, self.head, self.rev, s["res"], s["excess"], s["label"], self.counts)
            self.launches += 1

    def cancel_violations(self) -> None:
        s = self.state
        self._launch("cancel_violations", self.n, self.source, self.first, self.head, self.rev,
                     s["res"], s["excess"], s["label"], int(self.counts) + 16)

    def reset_labels(self, unreached: int) -> None:
        self._launch("reset_labels", self.n, self.source, self.sink, unreached,
                     self.state["label"])

    def bfs_level(self, level: int, unreached: int) -> bool:
        """Runs one BFS level; whether it labelled a vertex."""
        s = self.state
        return self._launch_flagged("bfs_level", self.n, level, unreached, self.first,
                                    self.head, self.rev, s["res"], s["label"], self.flag)

    def counters(self) -> dict[str, int]:
        counts = np.zeros(3, np.uint64)
        self.cuda.memcpy_dtoh(counts, self.counts)
        return counter_values(counts, self.launches)

    def close(self) -> None:
        """Frees the device's GPU memory (what was allocated, where opening failed)."""
        for allocation in self.allocations:
            allocation.free()
        self.allocations = []
        if self.flag_host is not None:
            self.flag_host.base.free()
            self.flag_host = None
