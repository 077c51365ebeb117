"""Where the K-shortest-paths kernels run: ksp.cu through PyCUDA, or its Numba twin
(ksp_cpu.py), behind one call: ``search(sources, targets)`` ranks the paths of every pair,
in batches whose scratch fits the device, and returns the kernels' outputs (out_path[pair, r],
out_len, out_key, out_count). The graph is uploaded once; ``seconds`` holds the kernel and
transfer times.
"""

import math
import time

import numpy as np

from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels import ksp_cpu, load
from maxflow_cli.kernels.declarations import KSP_MPS, KSP_YEN, source_constant
from maxflow_cli.kernels.devices import GpuMemory, numba_twin
from maxflow_cli.memory import human_bytes

BLOCK = source_constant("ksp", "BLOCK")
GPU_SCRATCH_BYTES = 4 * 2**30
TWIN_SCRATCH_BYTES = 256 * 2**20


def groups_for(share: float) -> int:
    """Candidates a block builds at once when each takes at least `share` of its threads
    (Reis et al., Algorithm 6's minimum share per candidate): 1 / share, rounded down within
    1 % (Table 1's 0.3333 means a third), at most BLOCK. Each group has BLOCK // groups
    threads."""
    return max(1, min(BLOCK, math.floor(1 / share + 0.01)))


def _scratch(n: int, m: int, k: int, groups: int) -> dict[str, tuple[int, type]]:
    """Per pair: each scratch array's length and type."""
    size = ksp_cpu.pool_size(n, k)
    return {"dist": (n, np.int64), "tree": (n, np.int32), "order": (m, np.int32),
            "pool_path": (size * n, np.int32), "pool_len": (size, np.int32),
            "pool_key": (size, np.int64), "pool_dev": (size, np.int32),
            "pool_state": (size, np.int32), "found": (k, np.int32),
            "group_dist": (groups * n, np.int64), "group_mark": (groups * n, np.int32),
            "out_path": (k * n, np.int32), "out_len": (k, np.int32), "out_key": (k, np.int64),
            "out_count": (1, np.int32)}


OUTPUTS = ("out_path", "out_len", "out_key", "out_count")


def empty_outputs(pairs: int, k: int, n: int) -> dict[str, np.ndarray]:
    """The arrays a search fills: each pair's paths (out_path[pair, r], out_len), their keys
    and how many were found."""
    return {"out_path": np.empty((pairs, k, n), np.int32),
            "out_len": np.empty((pairs, k), np.int32),
            "out_key": np.empty((pairs, k), np.int64), "out_count": np.empty(pairs, np.int32)}


class KspDevice:
    """What both devices share: batching and the outputs' shapes."""

    def __init__(self, graph, k: int, algorithm: str, share: float, scratch_bytes: int,
                 pairs: int | None):
        self.graph, self.k = graph, k
        self.kernel = KSP_MPS if algorithm == "mps" else KSP_YEN
        self.groups = groups_for(share)
        self.layout = _scratch(graph.n, graph.m, k, self.groups)
        self.pair_bytes = per_pair = sum(length * np.dtype(kind).itemsize
                                         for length, kind in self.layout.values())
        if per_pair > scratch_bytes:
            raise ParameterError(
                f"{algorithm} keeps up to {ksp_cpu.pool_size(graph.n, k):,} candidate paths of up "
                f"to {graph.n:,} vertices per pair ({human_bytes(per_pair)}), more than the "
                f"{human_bytes(scratch_bytes)} it may use: use a smaller --k, or "
                "--algorithm yen --device cpu")
        # the pairs a launch ranks: as many as the scratch allows, no more than are asked for
        self.batch = min(scratch_bytes // per_pair, pairs or scratch_bytes)
        self.seconds = {"kernels": 0.0, "transfer": 0.0}
        self.arguments = {"n": graph.n, "k": k, "groups": self.groups}
        self.graph_arrays = {"first": graph.first, "tail": graph.tail, "head": graph.head,
                             "length": graph.key_lengths()}

    def search(self, sources: np.ndarray, targets: np.ndarray) -> dict[str, np.ndarray]:
        pairs = sources.shape[0]
        outputs = empty_outputs(pairs, self.k, self.graph.n)
        for start in range(0, pairs, self.batch):
            stop = min(start + self.batch, pairs)
            self._run(np.ascontiguousarray(sources[start:stop], np.int32),
                      np.ascontiguousarray(targets[start:stop], np.int32),
                      {name: outputs[name][start:stop] for name in OUTPUTS})
        return outputs


class KspTwinDevice(KspDevice):
    """ksp.cu's Numba twin on the CPU."""

    def __init__(self, graph, k: int, algorithm: str, share: float, pairs: int | None):
        super().__init__(graph, k, algorithm, share, TWIN_SCRATCH_BYTES, pairs)
        self.arguments |= self.graph_arrays
        # the batch's scratch, allocated once as on the GPU (a batch uses its first pairs')
        self.scratch = {name: (length, np.empty(length * self.batch, kind))
                        for name, (length, kind) in self.layout.items() if name not in OUTPUTS}

    def _run(self, sources, targets, outputs: dict[str, np.ndarray]) -> None:
        pairs = sources.shape[0]
        arrays = {name: array[:length * pairs] for name, (length, array) in self.scratch.items()}
        arrays |= {name: outputs[name].reshape(-1) for name in OUTPUTS}
        arguments = self.arguments | arrays | {"pairs": pairs, "sources": sources,
                                               "targets": targets}
        started = time.perf_counter()
        numba_twin(self.kernel.file, self.kernel.name)(
            *[arguments[name] for name in self.kernel.arguments])
        self.seconds["kernels"] += time.perf_counter() - started

    def close(self) -> None:
        pass


class KspGpuDevice(GpuMemory, KspDevice):
    """ksp.cu on the GPU: a block of BLOCK threads per pair, the batch's scratch allocated
    once; the kernel's time by CUDA events, the copies' by the host clock."""

    def __init__(self, graph, k: int, algorithm: str, share: float, pairs: int | None):
        KspDevice.__init__(self, graph, k, algorithm, share, GPU_SCRATCH_BYTES, pairs)
        self._open_on_gpu(self._open, self.batch * self.pair_bytes)

    def _open(self) -> None:
        cuda = self.cuda
        self.function = load("ksp").get_function(self.kernel.name).prepare(
            self.kernel.pycuda_types)
        self.events = (cuda.Event(), cuda.Event())
        self.arguments |= {name: self._copy_in(array)
                           for name, array in self.graph_arrays.items()}
        self.arguments |= {name: self._allocate(length * np.dtype(kind).itemsize * self.batch)
                           for name, (length, kind) in self.layout.items()}
        self.ends = self._allocate(8 * self.batch)  # a batch's sources, then its targets

    def _run(self, sources, targets, outputs: dict[str, np.ndarray]) -> None:
        """The batch's pairs in one copy, the kernel between CUDA events, the outputs back
        into `outputs` (the batch's rows of search's arrays).
        The copies are synchronous, so the host clock times them: on a small network an
        event pair around each would cost more than the copy."""
        cuda, pairs = self.cuda, sources.shape[0]
        started = time.perf_counter()
        cuda.memcpy_htod(self.ends, np.concatenate((sources, targets)))
        copying = time.perf_counter() - started
        arguments = self.arguments | {"pairs": pairs, "sources": self.ends,
                                      "targets": int(self.ends) + sources.nbytes}
        self._timed("kernels", self.function.prepared_call, (pairs, 1), (BLOCK, 1, 1),
                    *[arguments[name] for name in self.kernel.arguments])
        started = time.perf_counter()
        for name in OUTPUTS:
            cuda.memcpy_dtoh(outputs[name], arguments[name])
        self.seconds["transfer"] += copying + time.perf_counter() - started


def open_ksp_device(kind: str, graph, k: int, algorithm: str, share: float,
                    pairs: int | None = None) -> KspDevice:
    """The kernels of `algorithm` ("mps" or "yen") on the GPU (kind "gpu") or their twin,
    with scratch for `pairs` pairs a launch (None: as many as fit)."""
    device = KspGpuDevice if kind == "gpu" else KspTwinDevice
    return device(graph, k, algorithm, share, pairs)
