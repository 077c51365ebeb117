"""One entry point for `maxflow paths` and its benchmark: the K shortest loopless paths of
some source-target pairs, by MPS or Yen, on the GPU or the CPU.

On the CPU, "mps" is the Numba twin of the MPS kernel and "yen" the reference Yen
(maxflow_cli.paths.yen); on the GPU both are the kernels of kernels/ksp.cu.
"""

import time
from dataclasses import dataclass

import numpy as np

from maxflow_cli import memory
from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels import ksp
from maxflow_cli.limits import INT32_MAX
from maxflow_cli.paths.graph import PathGraph
from maxflow_cli.paths.yen import yen_pairs

ALGORITHMS = ("mps", "yen")
SHARES = (1.0, 0.5, 0.3333, 0.25, 0.2, 0.1, 0.05)
"""Reis et al.'s Table 1 columns: the minimum share of a block's threads per candidate."""
MAX_K = INT32_MAX
"""The most paths per pair: the kernels count a pair's paths (found, out_count) in C ints."""


@dataclass
class Ranking:
    """The paths of each pair: out_count[p] paths, the r-th with out_len[p, r] vertices
    out_path[p, r, :out_len[p, r]] and key out_key[p, r] (cost * n + arcs)."""

    graph: PathGraph
    sources: np.ndarray
    targets: np.ndarray
    out_path: np.ndarray
    out_len: np.ndarray
    out_key: np.ndarray
    out_count: np.ndarray
    seconds: dict

    def paths(self, pair: int) -> list[tuple[int, list[int]]]:
        """(cost, vertices) of each path of pair `pair`, shortest first."""
        return [(int(self.out_key[pair, r]) // self.graph.n,
                 self.out_path[pair, r, :self.out_len[pair, r]].tolist())
                for r in range(self.out_count[pair])]


def all_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair (s, t), s != t, by s then t."""
    sources, targets = np.divmod(np.arange(n * n, dtype=np.int64), n)
    keep = sources != targets
    return sources[keep].astype(np.int32), targets[keep].astype(np.int32)


def check_share(share: float) -> None:
    if not 0 < share <= 1:
        raise ParameterError(f"--threads-share {share}: must be in (0, 1]")


def check_k(k: int, n: int, pairs: int) -> None:
    """Refuse a K the kernels cannot count (a pair's paths are counted in C ints), or whose
    paths, up to `n` vertices each for each of `pairs` pairs, would not fit in memory."""
    if not 1 <= k <= MAX_K:
        raise ParameterError(f"--k {k}: at least 1, at most {MAX_K:,} (a pair's paths are "
                             "counted in 32-bit integers)")
    path_bytes = sum(array.nbytes for array in ksp.empty_outputs(1, 1, n).values())
    memory.require(pairs * k * path_bytes, f"--k {k} ({k:,} paths of up to {n:,} vertices "
                                           f"for {pairs:,} pair(s))")


def rank_paths(graph: PathGraph, sources, targets, k: int, algorithm: str = "mps",
               device: str = "cpu", share: float = 1.0) -> Ranking:
    """The k shortest loopless paths from sources[i] to targets[i] for every i."""
    if algorithm not in ALGORITHMS:
        raise ParameterError(f"unknown algorithm {algorithm!r}: one of {', '.join(ALGORITHMS)}")
    check_share(share)
    sources = np.ascontiguousarray(sources, np.int32)
    targets = np.ascontiguousarray(targets, np.int32)
    check_k(k, graph.n, sources.shape[0])
    if device == "cpu" and algorithm == "yen":
        out = ksp.empty_outputs(sources.shape[0], k, graph.n)
        started = time.perf_counter()
        yen_pairs(graph.n, k, graph.first, graph.head, graph.key_lengths(), sources, targets,
                  out["out_path"], out["out_len"], out["out_key"], out["out_count"])
        seconds = {"search": time.perf_counter() - started}
    else:
        searcher = ksp.KspKernels(device, graph, k, algorithm, share, sources.shape[0])
        try:
            started = time.perf_counter()
            out = searcher.search(sources, targets)
            seconds = {"search": time.perf_counter() - started, **searcher.seconds}
        finally:
            searcher.close()
    return Ranking(graph, sources, targets, seconds=seconds, **out)


def warm_up(algorithm: str, device: str) -> float:
    """Compile the Numba code (or load the kernels) a search needs on a tiny graph, so that
    compile time stays out of the search's; returns the seconds it took."""
    started = time.perf_counter()
    graph = PathGraph.from_arcs(3, [0, 0, 1], [1, 2, 2], [1, 3, 1])
    rank_paths(graph, [0], [2], 2, algorithm, device)
    return time.perf_counter() - started
