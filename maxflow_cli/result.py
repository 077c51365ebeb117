"""What a solver returns: one shape for every solver (the registry's calling convention)."""

import time
from dataclasses import dataclass, field

import numpy as np


@dataclass
class SolveResult:
    """The outcome of one solve.

    ``res`` holds the final residual capacities: a maximum preflow after stage 1, a maximum
    flow when ``is_flow`` (stage 2 ran); int64, or gpu-sync's uint16 or int32 where every
    residual fits and no flow is asked for (the host then holds 2 or 4 bytes a residual arc,
    not 8).
    ``times`` are seconds per phase (``stage1``, ``stage2`` and solver-specific ones such as
    ``global_relabel``, ``kernels``, ``transfer``; where stage 1 is timed as the authors' code
    times it, ``setup`` before it builds the solver's own structures from the residual graph
    and ``settle`` after it turns the end of the search into a maximum preflow of the
    residual graph); ``counters`` count operations (pushes, relabels, global updates, gaps,
    launches, ...). ``trace`` lists one record per round for the solvers that work in
    rounds. Where solvers race (gpu-sync's rivals, auto), ``winner`` names the one whose
    answer this is and ``why`` says what ran and why.
    """

    solver: str
    flow_value: int
    res: np.ndarray
    is_flow: bool
    times: dict[str, float] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    trace: list[dict] = field(default_factory=list)
    winner: str = ""
    why: str = ""


def timed(times: dict, phase: str, function, *args):
    """``function(*args)``, its seconds in ``times[phase]``."""
    started = time.perf_counter()
    value = function(*args)
    times[phase] = time.perf_counter() - started
    return value
