"""CPU solvers raced beside a GPU engine, or beside each other: each on a thread of its own
(workers kept between races), the first answer taken, the others told to stop at once. Or,
for auto on the CPU, a relay: one at a time on the calling thread, the next taking over where
one calls for help.

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

import os
import queue
import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from functools import cache, partial

import numpy as np

from maxflow_cli.errors import MaxflowError, ParameterError
from maxflow_cli.registry import Parameter, SolveOptions, get_solver, solvers
from maxflow_cli.result import SolveResult

NO_RIVALS = "none"
RIVALS = Parameter(
    "rivals", str, "hipr+hpf",
    "CPU solvers that race gpu-sync's GPU engine, each on a thread of its own, joined by '+' "
    "(none: the engine alone); the first answer wins")


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


@cache
def entrants(text: str, want_flow: bool) -> tuple:
    """(spec, options) of each rival named in `text` (see rival_names), each with its own
    defaults; kept, so that a solve reads them off (its callers prepare them first) instead
    of resolving them on its clock."""
    return tuple((spec, spec.resolve(SolveOptions(want_flow=want_flow)))
                 for spec in map(get_solver, rival_names(text)))


def takes(spec, graph) -> bool:
    """Whether solver `spec` can solve `graph` (a wide one: only where it declares
    wide_arcs)."""
    return not graph.wide or spec.wide_arcs


def able(entrants: list, graph) -> list:
    """The entrants that can solve `graph` (takes)."""
    return [(spec, options) for spec, options in entrants if takes(spec, graph)]


def prepare(entrants: list, relay: bool = False) -> float:
    """Compile each rival as it races (with a stop flag) and start the threads they will run
    on (none for a relay, which runs them on the calling thread): the seconds it took."""
    started = time.perf_counter()
    _WORKERS.reserve(0 if relay else len(entrants))
    return time.perf_counter() - started + sum(
        spec.prepare(replace(options, stop=np.zeros(1, np.uint8))) for spec, options in entrants)


def joined(entrants: list) -> str:
    """'hipr and hpf'."""
    return " and ".join(spec.name for spec, _ in entrants)


class _Workers:
    """Daemon threads kept from one race to the next, each taking the next job when idle:
    a woken worker runs its rival within microseconds, where a new thread took 1-2 ms to
    start on the 2-core machine (README, "The race")."""

    def __init__(self):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0

    def reserve(self, count: int) -> None:
        """Start workers until `count` are idle (before a race, out of its time)."""
        with self._lock:
            while self._idle < count:
                self._start()

    def run(self, job) -> None:
        """Run job() on an idle worker, or on a new one when all are busy."""
        with self._lock:
            if not self._idle:
                self._start()
            self._idle -= 1
        self._jobs.put(job)

    def _start(self) -> None:
        """One more idle worker (the lock held)."""
        self._idle += 1
        threading.Thread(target=self._work, daemon=True).start()

    def _work(self) -> None:
        """A worker's life: one job after another."""
        while True:
            self._jobs.get()()
            with self._lock:
                self._idle += 1


_WORKERS = _Workers()
os.register_at_fork(after_in_child=_WORKERS.__init__)  # a child has none of the threads


HELP_BUDGET = 2
"""A relay's helper runs with a budget of this many times the pushes its caller had made when
it called (Race._call_for_help): on the shapes it is there for, hipr finishes within it (0.6-1.5
times hpf's pushes at the call on Goldberg's bad case, whose pushes are 6n where the call comes
after m = 4n at least); where its own work grows as fast as the caller's (the AK networks of
Cherkassky & Goldberg, 30-400 times), it gives up within a few percent of the caller's whole
run, and the caller goes on from where it paused (README, "The relay's budget")."""


class Rival:
    """One solver, run by a worker (or by a relay) until it answers, is stopped or gives up
    past its budget (a relay's helper)."""

    def __init__(self, spec, options: SolveOptions, graph, call_for_help=None):
        self.name, self.gives_up = spec.name, spec.gives_up
        self.stop = np.zeros(1, np.uint8)
        self.budget = np.full(1, -1, np.int64)  # set where it is called to help
        self.answer: SolveResult | None = None
        self.ran = False
        self._solve = partial(spec.solve, graph, replace(
            options, stop=self.stop, call_for_help=call_for_help, budget=self.budget))

    def run(self, done) -> None:
        """Solve, then done(self, answer): None where the solver failed (out of memory, say)
        or was stopped."""
        self.ran = True
        try:
            answer = self._solve()
        except Exception:  # a rival that fails leaves the race to the others
            answer = None
        done(self, answer)


class Race:
    """Rivals, (spec, options) pairs, started on entry and stopped on exit; ``winner()``
    looks without waiting, ``first()`` waits. The first answer stops the others at once.
    With `relay`, first() runs the rivals one at a time on the calling thread (which would
    only wait otherwise): each until it answers or fails (the next then starts), or calls
    for help while another is left (options.call_for_help: _call_for_help). On a machine of
    few cores a second thread costs the first part of its core, so the next runs only where
    the first can tell that the shape is bad for it (hpf: see
    pseudoflow.hpf.help_bound). ``called_in`` says whether one took over, ``gave_up`` names
    a helper that gave up (its caller then went on)."""

    def __init__(self, rivals, graph, relay: bool = False):
        self._entrants, self._graph, self._relay = rivals, graph, relay
        self.called_in, self.gave_up, self._running = False, "", 0
        self._finished: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._rivals: list[Rival] = []
        self._flags: list[np.ndarray] = []  # set as well by the first answer (stopping)
        self._answered = False

    def __enter__(self) -> "Race":
        self._started = time.perf_counter()
        helped = self._call_for_help if self._relay else None
        self._rivals = [Rival(spec, options, self._graph, helped)
                        for spec, options in self._entrants]
        self._all = tuple(self._rivals)
        if not self._relay:
            for rival in self._all:
                _WORKERS.run(partial(rival.run, self._done))
        return self

    def _call_for_help(self, work: int) -> None:
        """The running rival of a relay is on a bad shape, after `work` (hpf: its pushes).
        Where the next can give up (SolverSpec.gives_up: hipr), it runs now on this thread,
        with a budget of HELP_BUDGET times that work: where it answers, the caller is
        stopped (its answer dropped); where it gives up, the caller goes on from where it
        called, its work kept. Another next takes over: the caller is stopped (its arrays
        freed before the next runs), and first() runs the next."""
        caller = self._running
        if caller + 1 >= len(self._all):
            return
        helper = self._all[caller + 1]
        if not helper.gives_up:
            self.called_in = True
            self._all[caller].stop[0] = 1
            return
        helper.budget[0] = HELP_BUDGET * work
        self._running = caller + 1
        helper.run(self._done)
        self._running = caller
        if helper.answer is not None:
            self.called_in = True
        else:
            self.gave_up = helper.name

    def _done(self, rival: Rival, answer: SolveResult | None) -> None:
        """A rival's end, on its thread: the first answer is kept and stops the others; later
        ones are dropped. The queue holds the rivals in the order they ended."""
        with self._lock:
            if answer is not None and not rival.stop[0]:
                rival.answer = answer
                self._answered = True
                for other in self._all:
                    if other is not rival:
                        other.stop[0] = 1
                for flag in self._flags:
                    flag[0] = 1
            self._finished.put(rival)

    @contextmanager
    def stopping(self, flag: np.ndarray):
        """Within the block, the first answer sets `flag` too (at once where one has come):
        the caller's own stoppable work (gpu-sync's CPU phase) ends with the race."""
        with self._lock:
            self._flags.append(flag)
            if self._answered:
                flag[0] = 1
        try:
            yield flag
        finally:
            with self._lock:
                self._flags.remove(flag)

    def winner(self) -> SolveResult | None:
        """The answer of the first rival to have answered, if any, without waiting."""
        while not self._finished.empty():
            if (answer := self._answer_of(self._finished.get())) is not None:
                return answer
        return None

    def first(self) -> SolveResult:
        """Wait for the first answer (with `relay`, running the rivals here in turn); called
        once a race."""
        if self._relay:
            for self._running, rival in enumerate(self._all):
                if not rival.ran:  # a helper that already ran (and gave up) is done
                    rival.run(self._done)
                if self._answered:
                    break
        while self._rivals:
            if (answer := self._answer_of(self._finished.get())) is not None:
                return answer
        raise MaxflowError("every solver of the race failed (run one alone to see why)")

    def _answer_of(self, rival: Rival) -> SolveResult | None:
        """A finished rival's answer, its stage 1 the wall time from the start of the race
        until now, less its other phases (_timed); its own times where it ran alone (a
        relay's first); None where it failed."""
        self._rivals.remove(rival)
        if rival.answer is None:
            return None
        if self._relay and rival is self._all[0] and not self.called_in:
            return rival.answer
        return _timed(rival.answer, time.perf_counter() - self._started)

    def __exit__(self, *exc) -> None:
        """Tell the rivals still running to stop (their workers go back to waiting)."""
        for rival in self._rivals:
            rival.stop[0] = 1
        self._rivals = []
        self._all = ()  # a relay's rivals hold _call_for_help, a cycle: their answers go now


def _timed(answer: SolveResult, seconds: float) -> SolveResult:
    """The answer with stage 1 the race's `seconds` less the winner's other phases (its
    set-up before stage 1, its settling and stage 2 after, a compile for a new type), which
    it reports beside: its stage 1 leaves them out in a race as it does alone."""
    others = sum(value for key, value in answer.times.items() if key != "stage1")
    return replace(answer, times={key: seconds - others if key == "stage1" else value
                                  for key, value in answer.times.items()})
