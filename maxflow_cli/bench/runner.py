"""The benchmark runner: every solver on every instance, measured the way hyperfine/pyperf do.

Method (DESIGN §6): each solver is compiled once first (``prepare``; the seconds are reported,
never counted); each instance is read or generated and built once; per (instance, solver)
cell, ``warmup`` runs are discarded, then runs are measured until there are at least
``repeat`` of them *and* their wall time adds up to ``min_time`` seconds. Every ``solve``
starts from a fresh state built from the graph. The time measured is the solver's own
``stage1`` (the maximum preflow: what every seed times and hi_pr prints as ``cut tm``);
its other phases and counters are kept as medians over the runs.

The baseline runs first on each instance; every run of every solver, warm-up runs included,
must give the flow value of the baseline's first run, and the certificate of that first run
is checked (outside any timing).
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from maxflow_cli.bench.instances import Instance
from maxflow_cli.bench.stats import Stats, summarize
from maxflow_cli.check import check_answer
from maxflow_cli.errors import SolverUnavailable
from maxflow_cli.residual import ResidualGraph, build_residual
from maxflow_cli.result import SolveResult
from maxflow_cli.registry import solvers, SolveOptions, SolverSpec, get_solver


@dataclass(frozen=True)
class Settings:
    repeat: int = 5
    warmup: int = 1
    min_time: float = 1.0
    want_flow: bool = False


@dataclass(frozen=True)
class Choice:
    """A solver as benchmarked: ``label`` is its name, or ``name@device`` when asked so."""

    label: str
    spec: SolverSpec
    options: SolveOptions

    def solve(self, graph: ResidualGraph) -> SolveResult:
        return self.spec.solve(graph, self.options)


def default_solvers() -> list[str]:
    """Every registered solver that can run here on its own device (the first it lists: the GPU
    for GPU solvers). Their CPU twins are slow study tools, run only when asked: ``cuda@cpu``."""
    available = []
    for name, spec in solvers().items():
        try:
            spec.resolve(SolveOptions(device=spec.devices[0]))
        except SolverUnavailable:
            continue
        available.append(name)
    return available


def choose_solvers(labels: list[str], baseline: str, want_flow: bool) -> list[Choice]:
    """The baseline first, then the other labels in order, each resolved (or refused) here.

    A label is NAME or NAME@DEVICE; a solver that runs elsewhere than on its own device (a GPU
    solver's twin, asked for or picked where there is no GPU) is labelled NAME@DEVICE.
    """
    choices = {}
    for given in [baseline, *labels]:
        name, _, device = given.partition("@")
        spec = get_solver(name)
        options = spec.resolve(SolveOptions(want_flow=want_flow, device=device or None))
        label = name if options.device == spec.devices[0] else f"{name}@{options.device}"
        choices.setdefault(label, Choice(label, spec, options))
    return list(choices.values())


@dataclass
class Cell:
    """The runs of one solver on one instance."""

    instance: str
    solver: str
    device: str
    samples: list[float]  # stage-1 seconds of each measured run
    warmup: int
    flow_value: int
    phases: dict[str, float]  # median seconds per phase the solver reports
    counters: dict[str, int]  # median per counter
    mismatch: str | None = None

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
    compile: dict[str, float]
    instances: list[InstanceRecord] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)

    @property
    def baseline(self) -> str:
        return self.solvers[0]

    def speedups(self) -> dict[tuple[str, str], float]:
        """(instance, solver) -> baseline median / the cell's median, on the same instance."""
        base = {cell.instance: cell.stats.median for cell in self.cells if cell.solver == self.baseline}
        return {(cell.instance, cell.solver): base[cell.instance] / cell.stats.median if cell.stats.median > 0
                else float("nan") for cell in self.cells}

    @property
    def problems(self) -> list[str]:
        """Certificates that fail, then flow values that disagree."""
        found = [f"{record.instance.name}: certificate fails: {'; '.join(record.check_problems)}"
                 for record in self.instances if record.check_problems]
        return found + [cell.mismatch for cell in self.cells if cell.mismatch]


def _runs(choice: Choice, graph: ResidualGraph, settings: Settings):
    """Yield (measured, result): the warm-up runs, then measured ones until both minimums are met."""
    for _ in range(settings.warmup):
        yield False, choice.solve(graph)
    count, spent = 0, 0.0
    while count < settings.repeat or spent < settings.min_time:
        started = time.perf_counter()
        result = choice.solve(graph)
        spent += time.perf_counter() - started
        count += 1
        yield True, result


def _medians(records: list[dict]) -> dict:
    """Per key, the median over the runs that report it."""
    keys = dict.fromkeys(key for record in records for key in record)
    return {key: np.median([record[key] for record in records if key in record]).item() for key in keys}


def measure(choice: Choice, instance: str, graph: ResidualGraph, settings: Settings,
            reference: int | None) -> tuple[Cell, SolveResult]:
    """One cell; ``reference`` is the flow value every run must give (None: the first run's).
    Returns the cell and the first run's result (for the certificate)."""
    first, samples, times, counters, wrong = None, [], [], [], []
    for run, (measured, result) in enumerate(_runs(choice, graph, settings), start=1):
        if first is None:
            first = result
            reference = result.flow_value if reference is None else reference
        if result.flow_value != reference:
            wrong.append((run, result.flow_value))
        if measured:
            samples.append(result.times["stage1"])
            times.append(result.times)
            counters.append(result.counters)
    mismatch = None
    if wrong:
        mismatch = (f"{instance}: {choice.label} gave flow value {wrong[0][1]} in run {wrong[0][0]} "
                    f"({len(wrong)} of {run} runs differ), not {reference}")
    medians = {name: int(round(value)) for name, value in _medians(counters).items()}
    cell = Cell(instance, choice.label, choice.options.device, samples, settings.warmup, first.flow_value,
                _medians(times), medians, mismatch)
    return cell, first


Progress = Callable[[str, int], None]
"""Called with what starts now and how many cells of this instance are done."""


def bench_instance(instance: Instance, choices: list[Choice], settings: Settings,
                   progress: Progress = lambda text, done: None) -> tuple[InstanceRecord, list[Cell]]:
    """Load and build ``instance`` once, run every choice on it, check the baseline's answer."""
    progress(f"{instance.name}: loading", 0)
    started = time.perf_counter()
    network, warnings = instance.load()
    read = time.perf_counter() - started
    started = time.perf_counter()
    graph = build_residual(network)
    record = InstanceRecord(instance, graph.n, graph.m, read, time.perf_counter() - started, warnings)
    cells, reference = [], None
    for choice in choices:
        progress(f"{instance.name}: {choice.label}", len(cells))
        cell, first = measure(choice, instance.name, graph, settings, reference)
        cells.append(cell)
        if reference is None:  # the baseline: check its answer once, outside the timing
            reference = first.flow_value
            started = time.perf_counter()
            certificate = check_answer(graph, first)
            record.check_seconds = time.perf_counter() - started
            record.check_problems = certificate.problems
            record.cut_capacity = certificate.cut_capacity
    return record, cells


def run_benchmark(instances: list[Instance], choices: list[Choice], settings: Settings,
                  progress: Progress = lambda text, done: None) -> BenchRun:
    """Compile every solver once, then bench every instance in turn (one graph in memory at a time);
    ``progress`` gets the number of cells done in the whole run."""
    progress("compiling", 0)
    run = BenchRun(settings, [choice.label for choice in choices],
                   {choice.label: choice.spec.prepare(choice.options) for choice in choices})
    for instance in instances:
        record, cells = bench_instance(instance, choices, settings,
                                       lambda text, count, done=len(run.cells): progress(text, done + count))
        run.instances.append(record)
        run.cells.extend(cells)
    return run
