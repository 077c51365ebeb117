"""The K-shortest-paths kernels (ksp.cu, or its Numba twin ksp_cpu.py) on one device
(devices.py), behind one call: ``search(sources, targets)`` ranks the paths of every pair, in
batches whose scratch fits the device, and returns the kernels' outputs (out_path[pair, r],
out_len, out_key, out_count). The graph is uploaded once; ``seconds`` holds the kernel and
transfer times.
"""

import math

import numpy as np

from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels import ksp_cpu
from maxflow_cli.kernels.declarations import KSP, source_constant
from maxflow_cli.kernels.devices import layout_bytes, open_device
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


class KspKernels:
    """ksp.cu's kernel, for `algorithm` "mps" or "yen", on the GPU (kind "gpu") or its twin:
    the graph uploaded once, scratch for ``batch`` pairs allocated once (as many as the
    device's scratch budget holds, no more than `pairs`); a block of BLOCK threads a pair."""

    def __init__(self, kind: str, graph, k: int, algorithm: str, share: float,
                 pairs: int | None = None):
        self.graph, self.k = graph, k
        self.shortcut = int(algorithm == "mps")
        groups = groups_for(share)
        layout = _scratch(graph.n, graph.m, k, groups)
        self.pair_bytes = per_pair = layout_bytes(layout)
        scratch_bytes = GPU_SCRATCH_BYTES if kind == "gpu" else TWIN_SCRATCH_BYTES
        if per_pair > scratch_bytes:
            raise ParameterError(
                f"{algorithm} keeps up to {ksp_cpu.pool_size(graph.n, k):,} candidate paths of up "
                f"to {graph.n:,} vertices per pair ({human_bytes(per_pair)}), more than the "
                f"{human_bytes(scratch_bytes)} it may use: use a smaller --k, or "
                "--algorithm yen --device cpu")
        self.batch = min(scratch_bytes // per_pair, pairs or scratch_bytes)
        self.device = open_device(kind, {"n": graph.n, "k": k, "groups": groups})
        arcs = graph.head.shape[0]
        self.device.allocate(
            {"first": (graph.n + 1, np.int32), "tail": (arcs, np.int32),
             "head": (arcs, np.int32), "length": (arcs, np.int64),
             "sources": (self.batch, np.int32), "targets": (self.batch, np.int32),
             **{name: (length * self.batch, kind) for name, (length, kind) in layout.items()}},
            {"first": graph.first, "tail": graph.tail, "head": graph.head,
             "length": graph.key_lengths()})
        self.seconds = self.device.seconds
        self.close = self.device.close

    def search(self, sources: np.ndarray, targets: np.ndarray) -> dict[str, np.ndarray]:
        """Every pair's ranked paths, batch after batch."""
        pairs = sources.shape[0]
        outputs = empty_outputs(pairs, self.k, self.graph.n)
        for start in range(0, pairs, self.batch):
            stop = min(start + self.batch, pairs)
            self._run(sources[start:stop], targets[start:stop],
                      {name: outputs[name][start:stop] for name in OUTPUTS})
        return outputs

    def _run(self, sources, targets, outputs: dict[str, np.ndarray]) -> None:
        """The batch's pairs in, the kernel, the outputs back into `outputs` (the batch's
        rows of search's arrays)."""
        device = self.device
        device.upload("sources", np.ascontiguousarray(sources, np.int32))
        device.upload("targets", np.ascontiguousarray(targets, np.int32))
        with device.timed("kernels"):
            device.launch(KSP, sources.shape[0], pairs=sources.shape[0], shortcut=self.shortcut)
        for name in OUTPUTS:
            device.download(name, outputs[name])
