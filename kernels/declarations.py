"""Every kernel declared once: its ``.cu`` file, its name, its arguments and its launch shape.

The PyCUDA launcher (devices.GpuDevice) derives its argument string from the declaration, and
each Numba twin (``<file>_cpu.py``) has the kernel's name and takes its arguments in the same
order: a pointer is a NumPy array there, a flag an int32 array of one. A device passes each
argument by name: the scalars the host loop gives, else its own arrays (Device.arguments).
"""

import re
from dataclasses import dataclass
from pathlib import Path

KERNEL_DIR = Path(__file__).resolve().parent

# The arguments that are pointers to device memory, and those that are 64-bit integers; every
# other one is a C int.
POINTERS = frozenset({"first", "head", "rev", "res", "excess", "label", "counts", "cancelled",
                      "active_seen", "active_count", "changed", "queued", "list0", "list1",
                      "stats", "tail", "length", "sources", "targets", "dist", "tree", "order",
                      "pool_path", "pool_len", "pool_key", "pool_dev", "pool_state", "found",
                      "group_dist", "group_mark", "out_path", "out_len", "out_key",
                      "out_count", "cap", "next_label", "demand", "guard", "busy"})
INT64 = frozenset({"budget"})


def source_constant(file: str, name: str) -> int:
    """The value of ``#define NAME value`` in kernels/<file>.cu: a constant the kernel needs
    at compile time (an unrolled loop's length), defined there alone."""
    text = (KERNEL_DIR / f"{file}.cu").read_text()
    return int(re.search(rf"^#define {name} (\d+)\b", text, re.MULTILINE).group(1))


@dataclass(frozen=True)
class Kernel:
    file: str  # kernels/<file>.cu, and the twin in kernels/<file>_cpu.py
    name: str  # the extern "C" __global__ function, and its twin
    arguments: tuple[str, ...]
    vertices_per_thread: int = 1  # the launch shape: a thread for this many vertices
    persistent: bool = False  # the launch shape: a grid of blocks all resident at once

    @property
    def pycuda_types(self) -> str:
        """PyCUDA's argument string for ``prepare``: "P" for a pointer, "q" for a 64-bit
        integer, "i" for an int."""
        return "".join("P" if argument in POINTERS else "q" if argument in INT64 else "i"
                       for argument in self.arguments)

    def threads(self, vertices: int) -> int:
        """The threads a launch over `vertices` vertices runs."""
        return -(-vertices // self.vertices_per_thread)


_STATE = ("first", "head", "rev", "res", "excess", "label")

PUSH_RELABEL = Kernel("push_relabel", "push_relabel_kernel",
                      ("n", "source", "sink", "cycles", *_STATE, "active_seen", "counts"))
SINGLE_LOOP = Kernel("single_loop", "single_loop_kernel",
                     ("n", "source", "sink", "begin", "end", *_STATE, "counts", "active_count"),
                     vertices_per_thread=source_constant("single_loop", "VERTICES_PER_THREAD"))
CANCEL_VIOLATIONS = Kernel("global_relabel", "cancel_violations_kernel",
                           ("n", "source", *_STATE, "cancelled"))
RESET_LABELS = Kernel("global_relabel", "reset_labels_kernel",
                      ("n", "source", "sink", "unreached", "label"))
BFS_LEVEL = Kernel("global_relabel", "bfs_level_kernel",
                   ("n", "level", "unreached", "first", "head", "rev", "res", "label",
                    "changed"))

_SYNC_STATE = (*_STATE, "queued", "list0", "list1", "stats")

GPU_SYNC_RELABEL = Kernel("gpu_sync", "global_relabel_kernel",
                          ("n", "source", "sink", "width", *_SYNC_STATE), persistent=True)
GPU_SYNC_ROUNDS = Kernel("gpu_sync", "rounds_kernel",
                         ("n", "source", "sink", "width", "beta", "budget", "max_rounds",
                          *_SYNC_STATE), persistent=True)

_KSP = ("n", "k", "pairs", "groups", "first", "tail", "head", "length", "sources", "targets",
        "dist", "tree", "order", "pool_path", "pool_len", "pool_key", "pool_dev", "pool_state",
        "found", "group_dist", "group_mark", "out_path", "out_len", "out_key", "out_count")

KSP_MPS = Kernel("ksp", "mps_kernel", _KSP)
KSP_YEN = Kernel("ksp", "yen_kernel", _KSP)

_GRAPH = ("first", "head", "rev")

STABILIZING_LABELS = Kernel("self_stabilizing", "labels_kernel",
                            ("n", "source", "round_number", *_GRAPH, "res", "label",
                             "next_label", "busy"))
STABILIZING_GUARDS = Kernel("self_stabilizing", "guards_kernel",
                            ("n", "source", "sink", "round_number", *_GRAPH, "cap", "res",
                             "label", "demand", "guard", "busy"))
STABILIZING_MOVES = Kernel("self_stabilizing", "moves_kernel",
                           ("n", "sink", "round_number", *_GRAPH, "cap", "res", "label",
                            "demand", "guard", "stats"))

KERNELS = (PUSH_RELABEL, SINGLE_LOOP, CANCEL_VIOLATIONS, RESET_LABELS, BFS_LEVEL,
           GPU_SYNC_RELABEL, GPU_SYNC_ROUNDS, KSP_MPS, KSP_YEN, STABILIZING_LABELS,
           STABILIZING_GUARDS, STABILIZING_MOVES)
