"""`self-stabilizing`: da Silva's CUDA max flow after Ghosh, Gupta & Pemmaraju 1995 (journal
version 1997), as Alvino 2015 surveys it (§3.2.2, Algorithms 7-8); kernels in
kernels/self_stabilizing.cu.

A processor per vertex; every arc starts saturated; each vertex publishes its label h(u) (its
distance from the source in the residual graph, n when out of reach) and its demand(u) =
outflow - inflow (the sink's infinite, the source inactive), and runs whichever guarded
action holds: S1 h(u) <- min({h(p) + 1 : p -> u residual} U {n}); S2 Reduce_InFlow when
demand(u) < 0; S3 pull min(demand(u), r(v, u)) along a residual arc v -> u with
h(v) = h(u) - 1 when demand(u) > 0 and h(u) < n; S4 Reduce_OutFlow when demand(u) > 0,
h(u) = n and u is not the sink. It stops when no guard holds anywhere. Then S1 makes h
exact, so the sink's label n says no residual path leads from the source to it, and
demand 0 at every other vertex but the source says the flow is conserved: a maximum flow.

Where the seed is silent, our choices (Ghosh et al.'s paper itself is not among the seeds;
its abstract says the algorithm converges from any state on acyclic networks, and leaves
networks with cycles as a conjecture, so no choice below is forced by a proof we have):
- Daemon: rounds. S1 runs in every vertex at once on the labels of the round before (double
  buffered: the synchronous distance rule, as in a synchronous Bellman-Ford). S2-S4 change
  flows two processors share, by amounts read from demands a neighbour's move would change;
  so in a round only the enabled vertices whose pseudo-random key beats every enabled
  neighbour's move. Such a round is a serial (central daemon) execution, which keeps every
  arc within 0..capacity without atomics; the keys are a hash of (vertex, round), so a vertex
  that stays enabled moves in about one round in degree+1 (fairness).
- A move repeats u's action, one arc at a time (as Algorithms 7-8 change one arc), while its
  guard holds at u: the daemon choosing u again while its neighbours stand still.
- Reduce_InFlow and Reduce_OutFlow take the arc carrying the least positive flow into
  (out of) the vertex, the first of equals: the seed allows any; this empties arcs in the
  fewest moves and lets a small surplus leave a saturated cycle through its cheapest arc
  rather than chase itself around the cycle once per unit. (The largest flow, faster on a
  small genrmf, sends u's surplus of 4 round the cycle 2^60 times on s->u (5), u<->k (2^62
  each way), u->t (1); a test keeps that network; the README's "Measurements behind the
  code" has the numbers.)
- "the supplier that appears nearest the source": a supplier v with h(v) = h(u) - 1 as
  published, the first in u's arc order (all such are equally near).
- demand(t) = infinity: the sink pulls a supplier arc's whole residual; it never runs S2 or
  S4. Demands beyond 2^62 (more than any arc carries) are clamped, so nothing overflows.
Termination: at most --max-rounds rounds, else a clear error; tests run networks with
cycles, parallel arcs, self-loops and unreachable vertices.

Cost: every round scans every arc three times whatever the work left, and flow moves one
vertex in a neighbourhood per round, so rounds grow with path lengths and degrees;
it is orders of magnitude slower than the push-relabel solvers (README: H100 timings),
kept for the seed's record.
"""

import time

import numpy as np

from maxflow_cli.errors import MaxflowError
from maxflow_cli.kernels.self_stabilizing import BATCH, StabilizingKernels
from maxflow_cli.registry import SolveOptions, cycles_parameter, register_with_kernels
from maxflow_cli.residual import ResidualGraph
from maxflow_cli.result import SolveResult


def solve_self_stabilizing(graph: ResidualGraph, options: SolveOptions) -> SolveResult:
    """Batches of rounds until a round in which no label changes and no guard holds."""
    max_rounds = options.params["max_rounds"]
    started = time.perf_counter()
    device = StabilizingKernels(options.device, graph)
    try:
        rounds = 0
        while True:
            if rounds >= max_rounds:
                raise MaxflowError(
                    f"self-stabilizing: guards still hold after {max_rounds} rounds "
                    "(--max-rounds); Ghosh et al. prove convergence on acyclic networks only")
            count = min(BATCH, max_rounds - rounds)
            busy = device.batch(rounds, count)
            quiet = next((r for r in range(rounds, rounds + count) if not busy[r % BATCH]), None)
            if quiet is not None:
                rounds = quiet
                break
            rounds += count
        res = np.empty(graph.head.shape[0], np.int64)
        device.download(res)
        moves = device.moves()
        times = {"stage1": time.perf_counter() - started} | device.seconds
    finally:
        device.close()
    sink_arcs = slice(graph.first[graph.sink], graph.first[graph.sink + 1])
    flow_value = sum((res[sink_arcs] - graph.cap[sink_arcs]).tolist())
    counters = {"rounds": rounds} | moves
    # a fixpoint is a flow already: with want_flow there is no second stage to run
    return SolveResult("self-stabilizing", flow_value, res, options.want_flow, times, counters)


register_with_kernels(
    "self-stabilizing", "da Silva's CUDA self-stabilizing max flow: a thread per vertex, "
    "guarded actions S1-S4 from every arc saturated until no guard holds",
    "Alvino 2015, §3.2.2, Algorithms 7-8 (da Silva 2013, after Ghosh, Gupta & Pemmaraju 1995)",
    solve_self_stabilizing, (
        cycles_parameter("max_rounds", 1 << 24,
                         "rounds (three kernel launches each) after which "
                         "it stops with an error"),
    ), in_default_bench=False)
