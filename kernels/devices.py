"""One device layer under every GPU solver: named buffers and launches by declaration.

A device holds named buffers (allocated from a layout, uploaded, downloaded and filled by
name) and constants, and ``launch(kernel, items, **scalars)`` runs a declared kernel
(declarations.py) with each argument taken by name: the launch's scalars, else the device's
constants, else its buffers. Two backends: GpuDevice (PyCUDA; launches queue on the GPU,
``timed`` measures them with CUDA events) and TwinDevice (each kernel's Numba twin on NumPy
arrays of the device's own, so that a copy the host loop forgets shows on the CPU as it would
on the GPU). Every byte a device holds on the GPU is counted here (memory.GPU), and an
allocation that fails frees the layout and names what it needed.
"""

import functools
import importlib
import time
from abc import ABC, abstractmethod
from contextlib import contextmanager, nullcontext

import numpy as np

from maxflow_cli.errors import MaxflowError, ParameterError
from maxflow_cli.kernels import gpu_unavailable, load
from maxflow_cli.kernels.declarations import Kernel, source_constant
from maxflow_cli.memory import GPU

Layout = dict[str, tuple[int, type]]  # buffer name -> (length, element type)


def layout_bytes(layout: Layout) -> int:
    """The bytes a layout's buffers take (at least one byte each, as the driver allocates)."""
    return sum(max(length * np.dtype(kind).itemsize, 1) for length, kind in layout.values())


def default_device() -> str:
    """The GPU where one can be used, else the twins."""
    return "cpu" if gpu_unavailable() else "gpu"


def device_unavailable(options) -> str | None:
    """The registry's ``unavailable`` for solvers with kernels: only the GPU can be missing."""
    return gpu_unavailable() if options.device == "gpu" else None


@functools.cache
def gpu_multiprocessors() -> int:
    """The GPU's multiprocessors: a persistent kernel's grid is MIN_BLOCKS blocks each."""
    import pycuda.autoprimaryctx  # noqa: F401  (the first device's context, current)
    import pycuda.driver as cuda

    attribute = cuda.device_attribute.MULTIPROCESSOR_COUNT
    return cuda.Context.get_device().get_attribute(attribute)


def gpu_error(cuda, error, needed: int) -> MaxflowError:
    """A one-line MaxflowError for a PyCUDA driver error (`cuda`: pycuda.driver); out of
    memory says how much the instance needs."""
    message = (str(error).strip().splitlines() or [type(error).__name__])[0]
    if isinstance(error, cuda.MemoryError) or "out of memory" in message:
        return MaxflowError(f"GPU out of memory: the instance needs about "
                            f"{-(-needed // 10**6)} MB of GPU memory ({message})")
    return MaxflowError(f"GPU error: {message}")


@functools.cache
def numba_twin(file: str, name: str):
    """The Numba twin of kernel `name` of kernels/<file>.cu (in kernels/<file>_cpu.py)."""
    return getattr(importlib.import_module(f"maxflow_cli.kernels.{file}_cpu"), name)


class Device(ABC):
    """Named buffers, constants and launches; the seconds spent per kind ("kernels",
    "transfer", or what a host loop times with ``timed``) and the launches made."""

    def __init__(self, constants: dict, block_size: int):
        self.constants = dict(constants)
        self.block_size = block_size
        self.buffers: dict = {}
        self.layout: Layout = {}
        self.seconds: dict[str, float] = {}
        self.launches = 0
        # True while other Python threads need the interpreter (a race's rivals): waits
        # for the GPU then sleep between looks instead of blocking in the driver
        self.shares_host = False

    def allocate(self, layout: Layout, uploads: dict | None = None) -> None:
        """The layout's buffers, then `uploads` (name -> host array) copied into them."""
        for name, (length, kind) in layout.items():
            self.buffers[name] = self._new_buffer(length, np.dtype(kind))
            self.layout[name] = (length, kind)
        for name, host in (uploads or {}).items():
            self.upload(name, host)

    def arguments(self, kernel: Kernel, scalars: dict) -> list:
        """The kernel's arguments in its order, each by name."""
        return [scalars[name] if name in scalars else self.constants[name]
                if name in self.constants else self.buffers[name]
                for name in kernel.arguments]

    def launch(self, kernel: Kernel, items: int, stream: int = 0, **scalars) -> None:
        """Launch `kernel` over `items` items (vertices, pairs) on stream `stream` (0: the
        default one), arguments by name."""
        self._call(kernel, self.arguments(kernel, scalars), items, stream)
        self.launches += 1

    @contextmanager
    def timed(self, kind: str):
        """Add the seconds the block's device work took to ``seconds[kind]``."""
        started = time.perf_counter()
        yield
        self.add_seconds(kind, time.perf_counter() - started)

    def add_seconds(self, kind: str, seconds: float) -> None:
        self.seconds[kind] = self.seconds.get(kind, 0.0) + seconds

    def host_array(self, length: int, dtype) -> np.ndarray:
        """A host array for the state, as fast to copy as this device allows."""
        return np.empty(length, dtype)

    def locked(self, host: np.ndarray):
        """A context within which `host` is as fast to copy as this device allows: an array
        copied often is locked once for all its copies (each copy would lock it again)."""
        return nullcontext(host)

    def close(self) -> None:
        """Free what the device holds."""

    def _add_transfer(self, started: float) -> None:
        self.add_seconds("transfer", time.perf_counter() - started)

    @abstractmethod
    def _new_buffer(self, length: int, kind: np.dtype):
        """A buffer of `length` elements of `kind`."""

    @abstractmethod
    def upload(self, name: str, host: np.ndarray) -> None:
        """Copy `host` into the start of buffer `name`."""

    @abstractmethod
    def download(self, name: str, host: np.ndarray) -> np.ndarray:
        """Copy the start of buffer `name` into `host` (as many elements as it has); `host`."""

    @abstractmethod
    def fill(self, name: str, value: int) -> None:
        """Every element of buffer `name` to `value` (0 or -1 for 64-bit buffers)."""

    @abstractmethod
    def _call(self, kernel: Kernel, args: list, items: int, stream: int) -> None:
        """Run the kernel over `items` items."""


class TwinDevice(Device):
    """The kernels' Numba twins, launched on the CPU on NumPy buffers of their own."""

    def _new_buffer(self, length: int, kind: np.dtype):
        return np.zeros(length, kind)

    def upload(self, name: str, host: np.ndarray) -> None:
        started = time.perf_counter()
        self.buffers[name][:host.size] = host.reshape(-1)
        self._add_transfer(started)

    def download(self, name: str, host: np.ndarray) -> np.ndarray:
        started = time.perf_counter()
        host.reshape(-1)[:] = self.buffers[name][:host.size]
        self._add_transfer(started)
        return host

    def fill(self, name: str, value: int) -> None:
        self.buffers[name][:] = value

    def _call(self, kernel: Kernel, args: list, items: int, stream: int) -> None:
        numba_twin(kernel.file, kernel.name)(*args)


PAGE_LOCK_BYTES = 8 * 2**20
"""Copies of at least this many bytes page-lock their host array for the copy (page_locked):
the driver then copies it at the bus's speed rather than through staging buffers of its own.
On the H100 machine a 64 MB copy took half the time that way, the locking and its release
included; at this size the two ways were even, below it the locking's fixed cost lost
(README, "Page-locked copies")."""


@functools.cache
def _cuda_driver():
    """The CUDA driver library, with the two calls page_locked makes typed."""
    import ctypes

    driver = ctypes.CDLL("libcuda.so.1")
    driver.cuMemHostRegister_v2.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
    driver.cuMemHostUnregister.argtypes = [ctypes.c_void_p]
    return driver


@contextmanager
def page_locked(host: np.ndarray, driver=None):
    """`host` (contiguous) page-locked within the block where it holds PAGE_LOCK_BYTES or more
    and the driver agrees (cuMemHostRegister; an array already locked, as host_array's are,
    is left as it is), released after it."""
    locked = host.nbytes >= PAGE_LOCK_BYTES
    if locked:
        driver = driver or _cuda_driver()
        locked = driver.cuMemHostRegister_v2(host.ctypes.data, host.nbytes, 0) == 0
    try:
        yield host
    finally:
        if locked:
            driver.cuMemHostUnregister(host.ctypes.data)


# The sleep between looks at a kernel that has not ended, where the host is shared: a blocking
# synchronize may hold the interpreter for the kernel's whole length, so that a thread that
# wants it waits as long; a look every 50 us costs little next to launches of milliseconds.
SHARED_WAIT_SECONDS = 50e-6


class GpuDevice(Device):
    """The kernels on the GPU through PyCUDA, compiled on first use with `defines`; blocks of
    the kernel's BLOCK threads, else the device's `block_size`. Launches queue; a download
    waits for them; ``timed`` measures with CUDA events on the default stream."""

    def __init__(self, constants: dict, block_size: int, defines: tuple[str, ...] = ()):
        import pycuda.autoprimaryctx  # noqa: F401  (the first device's context, current)
        import pycuda.driver as cuda

        super().__init__(constants, block_size)
        self.cuda, self.defines = cuda, defines
        self.allocated_bytes = 0
        self.functions, self.streams = {}, {0: None}
        self.events = (cuda.Event(), cuda.Event())

    def allocate(self, layout: Layout, uploads: dict | None = None) -> None:
        """As Device.allocate; a driver error (out of memory, say) frees everything the
        device holds and becomes a one-line MaxflowError naming the layout's bytes."""
        try:
            super().allocate(layout, uploads)
        except self.cuda.Error as error:
            self.close()
            raise gpu_error(self.cuda, error, layout_bytes(layout)) from None
        except BaseException:
            self.close()
            raise

    def _new_buffer(self, length: int, kind: np.dtype):
        nbytes = max(length * kind.itemsize, 1)
        allocation = self.cuda.mem_alloc(nbytes)
        self.allocated_bytes += nbytes
        GPU.allocated(nbytes)  # for maxflow bench's peak_gpu_bytes
        return allocation

    def upload(self, name: str, host: np.ndarray) -> None:
        started = time.perf_counter()
        with page_locked(np.ascontiguousarray(host)) as contiguous:
            self.cuda.memcpy_htod(self.buffers[name], contiguous)
        self._add_transfer(started)

    def download(self, name: str, host: np.ndarray) -> np.ndarray:
        started = time.perf_counter()
        with page_locked(host):
            self.cuda.memcpy_dtoh(host, self.buffers[name])
        self._add_transfer(started)
        return host

    def fill(self, name: str, value: int) -> None:
        """Queued on the default stream: after the launches before it, before those after."""
        length, kind = self.layout[name]
        words = length * np.dtype(kind).itemsize // 4
        self.cuda.memset_d32_async(self.buffers[name], value & 0xFFFFFFFF, words)

    def locked(self, host: np.ndarray):
        return page_locked(host)

    def host_array(self, length: int, dtype) -> np.ndarray:
        """Page-locked host memory (He & Hong: cudaMallocHost doubles copy speed)."""
        try:
            return self.cuda.pagelocked_empty(length, dtype)
        except self.cuda.Error as error:
            raise MaxflowError(f"cannot allocate {-(-length * np.dtype(dtype).itemsize // 10**6)}"
                               f" MB of page-locked host memory: {str(error).strip()}") from None

    @contextmanager
    def timed(self, kind: str):
        start, stop = self.events
        start.record()
        yield
        stop.record()
        if self.shares_host:
            while not stop.query():
                time.sleep(SHARED_WAIT_SECONDS)
        else:
            stop.synchronize()
        self.add_seconds(kind, stop.time_since(start) / 1000)

    def _function(self, kernel: Kernel):
        """The kernel's PyCUDA function, compiled on first use, prepared with its argument
        types as its signature gives them."""
        if kernel.name not in self.functions:
            module = load(kernel.file, self.defines)
            self.functions[kernel.name] = module.get_function(kernel.name).prepare(
                kernel.pycuda_types)
        return self.functions[kernel.name]

    def _grid(self, kernel: Kernel, items: int, block: int) -> tuple[int, int]:
        if kernel.persistent:
            return (gpu_multiprocessors() * source_constant(kernel.file, "MIN_BLOCKS"), 1)
        if kernel.block_per_item:
            return (max(items, 1), 1)
        return (max(1, -(-kernel.threads(items) // block)), 1)

    def _call(self, kernel: Kernel, args: list, items: int, stream: int) -> None:
        if stream not in self.streams:
            self.streams[stream] = self.cuda.Stream()
        block = kernel.block or self.block_size
        self._function(kernel).prepared_async_call(
            self._grid(kernel, items, block), (block, 1, 1), self.streams[stream], *args)

    def close(self) -> None:
        """Frees the device's GPU memory (what was allocated, where opening failed)."""
        for allocation in self.buffers.values():
            allocation.free()
        GPU.freed(self.allocated_bytes)
        self.buffers, self.layout, self.allocated_bytes = {}, {}, 0


def open_device(kind: str, constants: dict, block_size: int = 32,
                defines: tuple[str, ...] = ()) -> Device:
    """A GpuDevice (kind "gpu") or a TwinDevice ("cpu") with `constants` (n, source, sink:
    what every launch passes alike). The range of `block_size` (32..1024) is checked with the
    solver's other parameters (block_size_parameter); its multiple of 32 here."""
    if block_size % 32:
        raise ParameterError(f"--block-size {block_size}: must be a multiple of 32 in 32..1024")
    if kind == "gpu":
        return GpuDevice(constants, block_size, defines)
    return TwinDevice(constants, block_size)
