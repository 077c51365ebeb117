"""Our solvers under ``maxflow bench --timeout``: their cells in child processes, killed when
a run passes the timeout.

A run of one of our solvers cannot be stopped from outside its process: compiled loops look
at no signal, and most solvers have no stop flag. Under ``--timeout`` each configuration of
ours runs in a child process of its own (Child, CHILD), kept from one instance to the next so
that its compiled code is loaded once (from the disk caches the benchmark's own compilation
filled). For each cell the child loads the instance's arrays (saved once per instance:
InstanceFiles.arrays, Network.save) and builds the residual graph in its solver's arc order,
then runs what the runner asks for, one run at a time, each measured as the runner measures
one in-process (runner.measured_solve: the solver's stage 1 and phases, the wall and user CPU
seconds of the solve call, the child's peak resident set and the GPU memory its kernels
held); the baseline's first answer is certified there too. Setting up is not under the
timeout; a run that passes it has the child's process group killed (its GPU context goes
with it) and fails its cell, as an external program's run does (RunFailed); the next cell of
that configuration starts a new child.

The child reads pickled requests on its standard input and answers on what was its standard
output; whatever the solvers print goes to its standard error, whose end a failure quotes.
"""

import ctypes
import os
import pickle
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field, replace

from maxflow_cli.bench.external import QUOTED, RunFailed
from maxflow_cli.network import Network

CHILD = "import sys; sys.path[:] = {path!r}; from maxflow_cli.bench.isolated import main; main()"
"""The child's program: the benchmark's module path (so that it imports the package the
benchmark runs, not one its working directory holds), then this module by its name (so that
what it pickles names it)."""
PARENT = "MAXFLOW_BENCH_PARENT"
"""The environment variable that tells the child the benchmark's process id."""
PR_SET_PDEATHSIG = 1
"""prctl's option that names the signal a process gets when its parent dies (linux/prctl.h)."""


@dataclass(frozen=True)
class IsolatedRun:
    """What one run in the child gave: the fields of a SolveResult the runner reads, the
    measurements it takes in-process, and the certificate where it was asked for."""

    flow_value: int
    times: dict[str, float]  # the solver's phases, "wall" and (with cpu_time) "cpu"
    counters: dict[str, int]
    winner: str = ""
    trace: list = field(default_factory=list)
    peak_host_bytes: int | None = None
    peak_gpu_bytes: int | None = None
    certificate: tuple | None = None  # (seconds, problems, cut capacity) where asked for


def child_environment(interleave: bool) -> dict[str, str]:
    """The children's environment: ours, the benchmark's process id (PARENT) and, where the
    runs interleave, OMP_WAIT_POLICY=passive unless it is set. After a parallel loop,
    OpenMP's idle threads spin for a few milliseconds before they sleep; in one process the
    next loop reuses them, but in interleaved children the last child's spinning threads take
    the cores the next child's loop waits for: on a 2-core machine hipr-forward (a parallel
    scatter in its stage 1) took 5.6 ms a run on genrmf a=4, b=8 against 0.10 in-process, and
    0.33 with the children's threads passive. One cell after the other, a child's runs reuse
    its own threads, as in-process (0.135 ms)."""
    environment = os.environ | {PARENT: str(os.getpid())}
    if interleave:
        environment.setdefault("OMP_WAIT_POLICY", "passive")
    return environment


class Child:
    """A child process that runs cells of one configuration of ours (main), one instance
    after the other: its compiled code loaded once."""

    def __init__(self, environment: dict[str, str]):
        self.waiting = False  # for an answer: a request was cut short (an interrupt)
        self._errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen([sys.executable, "-c", CHILD.format(path=sys.path)],
                                        env=environment,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self._errors, start_new_session=True)

    def ask(self, request, timeout: float | None = None, late: str = ""):
        """Send ``request`` and return the answer, waiting up to ``timeout`` seconds (None:
        no limit); RunFailed, the child ended, where it fails, ends or answers late."""
        self.waiting = True
        try:
            pickle.dump(request, self.process.stdin)
            self.process.stdin.flush()
        except BrokenPipeError:
            self._fail(self._ended())
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            self._fail(late)
        try:
            status, payload = pickle.load(self.process.stdout)
        except (EOFError, pickle.UnpicklingError):
            self._fail(self._ended())
        self.waiting = False
        if status == "error":
            self._fail(payload)
        return payload

    def _ended(self) -> str:
        code = self.process.wait()
        return f"crashed ({signal.Signals(-code).name})" if code < 0 else \
            f"ended with status {code}"

    def _fail(self, why: str) -> None:
        self.end()
        self._errors.seek(0)
        told = self._errors.read().decode(errors="replace").strip()
        raise RunFailed(f"{why}{': ' + told[-QUOTED:] if told else ''}")

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    def end(self) -> None:
        """Kill the child's process group, at once (what it runs is of no use any more)."""
        if self.alive:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait()


class Children:
    """The children of one benchmark, one per configuration of ours, each kept from one
    instance's cell to the next until it fails; all ended by ``end``. Where the runs
    interleave, the children's OpenMP threads wait passively (child_environment)."""

    def __init__(self, interleave: bool = False):
        self._by_label: dict[str, Child] = {}
        self.environment = child_environment(interleave)

    def of(self, label: str) -> Child:
        child = self._by_label.get(label)
        if child is None or not child.alive:
            child = self._by_label[label] = Child(self.environment)
        return child

    def end(self) -> None:
        for child in self._by_label.values():
            child.end()
        self._by_label.clear()


class IsolatedCell:
    """A configuration of ours (runner.Choice) on one instance, run by its child (Children):
    the instance is loaded and built there before the first run, dropped by ``close``."""

    in_process = False

    def __init__(self, choice, timeout: float, cpu_time: bool, children: Children):
        self.choice, self.timeout, self.cpu_time = choice, timeout, cpu_time
        self._children, self._child = children, None

    def __getattr__(self, name: str):
        """What the configuration is (label, spec, options, device, params, kind, describe):
        its Choice's."""
        return getattr(self.choice, name)

    def run(self, graph, files, certify: bool = False) -> IsolatedRun:
        """One run (``graph`` is not used: the child builds its own), certified where
        ``certify``; RunFailed where the child fails or the run passes the timeout."""
        if self._child is None:
            self._child = self._children.of(self.label)
            # loading, building and compiling are not under the timeout
            self._child.ask(("cell", self.spec.name, self.options, files.arrays(),
                             self.cpu_time))
        return self._child.ask(("run", certify), self.timeout,
                               f"ran past --timeout {self.timeout:g} s and was killed")

    def close(self) -> None:
        """Have the child drop the instance (the cell's runs are over); end it where a run
        was cut short."""
        if self._child is not None and self._child.alive:
            if self._child.waiting:
                self._child.end()
            else:
                self._child.ask(("drop",))
        self._child = None


def _measured_run(spec, options, graph, cpu_time: bool, first: bool,
                  certify: bool) -> IsolatedRun:
    """One solve measured as the runner measures one in-process (runner.measured_solve)."""
    from maxflow_cli.bench.runner import measured_solve
    from maxflow_cli.check import check_answer
    result, wall, times, peaks = measured_solve(lambda: spec.solve(graph, options), cpu_time)
    run = IsolatedRun(result.flow_value, times | {"wall": wall}, result.counters,
                      getattr(result, "winner", ""), result.trace if first else [], **peaks)
    if certify:
        started = time.perf_counter()
        certificate = check_answer(graph, result)
        run = replace(run, certificate=(time.perf_counter() - started, certificate.problems,
                                        certificate.cut_capacity))
    return run


def _die_with_parent(parent: int) -> None:
    """Have Linux kill this child when the benchmark that started it dies, even outright
    (prctl PR_SET_PDEATHSIG), so that no run outlives it; where prctl is missing, the child
    ends at its next request instead (the end of its input)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (AttributeError, OSError):
        return
    if os.getppid() != parent:  # it died before the call
        os._exit(1)


def main() -> None:
    """The child: answer requests until the end of its input: ("cell", solver, options,
    folder, cpu_time) sets up a cell, ("run", certify) runs it once, ("drop",) drops it."""
    _die_with_parent(int(os.environ.get(PARENT, os.getppid())))
    requests, answers = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what the solvers print goes to stderr, away from the answers
    cell = None
    while True:
        try:
            request = pickle.load(requests)
        except EOFError:
            return
        if request[0] != "run":
            cell = None  # the last instance's graph goes before the next is built
        try:
            cell, answer = _answered(request, cell)
        except Exception:  # noqa: BLE001 - any failure is the cell's, told to the runner
            cell, answer = None, ("error", traceback.format_exc().strip().splitlines()[-1])
        pickle.dump(answer, answers)
        answers.flush()


def _answered(request: tuple, cell: dict | None) -> tuple[dict | None, tuple]:
    """The child's cell after ``request`` (main), and its answer."""
    from maxflow_cli.registry import get_solver
    kind, *arguments = request
    if kind == "cell":
        name, options, folder, cpu_time = arguments
        spec = get_solver(name)
        spec.prepare(options)
        graph = spec.build(Network.load(folder), options.device)
        graph.cap  # scattered before the runs, as the runner does outside its timings
        return {"spec": spec, "options": options, "graph": graph, "cpu_time": cpu_time,
                "runs": 0}, ("ok", None)
    if kind == "drop":
        return None, ("ok", None)
    (certify,) = arguments
    run = _measured_run(cell["spec"], cell["options"], cell["graph"], cell["cpu_time"],
                        cell["runs"] == 0, certify)
    cell["runs"] += 1
    return cell, ("ok", run)
