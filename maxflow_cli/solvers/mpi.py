"""`mpi`: push-relabel distributed over MPI ranks (Pogoriliy & Kuzmin, seed 004: the vertex
ranges split over MPI processes; Alvino 2015 §3.4: regions grown by BFS from the sink, hipr
inside each region). The algorithm is maxflow_cli.distributed.rounds; this module runs it in
the three ways the ranks can come about:

- `mpiexec -n K maxflow solve FILE --solver mpi`: every process runs the command; rank 0
  reads the network and leads, the others follow (the registry's `follower` hook), taking
  only their parts;
- `--ranks K` without mpiexec (and `maxflow bench --solvers mpi:ranks=K`): K ranks are
  started through mpiexec, stage 1 timed on their rank 0;
- one rank in this process (the default without mpiexec).
"""

import atexit
import importlib.util

from maxflow_cli.distributed.launch import follow, lead, release, run_on_ranks, warm_up
from maxflow_cli.distributed.partition import PARTITIONS
from maxflow_cli.errors import ParameterError
from maxflow_cli.pushrelabel.highest_label import timed_stage_two
from maxflow_cli.registry import HIPR_PARAMETERS, Parameter, SolveOptions, SolverSpec, register
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult

MPI_PARAMETERS = (
    Parameter("ranks", int, 0, "MPI ranks; without mpiexec, this many are started through "
              "mpiexec (0: those mpiexec started, or 1)", minimum=0, maximum=4096),
    Parameter("partition", str, "ranges", "how vertices are split over ranks: 'ranges' "
              "(consecutive ids, Pogoriliy & Kuzmin) or 'regions' (BFS from the sink, Alvino "
              "§3.4)", choices=PARTITIONS),
    Parameter("blocks", int, 1, "pieces of the partition per rank, dealt to the ranks in "
              "turn (more: each rank has work along a chain of pieces; fewer: fewer borders)",
              minimum=1, maximum=1024),
)


def _world():
    from mpi4py import MPI

    return MPI.COMM_WORLD


def solve_mpi(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Stage 1 on the ranks (see the module docstring); stage 2 here, on the gathered preflow."""
    params = options.params
    world = _world()
    ranks = params["ranks"]
    if world.size > 1 and ranks not in (0, world.size):
        raise ParameterError(f"--ranks {ranks}: mpiexec started {world.size} ranks")
    if world.size > 1 or ranks <= 1:
        res, excess, times, counters, trace = lead(world, graph, params)
    else:
        res, excess, times, counters, trace = run_on_ranks([graph.network], params, ranks)[0]
    if options.want_flow:
        timed_stage_two(graph, res, excess, times)
    return SolveResult("mpi", int(excess[graph.sink]), res, options.want_flow, times,
                       counters, trace)


def follow_leader(options: SolveOptions) -> bool:
    """Under mpiexec, on ranks 1..K-1: compile, solve the parts rank 0 sends, return True.
    On rank 0: arrange that the followers are released when it exits, even on an error."""
    world = _world()
    if world.size == 1:
        return False
    if world.rank == 0:
        atexit.register(release, world)
        return False
    warm_up(options.params)
    follow(world)
    return True


def _unavailable(options: SolveOptions) -> str | None:
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed: pip install 'maxflow-dimacs[mpi]'"
    return None


register(SolverSpec(
    "mpi", "push-relabel over MPI ranks: hipr inside each part, synchronous border rounds",
    "Pogoriliy & Kuzmin (vertex ranges over MPI); Alvino 2015 §3.4 (BFS regions, hipr inside)",
    solve_mpi, prepare=lambda options: warm_up(options.params),
    parameters=MPI_PARAMETERS + HIPR_PARAMETERS, unavailable=_unavailable,
    follower=follow_leader, in_default_bench=False))
