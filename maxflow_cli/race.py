"""CPU solvers raced beside a GPU engine, or beside each other: each on a thread of its own,
the first answer taken, the others told to stop.

Which algorithm is fastest depends on the shape of the network, and no rule read off its
size or degrees says which in advance: on a path or Goldberg's bad case a GPU's synchronous
rounds move the excess one arc a round, where hi_pr takes milliseconds, and pseudoflow does
O(n^2) work on Goldberg's case, where push-relabel does not (Cherkassky & Goldberg 1997 on
the first; Hochbaum 2008 on the second). Running them side by side takes no such rule, and
on the GPU host the cores are idle while the kernels run (He & Hong 2010, §V: use whichever
unit pays). A rival is a solver that can be stopped (SolverSpec.stoppable): its compiled
loop releases the GIL and returns soon after ``options.stop[0]`` is set; its answer is then
dropped.
"""

import queue
import threading
import time
from dataclasses import replace

import numpy as np

from maxflow_cli.errors import MaxflowError, ParameterError
from maxflow_cli.registry import Parameter, SolveOptions, get_solver, solvers
from maxflow_cli.result import SolveResult

NO_RIVALS = "none"
RIVALS = Parameter(
    "rivals", str, "hipr+hpf",
    "CPU solvers that race, each on a thread of its own, joined by '+': beside gpu-sync's "
    "GPU engine (none: the engine alone), or each other for auto without a GPU; the first "
    "answer wins")


def rival_solvers() -> list[str]:
    """The solvers that can race: those that run on the CPU and stop when told to."""
    return [name for name, spec in solvers().items() if spec.stoppable]


def rival_names(text: str) -> tuple[str, ...]:
    """The solvers of a `+`-joined list ("hipr+hpf"; "none": no rival), each one that can
    race."""
    if text == NO_RIVALS:
        return ()
    names = tuple(text.split("+"))
    known = rival_solvers()
    for name in names:
        if name not in known:
            raise ParameterError(f"--rivals {text}: '{name}' cannot race; choose among "
                                 f"{', '.join(known)} (joined by '+'), or none")
    return names


def entrants(text: str, want_flow: bool) -> list:
    """(spec, options) of each rival named in `text` (see rival_names), each with its own
    defaults."""
    return [(spec, spec.resolve(SolveOptions(want_flow=want_flow)))
            for spec in map(get_solver, rival_names(text))]


def prepare(entrants: list) -> float:
    """Compile each rival as it races (with a stop flag): the seconds it took."""
    return sum(spec.prepare(replace(options, stop=np.zeros(1, np.uint8)))
               for spec, options in entrants)


def joined(entrants: list) -> str:
    """'hipr and hpf'."""
    return " and ".join(spec.name for spec, _ in entrants)


class Rival:
    """One solver running on a thread of its own until it answers or is stopped; it puts
    itself in `finished` when it is done, so that the race reads the rivals in the order they
    ended."""

    def __init__(self, spec, options: SolveOptions, graph, finished: queue.SimpleQueue):
        self.name = spec.name
        self.stop = np.zeros(1, np.uint8)
        self.answer: SolveResult | None = None
        self._finished = finished
        threading.Thread(target=self._solve, args=(spec, replace(options, stop=self.stop),
                                                   graph), daemon=True).start()

    def _solve(self, spec, options: SolveOptions, graph) -> None:
        """The thread: the answer, unless the solver failed (out of memory, say) or was
        stopped."""
        try:
            answer = spec.solve(graph, options)
            if not self.stop[0]:
                self.answer = answer
        except Exception:  # a rival that fails leaves the race to the others
            pass
        finally:
            self._finished.put(self)


class Race:
    """Rivals, (spec, options) pairs, started on entry and stopped on exit; ``winner()``
    looks without waiting, ``first()`` waits."""

    def __init__(self, rivals, graph):
        self._entrants, self._graph = rivals, graph
        self._finished: queue.SimpleQueue = queue.SimpleQueue()
        self._rivals: list[Rival] = []

    def __enter__(self) -> "Race":
        self._started = time.perf_counter()
        self._rivals = [Rival(spec, options, self._graph, self._finished)
                        for spec, options in self._entrants]
        return self

    def winner(self) -> SolveResult | None:
        """The answer of the first rival to have answered, if any, without waiting."""
        while not self._finished.empty():
            if (answer := self._answer_of(self._finished.get())) is not None:
                return answer
        return None

    def first(self) -> SolveResult:
        """Wait for the first answer."""
        while self._rivals:
            if (answer := self._answer_of(self._finished.get())) is not None:
                return answer
        raise MaxflowError("every solver of the race failed (run one alone to see why)")

    def _answer_of(self, rival: Rival) -> SolveResult | None:
        """A finished rival's answer, its stage 1 the wall time from the start of the race
        until now, less its stage 2 (the flow, when asked for); None where it failed."""
        self._rivals.remove(rival)
        if rival.answer is None:
            return None
        return _timed(rival.answer, time.perf_counter() - self._started)

    def __exit__(self, *exc) -> None:
        """Tell the rivals still running to stop (their threads end on their own)."""
        for rival in self._rivals:
            rival.stop[0] = 1
        self._rivals = []


def _timed(answer: SolveResult, seconds: float) -> SolveResult:
    stage2 = {key: value for key, value in answer.times.items() if key == "stage2"}
    return replace(answer, times={"stage1": seconds - sum(stage2.values())} | stage2)
