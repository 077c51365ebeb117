"""A max-flow problem as plain arrays: what readers and generators produce, what solvers take."""

import os
from dataclasses import dataclass

import numpy as np

from maxflow_cli.limits import int_type

ARRAYS = ("tails", "heads", "caps")


@dataclass(frozen=True)
class Network:
    """A directed network with 0-based vertex ids.

    Arc i goes from ``tails[i]`` to ``heads[i]`` with capacity ``caps[i]``, in input order;
    parallel arcs, anti-parallel arcs, self-loops and zero capacities are kept as given.
    Capacities are int64, or int32 where a generator narrowed them (narrowed).
    """

    n: int
    source: int
    sink: int
    tails: np.ndarray  # int32[m]
    heads: np.ndarray  # int32[m]
    caps: np.ndarray  # int64[m] or int32[m]

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

    def save(self, folder: str) -> None:
        """Into ``folder``: the arrays as .npy files, the ends in a small text file (load)."""
        for name in ARRAYS:
            np.save(os.path.join(folder, f"{name}.npy"), getattr(self, name))
        with open(os.path.join(folder, "ends.txt"), "w") as stream:
            stream.write(f"{self.n} {self.source} {self.sink}\n")

    @classmethod
    def load(cls, folder: str) -> "Network":
        """The network ``save`` put into ``folder``."""
        with open(os.path.join(folder, "ends.txt")) as stream:
            n, source, sink = map(int, stream.read().split())
        return cls(n, source, sink, *(np.load(os.path.join(folder, f"{name}.npy"))
                                      for name in ARRAYS))


def narrowed(caps: np.ndarray) -> np.ndarray:
    """The capacities as int32 where every one fits (int_type), else as they are: the residual
    graph holds the network's capacities, 4 bytes an arc instead of 8."""
    if caps.dtype == np.int32 or caps.min(initial=0) < 0 or \
            int_type(int(caps.max(initial=0))) is not np.int32:
        return caps
    return caps.astype(np.int32)


def capacity_type(caps: np.ndarray) -> type:
    """How the residual graph holds these capacities: int32 where they are int32 already,
    else int64."""
    return np.int32 if caps.dtype == np.int32 else np.int64
