"""A max-flow problem as plain arrays: what readers and generators produce, what solvers take."""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Network:
    """A directed network with 0-based vertex ids.

    Arc i goes from ``tails[i]`` to ``heads[i]`` with capacity ``caps[i]``, in input order;
    parallel arcs, anti-parallel arcs, self-loops and zero capacities are kept as given.
    """

    n: int
    source: int
    sink: int
    tails: np.ndarray  # int32[m]
    heads: np.ndarray  # int32[m]
    caps: np.ndarray  # int64[m]

    @property
    def m(self) -> int:
        return int(self.tails.shape[0])

    @classmethod
    def from_arcs(cls, n: int, source: int, sink: int, arcs) -> "Network":
        """Build from 0-based (tail, head, capacity) triples (tests, small examples)."""
        table = np.asarray(list(arcs), dtype=np.int64).reshape(-1, 3)
        return cls(
            n=n,
            source=source,
            sink=sink,
            tails=np.ascontiguousarray(table[:, 0], dtype=np.int32),
            heads=np.ascontiguousarray(table[:, 1], dtype=np.int32),
            caps=np.ascontiguousarray(table[:, 2], dtype=np.int64),
        )
