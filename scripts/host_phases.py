"""The host memory of `maxflow solve INSTANCE --solver gpu-sync --rivals none --check`, phase
by phase, on a machine without a GPU.

    python scripts/host_phases.py [INSTANCE]

Generates INSTANCE (a preset or a generator spec as `maxflow bench` takes them; seed 1 by
default) in memory, builds its graph in input order and checks an answer, as `solve` does.
The solve phase holds what gpu-sync's host holds with a GPU: its engine makes the preflow,
which would be uploaded, and downloads the residuals and excesses, but a stand-in takes the
kernels' place: it holds nothing and downloads residuals of 1, so that the certificate's
search reaches every vertex that has a path to the sink (the certificate then fails; what it
holds does not change). gpu-sync's Numba twin (--device cpu) would hold a copy of all that
the GPU holds. Prints each phase's host peak (VmHWM, reset between phases), in bytes and in
bytes an arc above the compile phase's (Python, Numba and the compiled code).
"""

import json
import sys

from maxflow_cli import memory
from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.check import check_answer
from maxflow_cli.jit import compile_shared
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.result import SolveResult
from maxflow_cli.solvers import gpu_sync


class StandIn:
    """The kernels' place in gpu-sync's engine: holds nothing (the GPU would hold the graph
    and the preflow) and downloads residuals of 1."""

    def __init__(self, kind, graph, res, excess, width=0, shares_host=False, held=()):
        self.seconds = {"transfer": 0.0}

    def download(self, res, excess, label=None) -> None:
        res[:] = 1


def main(text="washington-rlg-long-2048x4096"):
    spec = get_solver("gpu-sync")
    options = spec.resolve(SolveOptions(device="cpu", params={"rivals": "none"}))
    peaks = memory.PhasePeaks()
    compile_shared()
    peaks.after("compile")
    network = parse_instance(text)[0].load()[0]
    peaks.after("read")
    graph = spec.build(network)
    del network
    peaks.after("build")
    gpu_sync.SyncKernels = StandIn
    res = gpu_sync.Engine(graph, options, polled=False).download()
    peaks.after("solve")
    check_answer(graph, SolveResult("gpu-sync", 0, res, False))
    peaks.after("check")
    phases = {entry["phase"]: entry["host_bytes"] for entry in peaks.report()["by_phase"]}
    print(json.dumps({"instance": text, "n": graph.n, "m": graph.m, "residuals": str(res.dtype),
                      "host_bytes": phases, "bytes_per_arc_above_compile": {
                          phase: round((size - phases["compile"]) / graph.m, 2)
                          for phase, size in phases.items()}}))


if __name__ == "__main__":
    main(*sys.argv[1:])
