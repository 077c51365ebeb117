"""The benchmark runner: every solver on every instance, measured the way hyperfine/pyperf do.

Method: each solver configuration is compiled once first (``prepare``; the seconds are reported,
never counted); each instance is read or generated once, and built once in each arc order its
solvers take (SolverSpec.arc_order: each runs on the graph ``maxflow solve`` gives it); per
(instance, solver)
cell, ``warmup`` runs are discarded, then runs are measured until there are at least
``repeat`` of them *and* their wall time adds up to ``min_time`` seconds; one cell after the
other, or with ``interleave`` the configurations in turn, one run each per round. Every ``solve``
starts from a fresh state built from the graph. The time measured is the solver's own
``stage1`` (the maximum preflow: what every seed times and hi_pr prints as ``cut tm``;
for hipr, hpf and eibfs what their authors' clocks time, their ``setup`` (and hpf's and eibfs's
``settle``) apart);
its other phases and counters are kept as medians over the runs. External programs
(``external``) run the same way on the instance's DIMACS file; their time is their own
stage 1 when they print one, their wall time otherwise.

With ``cpu_time`` the time is user CPU seconds instead, as hi_pr's ``cut tm`` counts them (CPU
time suffers less than wall time from other programs on the machine): for our solvers, this
process's ``ru_utime`` (all its threads) across the solve call, which without ``want_flow``
is stage 1 and the fresh state it starts from (times["cpu"]); for an external program, its
``cut tm`` where it prints one, else its own ``ru_utime``.

The baseline runs first on each instance; every run of every solver, warm-up runs included,
must give the flow value of the baseline's first run, and the certificate of that first run
is checked (outside any timing).

With ``timeout`` each cell of ours runs in a child process of its own, measured there the same
way and killed where a run passes the timeout (isolated module).

Memory, outside the timing, per cell the largest over its measured runs: ``peak_host_bytes``,
for our solvers the peak resident set of this whole process during the run (the interpreter,
the compiled code, the instance's network and residual graph included: what the machine had
to hold), read as VmHWM after resetting it through /proc/self/clear_refs before the run; where
that cannot be reset, the peak since the process started (VmHWM, else ru_maxrss: an upper
bound; ``BenchRun.memory`` says which). For an external program, its own peak resident set
(external module). ``peak_gpu_bytes``: the most GPU memory our kernels held at once during
the run, as their allocation helper counts it (memory.GpuTracker); None where none was held.
"""

import resource
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from maxflow_cli import memory
from maxflow_cli.bench.configs import label, parse_configurations
from maxflow_cli.bench.external import InstanceFiles, RunFailed
from maxflow_cli.bench.instances import Instance
from maxflow_cli.bench.isolated import Children, IsolatedCell
from maxflow_cli.bench.stats import Stats, relative_to_fastest, summarize
from maxflow_cli.check import check_answer
from maxflow_cli.errors import Interrupted, ParameterError, SolverUnavailable
from maxflow_cli.registry import SolveOptions, SolverSpec, solvers
from maxflow_cli.residual import ResidualGraph, build_residual
from maxflow_cli.result import SolveResult


@dataclass(frozen=True)
class Settings:
    repeat: int = 5
    warmup: int = 1
    min_time: float = 1.0
    want_flow: bool = False
    interleave: bool = False  # run the configurations in turn, one run each per round
    cpu_time: bool = False  # time user CPU seconds instead of wall seconds (module docstring)
    # each cell of ours in a child process, killed where a run passes these seconds (isolated
    # module); None: in this process, unstopped
    timeout: float | None = None


@dataclass(frozen=True)
class Choice:
    """A solver configuration as benchmarked: ``label`` names it (see configs.label), ``given``
    holds the parameters the label names, ``options`` those resolved with the defaults."""

    label: str
    spec: SolverSpec
    options: SolveOptions
    given: dict
    kind = "solver"
    in_process = True

    @property
    def device(self) -> str:
        return self.options.device

    @property
    def params(self) -> dict:
        return self.options.params

    def bound(self, instance: Instance) -> "Choice":
        """This configuration on ``instance``: the parameters a suite sets for this solver on the
        instance's family (He & Hong's KERNEL_CYCLES), where the label does not set them."""
        extra = {key: value for key, value in instance.solver_params.get(self.spec.name, {}).items()
                 if key not in self.given}
        if not extra:
            return self
        options = self.spec.resolve(SolveOptions(self.options.want_flow, self.options.device,
                                                 self.given | extra))
        return replace(self, options=options)

    def prepare(self) -> float:
        """Compile, what the solver leaves to its first solve included; the seconds it
        took."""
        rest = self.spec.prepare_rest
        return self.spec.prepare(self.options) + (rest(self.options) if rest else 0.0)

    def run(self, graph: ResidualGraph, files: InstanceFiles, certify: bool) -> SolveResult:
        return self.spec.solve(graph, self.options)

    def describe(self) -> dict:
        return {"kind": self.kind, "solver": self.spec.name, "device": self.device,
                "params": self.given}

    def close(self) -> None:
        """Nothing to end: the configuration runs in this process."""


def default_solvers() -> list[str]:
    """Every registered solver that can run here on its own device (the first it lists: the GPU
    for GPU solvers). Their CPU twins are slow study tools, run only when asked: ``cuda@cpu``;
    so are the solvers registered with ``in_default_bench=False``."""
    available = []
    for name, spec in solvers().items():
        if not spec.in_default_bench:
            continue
        try:
            spec.resolve(SolveOptions(device=spec.devices[0]))
        except SolverUnavailable:
            continue
        available.append(name)
    return available


def choose_solvers(solvers: str | None, baseline: str, want_flow: bool) -> list[Choice]:
    """The baseline first, then the configurations of ``solvers`` in order (configs module;
    None: none), each resolved (or refused) here; a configuration given twice runs once. A GPU
    solver runs on the GPU, its CPU twin only where named (``cuda@cpu``)."""
    (base, *more) = parse_configurations(baseline, "--baseline")
    if more:
        raise ParameterError(f"--baseline {baseline!r}: one configuration, not {1 + len(more)}")
    choices = {}
    for configuration in [base, *(parse_configurations(solvers) if solvers is not None else [])]:
        spec = configuration.spec
        options = spec.resolve_where_asked(
            SolveOptions(want_flow, configuration.device, configuration.params), f"{spec.name}@cpu")
        name = label(spec, options.device, configuration.params)
        choices.setdefault(name, Choice(name, spec, options, configuration.params))
    return list(choices.values())


@dataclass
class Cell:
    """The runs of one configuration on one instance."""

    instance: str
    solver: str  # the configuration's label
    kind: str  # "solver" or "external"
    device: str | None
    params: dict  # the parameters it ran with (a suite's per-family ones included)
    samples: list[float]  # seconds of each measured run: its stage 1, its wall or CPU time
    # "stage1"; "wall" for an external program that prints no stage-1 time; "cpu": cpu_time's
    timed: str
    wall: list[float]  # wall seconds of each measured run
    warmup: int
    flow_value: int | None
    phases: dict[str, float]  # median seconds per phase the solver reports
    counters: dict[str, int]  # median per counter
    # the first run's rounds, for solvers that have them
    trace: list[dict] = field(default_factory=list)
    mismatch: str | None = None
    failure: str | None = None  # why an external program gave no answer
    peak_host_bytes: int | None = None  # the largest over the measured runs (module docstring)
    peak_gpu_bytes: int | None = None  # None: no GPU memory held
    # where solvers race (auto, gpu-sync): how many measured runs each one answered
    winners: dict[str, int] = field(default_factory=dict)

    @cached_property
    def stats(self) -> Stats:
        return summarize(self.samples)


@dataclass
class InstanceRecord:
    """An instance as benchmarked: its size, read and build seconds, and its certificate."""

    instance: Instance
    n: int
    m: int
    read: float
    build: float
    warnings: list[str]
    check_seconds: float = 0.0
    check_problems: list[str] = field(default_factory=list)
    cut_capacity: int | None = None


@dataclass
class BenchRun:
    settings: Settings
    solvers: list[str]  # labels, the baseline first
    compile: dict[str, float]  # seconds per solver configuration (external programs have none)
    # label -> what it is (Choice.describe)
    configurations: dict[str, dict] = field(default_factory=dict)
    instances: list[InstanceRecord] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)
    complete: bool = True  # False: interrupted, the instances benched so far
    memory: dict[str, str] = field(default_factory=dict)  # what peak_*_bytes are, in words

    @property
    def baseline(self) -> str:
        return self.solvers[0]

    @property
    def externals(self) -> set[str]:
        """The labels of external programs."""
        return {label for label, what in self.configurations.items() if what["kind"] == "external"}

    def speedups(self) -> dict[tuple[str, str], float]:
        """(instance, solver) -> baseline median / the cell's median, on the same instance."""
        base = {cell.instance: cell.stats.median for cell in self.cells
                if cell.solver == self.baseline}
        return {(cell.instance, cell.solver):
                base[cell.instance] / cell.stats.median if cell.stats.median > 0 else float("nan")
                for cell in self.cells}

    def relative(self) -> dict[tuple[str, str], float]:
        """(instance, solver) -> the cell's median over the fastest median on the instance (1.0
        for the fastest; NaN for a failed cell)."""
        ratios = {}
        for instance in dict.fromkeys(cell.instance for cell in self.cells):
            medians = {cell.solver: cell.stats.median for cell in self.cells
                       if cell.instance == instance}
            ratios |= {(instance, solver): ratio
                       for solver, ratio in relative_to_fastest(medians).items()}
        return ratios

    @property
    def problems(self) -> list[str]:
        """Certificates that fail, then external programs that failed and flow values that
        disagree."""
        found = [f"{record.instance.name}: certificate fails: {'; '.join(record.check_problems)}"
                 for record in self.instances if record.check_problems]
        return found + [problem for cell in self.cells
                        for problem in (cell.failure, cell.mismatch) if problem]


def _user_seconds() -> float:
    """The user CPU seconds this process has run, all its threads together."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def measured_solve(solve: Callable[[], SolveResult], cpu_time: bool
                   ) -> tuple[SolveResult, float, dict, dict]:
    """One solve of ours in this process: its result, wall seconds, times (with ``cpu_time``
    its user CPU seconds as "cpu") and peaks (peak_host_bytes, peak_gpu_bytes; module
    docstring)."""
    memory.reset_peak_rss()
    memory.GPU.reset()
    cpu_started = _user_seconds()
    started = time.perf_counter()
    result = solve()
    wall = time.perf_counter() - started
    times = result.times | ({"cpu": _user_seconds() - cpu_started} if cpu_time else {})
    return result, wall, times, {"peak_host_bytes": memory.peak_rss(),
                                 "peak_gpu_bytes": memory.GPU.peak}


def _medians(records: list[dict]) -> dict:
    """Per key, the median over the runs that report it."""
    keys = dict.fromkeys(key for record in records for key in record)
    return {key: np.median([record[key] for record in records if key in record]).item()
            for key in keys}


class _Tally:
    """The runs of one configuration (a Choice or an External) on one instance, as they come."""

    def __init__(self, choice, instance: str, cpu_time: bool = False):
        self.choice, self.instance, self.cpu_time = choice, instance, cpu_time
        # the first run's result (the baseline's is certified)
        self.first: SolveResult | None = None
        self.walls, self.times, self.counters, self.wrong = [], [], [], []
        self.winners: dict[str, int] = {}
        self.runs, self.spent, self.expected, self.failure = 0, 0.0, None, None
        self.peaks: dict[str, int] = {}  # peak_host_bytes, peak_gpu_bytes: over measured runs

    def done(self, settings: Settings) -> bool:
        """Whether it has failed or has its measured runs: at least --repeat, adding up to
        --min-time."""
        return self.failure is not None or (len(self.walls) >= settings.repeat
                                            and self.spent >= settings.min_time)

    def run(self, graph: ResidualGraph | None, files: InstanceFiles, measured: bool,
            reference: int | None) -> None:
        """One run, whose flow value must be ``reference`` (None: the baseline's first run, this
        one, whose answer is certified where the run is in a child: certificate)."""
        self.runs += 1
        choice = self.choice
        try:
            if choice.in_process:
                result, wall, times, peaks = measured_solve(
                    lambda: choice.run(graph, files, False), self.cpu_time)
            else:  # its own process's: not the launcher's start (external, isolated modules)
                result = choice.run(graph, files, reference is None)
                wall, times = result.times["wall"], result.times
                peaks = {"peak_host_bytes": result.peak_host_bytes,
                         "peak_gpu_bytes": getattr(result, "peak_gpu_bytes", None)}
        except RunFailed as error:
            self.failure = f"{self.instance}: {choice.label} failed in run {self.runs}: {error}"
            return
        if self.first is None:
            self.first = result
        self.expected = result.flow_value if reference is None else reference
        if result.flow_value != self.expected:
            self.wrong.append((self.runs, result.flow_value))
        if measured:
            self.spent += wall
            self.walls.append(wall)
            self.times.append(times)
            self.counters.append(result.counters)
            if getattr(result, "winner", ""):
                self.winners[result.winner] = self.winners.get(result.winner, 0) + 1
            for key, value in peaks.items():
                if value is not None:
                    self.peaks[key] = max(value, self.peaks.get(key, 0))

    def close(self) -> None:
        """End what runs the configuration apart (a child process), if anything."""
        self.choice.close()

    def cell(self, warmup: int) -> Cell:
        mismatch = None
        if self.wrong:
            (run, value), count = self.wrong[0], len(self.wrong)
            mismatch = (f"{self.instance}: {self.choice.label} gave flow value {value} in run "
                        f"{run} ({count} of {self.runs} runs differ), not {self.expected}")
        clocks = ("cpu",) if self.choice.kind == "solver" else ("stage1", "cpu")
        timed = next(key for key in (clocks if self.cpu_time else ("stage1", "wall"))
                     if all(key in entry for entry in self.times))
        choice = self.choice
        return Cell(self.instance, choice.label, choice.kind, choice.device, choice.params,
                    [] if self.failure else [entry[timed] for entry in self.times], timed,
                    self.walls, warmup,
                    self.first.flow_value if self.first else None, _medians(self.times),
                    {name: int(round(value)) for name, value in _medians(self.counters).items()},
                    getattr(self.first, "trace", []), mismatch, self.failure,
                    None if self.failure else self.peaks.get("peak_host_bytes"),
                    None if self.failure else self.peaks.get("peak_gpu_bytes"), self.winners)


def _schedule(tallies: list[_Tally], settings: Settings):
    """Yield (tally, measured) in the order the runs happen. By default each configuration in
    turn: its warm-up runs, then its measured runs until it has enough. With ``interleave``,
    round by round: every configuration's warm-ups, then one measured run of each configuration
    that needs more per round, so that a drifting machine hits every configuration alike."""
    if not settings.interleave:
        for tally in tallies:
            for _ in range(settings.warmup):
                yield tally, False
            while not tally.done(settings):
                yield tally, True
        return
    for _ in range(settings.warmup):
        yield from ((tally, False) for tally in tallies)
    while not all(tally.done(settings) for tally in tallies):
        yield from ((tally, True) for tally in tallies if not tally.done(settings))


Progress = Callable[[str, int], None]
"""Called with what starts now and how many cells of this instance are done."""


class _Graphs:
    """The instance's residual graph in each arc order its solvers take, built when first
    asked for (its capacities scattered once, for the solvers that read them, outside their
    timings), the seconds of every build summed. Where the runs alternate between solvers
    (interleave) every order asked for is kept; else only the one in use."""

    def __init__(self, network, keep_all: bool):
        self._network, self._keep_all = network, keep_all
        self._built: dict[str, ResidualGraph] = {}
        self.seconds = 0.0

    def of(self, order: str) -> ResidualGraph:
        if order not in self._built:
            if not self._keep_all:
                self._built.clear()
            started = time.perf_counter()
            graph = build_residual(self._network, order)
            graph.cap  # scattered once, for the solvers that read it, outside their timings
            self.seconds += time.perf_counter() - started
            self._built[order] = graph
        return self._built[order]


def bench_instance(instance: Instance, choices: list, settings: Settings, children: Children,
                   progress: Progress = lambda text, done: None
                   ) -> tuple[InstanceRecord, list[Cell]]:
    """Load ``instance`` once and build it in the arc orders its solvers take (_Graphs), run
    every choice on it (the baseline, first, gives the flow value every run must give), and
    check the baseline's first answer outside the timing, on its graph. Under
    ``settings.timeout`` our solvers run in ``children`` (isolated module), which build their
    own graphs and certify there."""
    progress(f"{instance.name}: loading", 0)
    started = time.perf_counter()
    network, warnings = instance.load()
    read = time.perf_counter() - started
    graphs = _Graphs(network, settings.interleave)
    tallies = [_Tally(_isolated(choice.bound(instance), settings, children), instance.name,
                      settings.cpu_time) for choice in choices]
    baseline = tallies[0]
    baseline_order = choices[0].spec.arc_order_on(choices[0].device)
    if baseline.choice.in_process:
        graphs.of(baseline_order)  # built first: a network too large to build fails here
    record = InstanceRecord(instance, network.n, network.m, read, 0.0, warnings)
    files = InstanceFiles(instance.path, network)
    checked = False
    try:
        for tally, measured in _schedule(tallies, settings):
            if tally.failure is None:
                progress(f"{instance.name}: {tally.choice.label}",
                         sum(t.done(settings) for t in tallies))
                tally.run(_graph_of(tally.choice, graphs), files, measured,
                          baseline.first.flow_value if baseline.first else None)
            if tally is baseline and not checked and _settled(baseline):
                _certify(record, graphs, baseline_order, baseline)
                checked = True
            if tally.done(settings):
                tally.close()
    finally:
        for tally in tallies:
            tally.close()
        files.close()
    record.build = graphs.seconds
    return record, [tally.cell(settings.warmup) for tally in tallies]


def _isolated(choice, settings: Settings, children: Children):
    """``choice``, run by its child where a timeout is set and it is ours."""
    if settings.timeout is None or not choice.in_process:
        return choice
    return IsolatedCell(choice, settings.timeout, settings.cpu_time, children)


def _graph_of(choice, graphs: _Graphs) -> ResidualGraph | None:
    """The graph ``choice`` runs on here: its solver's order for ours in this process, the
    baseline's for an external program (which reads the files), none for a child's."""
    if not choice.in_process:
        return None
    return graphs.of(choice.spec.arc_order_on(choice.device))


def _settled(baseline: _Tally) -> bool:
    """Whether the baseline has given its first answer, or failed before giving one."""
    return baseline.first is not None or baseline.failure is not None


def _certify(record: InstanceRecord, graphs: _Graphs, order: str, baseline: _Tally) -> None:
    """The certificate of the settled baseline's first answer into `record` (outside any
    timing): checked here on its graph, or taken from its child; where it gave none, the
    record says the answer was not checked."""
    answer = baseline.first
    if answer is None:
        record.check_problems = ["not checked: the baseline gave no answer"]
    elif baseline.choice.in_process:
        started = time.perf_counter()
        certificate = check_answer(graphs.of(order), answer)
        record.check_seconds = time.perf_counter() - started
        record.check_problems, record.cut_capacity = certificate.problems, \
            certificate.cut_capacity
    else:
        record.check_seconds, record.check_problems, record.cut_capacity = answer.certificate


def plan(choices: list, settings: Settings) -> BenchRun:
    """The run before anything is compiled or run: what its header says."""
    return BenchRun(settings, [choice.label for choice in choices], {},
                    {choice.label: choice.describe() for choice in choices},
                    memory=memory_methods(memory.reset_peak_rss()))


def memory_methods(resettable: bool) -> dict[str, str]:
    """What peak_host_bytes and peak_gpu_bytes hold, in words; ``resettable``: whether this
    process's peak resident set can be reset (memory.reset_peak_rss)."""
    ours = ("the peak resident set of the whole benchmarking process during the run (VmHWM, "
            "reset through /proc/self/clear_refs before it)" if resettable else
            "the peak resident set of the whole benchmarking process since it started "
            "(VmHWM, else ru_maxrss): /proc/self/clear_refs cannot reset it here, so it is "
            "an upper bound")
    return {"peak_host_bytes": f"bytes, the largest over a cell's measured runs; solvers: {ours}; "
                               "external programs: the program's ru_maxrss from os.wait4",
            "peak_gpu_bytes": "bytes, the largest over a cell's measured runs: the most device "
                              "memory our GPU kernels' buffers held at once (not the CUDA "
                              "context or the driver's own); null where no GPU ran"}


def run_benchmark(instances: list[Instance], choices: list, settings: Settings,
                  progress: Progress = lambda text, done: None,
                  finished: Callable[[list[Cell]], None] = lambda cells: None) -> BenchRun:
    """Compile every solver once, then bench every instance in turn (one graph in memory at a time);
    ``choices`` are Choices, the baseline first, then Externals; ``progress`` gets the number of
    cells done in the whole run, ``finished`` the cells of each instance once it is done."""
    progress("compiling", 0)
    run = plan(choices, settings)
    run.compile = {choice.label: choice.prepare() for choice in choices
                   if choice.kind == "solver"}
    children = Children(settings.interleave)  # where settings.timeout runs ours apart
    try:
        for instance in instances:
            record, cells = bench_instance(instance, choices, settings, children,
                                           lambda text, count, done=len(run.cells):
                                           progress(text, done + count))
            run.instances.append(record)
            run.cells.extend(cells)
            finished(cells)
    except KeyboardInterrupt as interrupt:
        run.complete = False
        raise BenchInterrupted(getattr(interrupt, "signum", signal.SIGINT), run) from None
    finally:
        children.end()
    return run


class BenchInterrupted(Interrupted):
    """A signal during the runs; ``run`` holds the instances benched to the end before it (an
    instance cut short is left out: its cells lack their runs and its certificate)."""

    def __init__(self, signum: int, run: BenchRun):
        super().__init__(signum)
        self.run = run
