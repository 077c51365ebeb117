"""The `mpi` solver's processes: the leader (rank 0) splits the graph and scatters the parts,
every rank runs its rounds (rounds.RankSolver), the leader gathers the preflow; and the
launcher that starts the ranks through mpiexec when maxflow was not started by one
(`python -m maxflow_cli.distributed.launch FOLDER COUNT` is what each rank runs then).

A rank that fails writes one line and aborts the whole job (MPI_Abort), so no rank waits
forever for it; the launcher turns a failed job into one error line too.
"""

import json
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from maxflow_cli.errors import ERROR_PREFIX, RanksFailed, SolverUnavailable
from maxflow_cli.network import Network
from maxflow_cli.processes import ProcessGroup
from maxflow_cli.registry import SolveOptions, compile_on_tiny_graph
from maxflow_cli.residual import ResidualGraph, build_residual

from .partition import Splitter
from .rounds import RankSolver

PART = 11
STOP_GRACE = 10.0
"""Seconds mpiexec has to end its ranks after SIGTERM, before SIGKILL."""


@contextmanager
def failing_together(comm):
    """On any error in a rank, say so in one line and end every rank of the job."""
    try:
        yield
    except BaseException as error:  # noqa: BLE001 - a rank must never leave the others waiting
        reason = str(error) or type(error).__name__
        print(f"{ERROR_PREFIX}mpi rank {comm.rank}: {reason}", file=sys.stderr, flush=True)
        comm.Abort(1)


def _own_share(solver: RankSolver):
    part = solver.part
    return (solver.res[:part.first[part.owned]], solver.excess[:part.owned],
            solver.statistics())


def lead(comm, graph: ResidualGraph, params: dict):
    """Rank 0: split, scatter, solve its own part, gather. Returns (res, excess, times,
    counters, trace): a maximum preflow of the whole graph."""
    with failing_together(comm):
        started = time.perf_counter()
        splitter = Splitter(graph, comm.size, params["partition"], params["blocks"])
        for rank in range(1, comm.size):
            comm.send((splitter.part(rank), params), dest=rank, tag=PART)
        solver = RankSolver(comm, splitter.part(0), params)
        comm.Barrier()
        times = {"partition": time.perf_counter() - started}
        started = time.perf_counter()
        solver.run()
        times["stage1"] = time.perf_counter() - started
        started = time.perf_counter()
        shares = comm.gather(_own_share(solver), root=0)
        res = graph.cap.copy()
        excess = np.zeros(graph.n, np.int64)
        for rank, (own_res, own_excess, _) in enumerate(shares):
            res[splitter.own_arcs(rank)] = own_res
            excess[splitter.own_vertices(rank)] = own_excess
        times["gather"] = time.perf_counter() - started
    statistics = [share[2] for share in shares]
    counters = {name: sum(s[name] for s in statistics)
                for name in ("pushes", "relabels", "work", "refused", "bytes", "messages",
                             "bfs_skipped")}
    discharges = np.array([s["discharge_seconds"] for s in statistics])
    times.update(discharge_slowest=float(discharges.max(axis=0).sum()),  # seconds: times
                 discharge_mean=float(discharges.sum(axis=1).mean()),
                 global_relabel=solver.relabel_seconds)
    counters.update(rounds=solver.rounds, global_relabels=solver.global_relabels,
                    bfs_iterations=solver.bfs_iterations, ranks=comm.size,
                    peak_memory_leader=statistics[0]["peak_memory"],
                    peak_memory_other=max((s["peak_memory"] for s in statistics[1:]),
                                          default=0))
    return res, excess, times, counters, solver.trace


def follow(comm) -> None:
    """Ranks 1..K-1: solve each part the leader sends, until it sends None."""
    while True:
        message = comm.recv(source=0, tag=PART)
        if message is None:
            return
        with failing_together(comm):
            part, params = message
            solver = RankSolver(comm, part, params)
            comm.Barrier()
            solver.run()
            comm.gather(_own_share(solver), root=0)


def release(comm) -> None:
    """The leader's last word: no more parts (the followers return from follow())."""
    for rank in range(1, comm.size):
        comm.send(None, dest=rank, tag=PART)


def mpiexec() -> str:
    """The mpiexec beside this Python (the `mpich` wheel's), else the first on PATH."""
    beside = Path(sysconfig.get_path("scripts")) / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if not found:
        raise SolverUnavailable("no mpiexec found: pip install 'maxflow-dimacs[mpi]'")
    return found


def run_on_ranks(networks: list[Network], params: dict, ranks: int,
                 timeout: float | None = None) -> list[tuple]:
    """Solve every network on `ranks` fresh MPI processes (one mpiexec for all of them);
    lead()'s tuple for each. RanksFailed with the job's last error line where it fails or
    outlasts `timeout` seconds. However we leave (an error, Ctrl-C, SIGTERM), the job is
    ended first: SIGTERM, which mpiexec passes on to every rank (each runs in a session of
    its own), then SIGKILL if it is still there after STOP_GRACE seconds."""
    with tempfile.TemporaryDirectory(prefix="maxflow-mpi-") as folder:
        for index, network in enumerate(networks):
            np.savez(Path(folder, f"{index}.npz"), n=network.n, source=network.source,
                     sink=network.sink, tails=network.tails, heads=network.heads,
                     caps=network.caps)
        Path(folder, "params.json").write_text(json.dumps(params))
        command = [mpiexec(), "-n", str(ranks), sys.executable, "-m",
                   "maxflow_cli.distributed.launch", folder, str(len(networks))]
        # cwd: not a source checkout, whose maxflow_cli would shadow the installed one
        with tempfile.TemporaryFile() as errors, \
                ProcessGroup(command, stop=signal.SIGTERM, grace=STOP_GRACE,
                             stdout=subprocess.DEVNULL, stderr=errors, cwd=folder) as job:
            if not job.wait(timeout):
                raise RanksFailed(f"mpi: {ranks} ranks did not finish within {timeout:g} s")
            job.end()
            errors.seek(0)
            _check_job(job.returncode, errors.read().decode(errors="replace"), ranks)
        results = []
        for index in range(len(networks)):
            with np.load(Path(folder, f"{index}.result.npz")) as saved:
                res, excess = saved["res"], saved["excess"]
            extra = json.loads(Path(folder, f"{index}.json").read_text())
            results.append((res, excess, extra["times"], extra["counters"], extra["trace"]))
        return results


def _check_job(status: int, errors: str, ranks: int) -> None:
    """RanksFailed with the job's last error line where it exited with a failure."""
    if status != 0:
        lines = [line for line in errors.splitlines() if line.startswith(ERROR_PREFIX)]
        last = lines[-1] if lines else (errors.strip().splitlines() or ["no message"])[-1]
        raise RanksFailed(f"mpi: {ranks} ranks failed (exit {status}): "
                          f"{last.removeprefix(ERROR_PREFIX)}")


def warm_up(params: dict) -> float:
    """Compile (or load from Numba's cache) what a rank runs, on a tiny graph and this process
    alone; returns the seconds it took."""
    from mpi4py import MPI

    return compile_on_tiny_graph(lambda graph, options: lead(MPI.COMM_SELF, graph, params),
                                 SolveOptions(False, "cpu", params))


def main(folder: str, count: int) -> None:
    """What each rank of run_on_ranks runs."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    params = json.loads(Path(folder, "params.json").read_text())
    if comm.size != params["ranks"]:  # each process came up alone: another MPI's mpiexec
        print(f"{ERROR_PREFIX}mpi4py's MPI ({MPI.Get_library_version().split()[0]}) is "
              f"not the one of {mpiexec()}", file=sys.stderr, flush=True)
        sys.exit(1)
    warm_up(params)
    if comm.rank != 0:
        follow(comm)
        return
    for index in range(count):
        with np.load(Path(folder, f"{index}.npz")) as saved:
            network = Network(int(saved["n"]), int(saved["source"]), int(saved["sink"]),
                              saved["tails"], saved["heads"], saved["caps"])
        res, excess, times, counters, trace = lead(comm, build_residual(network), params)
        np.savez(Path(folder, f"{index}.result.npz"), res=res, excess=excess)
        Path(folder, f"{index}.json").write_text(json.dumps(
            {"times": times, "counters": counters, "trace": trace}))
    release(comm)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
