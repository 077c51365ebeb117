"""Every kernel declared once, from its source: its ``.cu`` file, its name and its launch shape
here; its arguments, their order and their types read from the ``.cu`` signature.

A device (devices.py) passes each argument by name: the scalars a launch gives, else the
device's constants and buffers. Each Numba twin (``<file>_cpu.py``) has the kernel's name and
takes its arguments in the same order (a pointer is a NumPy array there, a flag an int32 array
of one); tests/test_kernels.py checks that against the signature. The counters a kernel family
keeps are a named layout of slots defined in the ``.cu`` (``#define``), read from there by the
twin and the host alike (CounterLayout).
"""

import functools
import re
from dataclasses import dataclass
from pathlib import Path

KERNEL_DIR = Path(__file__).resolve().parent
POINTER, INT64, INT = "P", "q", "i"  # PyCUDA's argument letters

_SIGNATURE = re.compile(r'extern "C" __global__ void\s+(?:__launch_bounds__\([^)]*\)\s*)?'
                        r"(\w+)\s*\(([^)]*)\)")


@functools.cache
def _source(file: str) -> str:
    """The text of kernels/<file> (``.cu`` unless the name has a suffix), read once: a launch
    asks for its constants."""
    return (KERNEL_DIR / (file if "." in file else f"{file}.cu")).read_text()


@functools.cache
def source_constant(file: str, name: str) -> int:
    """The value of ``#define NAME value`` in kernels/<file>.cu (or the named header): a
    constant the kernel needs at compile time, defined there alone."""
    return int(re.search(rf"^#define {name} (\d+)\b", _source(file), re.MULTILINE).group(1))


def _argument(text: str) -> tuple[str, str]:
    """(name, PyCUDA letter) of one C parameter: a pointer, a 64-bit integer or an int."""
    words = text.replace("*", " * ").split()
    letter = POINTER if "*" in words else INT64 if "long" in words else INT
    return words[-1], letter


@functools.cache
def signatures(file: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """Every ``extern "C" __global__`` function of kernels/<file>.cu: its parameters as
    (name, PyCUDA letter), in order."""
    return {name: tuple(_argument(part) for part in parameters.split(","))
            for name, parameters in _SIGNATURE.findall(_source(file))}


@dataclass(frozen=True)
class Kernel:
    file: str  # kernels/<file>.cu, and the twin in kernels/<file>_cpu.py
    name: str  # the extern "C" __global__ function, and its twin
    vertices_per_thread: int = 1  # the launch shape: a thread for this many items
    block_per_item: bool = False  # the launch shape: a block of BLOCK threads per item
    persistent: bool = False  # the launch shape: MIN_BLOCKS blocks per multiprocessor

    @property
    def parameters(self) -> tuple[tuple[str, str], ...]:
        return signatures(self.file)[self.name]

    @property
    def arguments(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.parameters)

    @property
    def pycuda_types(self) -> str:
        """PyCUDA's argument string for ``prepare``."""
        return "".join(letter for _, letter in self.parameters)

    @property
    def block(self) -> int | None:
        """The block size the source fixes (its BLOCK), or None: the device's."""
        return source_constant(self.file, "BLOCK") if "#define BLOCK " in _source(
            self.file) else None

    def threads(self, items: int) -> int:
        """The threads a launch over `items` items runs (the block-per-item shape aside)."""
        return -(-items // self.vertices_per_thread)


@dataclass(frozen=True)
class CounterLayout:
    """A kernel family's counters: result name -> slot, the slots ``#define``d in `file`."""

    file: str
    slots: tuple[tuple[str, str], ...]  # (result name, the define naming its slot)

    def slot(self, name: str) -> int:
        return source_constant(self.file, dict(self.slots)[name])

    def read(self, values) -> dict[str, int]:
        """The result's counters from the counters array."""
        return {name: int(values[source_constant(self.file, define)])
                for name, define in self.slots}

    @property
    def size(self) -> int:
        return 1 + max(source_constant(self.file, define) for _, define in self.slots)


PUSH_RELABEL = Kernel("push_relabel", "push_relabel_kernel")
SINGLE_LOOP = Kernel("single_loop", "single_loop_kernel",
                     vertices_per_thread=source_constant("single_loop", "VERTICES_PER_THREAD"))
CANCEL_VIOLATIONS, RESET_LABELS, BFS_LEVEL = (
    Kernel("global_relabel", f"{step}_kernel")
    for step in ("cancel_violations", "reset_labels", "bfs_level"))
PREFLOW_COUNTS = CounterLayout("common.cuh", (
    ("pushes", "COUNT_PUSHES"), ("relabels", "COUNT_RELABELS"),
    ("violations_cancelled", "COUNT_CANCELLED")))

GPU_SYNC_RELABEL = Kernel("gpu_sync", "global_relabel_kernel", persistent=True)
GPU_SYNC_ROUNDS = Kernel("gpu_sync", "rounds_kernel", persistent=True)
SYNC_COUNTS = CounterLayout("gpu_sync", (("rounds", "ROUND"),) + tuple(
    (name, name.upper()) for name in ("pushes", "relabels", "bfs_levels")))

KSP = Kernel("ksp", "ksp_kernel", block_per_item=True)

STABILIZING_LABELS, STABILIZING_GUARDS, STABILIZING_MOVES = (
    Kernel("self_stabilizing", f"{step}_kernel") for step in ("labels", "guards", "moves"))
MOVE_COUNTS = CounterLayout("self_stabilizing", tuple(
    (name, f"MOVES_{define}") for name, define in (
        ("reduce_inflow", "REDUCE_INFLOW"), ("pulls", "PULL"),
        ("reduce_outflow", "REDUCE_OUTFLOW"))))
