"""`maxflow bench`: time solvers side by side; `maxflow bench compare OLD.json NEW.json`.

The layers live in ``maxflow_cli.bench``: instances, suites and published numbers (what to
run), runner (how), stats, results (JSON/CSV) and report (tables, plot). This module only
parses options and wires them together.
"""

import contextlib
import itertools
import sys

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from maxflow_cli.bench import report, results
from maxflow_cli.bench.external import DEFAULT_TIMEOUT, parse_externals
from maxflow_cli.bench.instances import parse_instances, unique
from maxflow_cli.bench.runner import (
    BenchInterrupted,
    Cell,
    Settings,
    choose_solvers,
    default_solvers,
    plan,
    run_benchmark,
)
from maxflow_cli.bench.stats import ALPHA, NOISE_RULE, UNSTABLE_RULE, significance_rule
from maxflow_cli.bench.suites import SUITES
from maxflow_cli.bench.writers import WRITERS, write_outputs
from maxflow_cli.commands import FiniteFloat
from maxflow_cli.errors import BenchFailed, ParameterError
from maxflow_cli.generators import FAMILIES
from maxflow_cli.outputs import check_outputs
from maxflow_cli.registry import solvers as registered_solvers

DEFAULT_SUITE = "quick"
ANNOUNCED_CELLS = 100
"""A run of this many (instance, configuration) cells or more says its size before it starts."""
CONFIRMED_CELLS = 1000
"""A run of more cells than this needs --yes: a spec's range can make one of days by mistake."""


class BenchGroup(click.Group):
    """Runs the benchmark unless the first word is a subcommand (``compare``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or args[0] not in self.commands:
            args = ["run", *args]
        return super().parse_args(ctx, args)


class BenchContext(click.Context):
    """The benchmark's context, whose path is ``maxflow bench``: ``run`` is implicit, so usage
    lines and error hints (``Try 'maxflow bench --help'``) name the command people type."""

    @property
    def command_path(self) -> str:
        return self.parent.command_path


class BenchCommand(click.Command):
    """The benchmark itself, shown as ``maxflow bench [OPTIONS] [INSTANCE]...``."""

    context_class = BenchContext


@click.group("bench", cls=BenchGroup)
def bench() -> None:
    """Benchmark solvers; compare two benchmark runs."""


def _writer_options(command):
    """An option per output writer (WRITERS), passed to the command by the writer's name."""
    for writer in reversed(WRITERS):
        command = click.option(writer.option, writer.name, metavar=writer.metavar,
                               help=writer.help)(command)
    return command


@bench.command("run", cls=BenchCommand, epilog=f"Statistics: MAD is unscaled; {UNSTABLE_RULE}.")
@click.argument("instances", nargs=-1, metavar="[INSTANCE]...")
@click.option("--solvers", metavar="CONFIG,...",
              help="Solver configurations to time, NAME[@DEVICE][:KEY=VALUE,...] each: "
                   "'hipr,cuda@cpu:kernel_cycles=32,lockfree:threads=4' (NAME@cpu runs a GPU "
                   "solver's CPU twin; KEY is a solver parameter, see 'maxflow solve --help'). "
                   "[default: every solver that can run here on its default device]")
@click.option("--baseline", default="hipr", show_default=True, metavar="CONFIG",
              help="The configuration speedups are computed against and whose answer is certified "
                   "(added to --solvers if missing).")
@click.option("--external", "externals", multiple=True, metavar="NAME=COMMAND",
              help="Also time a program that reads a DIMACS max instance on stdin and prints "
                   "its flow value ('c flow: V' as hi_pr does, or 's V'), e.g. hi_pr=./hi_pr; "
                   "one that reads a file names it {file} in COMMAND ('x=./solve --in={file}': "
                   "the instance's path, stdin /dev/null). Repeatable.")
@click.option("--external-pattern", "patterns", multiple=True, metavar="NAME=REGEX",
              help="Read external NAME's flow value from the last match of REGEX (its first "
                   "group) instead.")
@click.option("--external-timeout", type=FiniteFloat(0, min_open=True),
              default=DEFAULT_TIMEOUT, show_default=True, metavar="SECONDS",
              help="Kill an external program's run after this long (a problem).")
@click.option("--timeout", type=FiniteFloat(0, min_open=True), metavar="SECONDS",
              help="Stop a run of one of our solvers after this long (a problem, as an "
                   "external program's): each of our (instance, configuration) cells then runs "
                   "in a child process of its own, which builds the graph and is killed when a "
                   "run passes SECONDS. [default: our solvers run in this process, unstopped]")
@click.option("--repeat", type=click.IntRange(1), default=5, show_default=True, metavar="N",
              help="Measured runs per cell, at least.")
@click.option("--min-time", type=FiniteFloat(0), default=1.0, show_default=True,
              metavar="SECONDS",
              help="Measured wall time per cell, at least (more runs until reached).")
@click.option("--warmup", type=click.IntRange(0), default=1, show_default=True, metavar="K",
              help="Runs per cell discarded before measuring.")
@click.option("--interleave", is_flag=True,
              help="Run the configurations in turn on each instance, one run each per round (as "
                   "one compares two programs on a machine whose speed drifts), instead of one "
                   "cell after the other.")
@click.option("--cpu-time", is_flag=True,
              help="Time user CPU seconds (getrusage; all threads), as hi_pr's 'cut tm' counts "
                   "them, instead of wall seconds: our solvers' whole solve call (stage 1 and "
                   "its fresh state), an external program's 'cut tm' or else its own user "
                   "time. Not with --flow.")
@click.option("--suite", "suite_name", type=click.Choice(list(SUITES)),
              help=f"A named set of instances (see --list-suites). [default: {DEFAULT_SUITE}, "
                   "when no INSTANCE]")
@click.option("--seeds", "seed_count", type=click.IntRange(1), metavar="K",
              help="With --suite: only its seeds 1..K of each instance.")
@click.option("--list-suites", is_flag=True,
              help="List the suites' instances, sizes and seeds, and exit.")
@click.option("--flow", is_flag=True,
              help="Also run stage 2 (preflow to flow); timed apart, see --detail.")
@click.option("--detail", is_flag=True,
              help="Add each cell's statistics, phase times, peak memory and counters.")
@click.option("--relative", is_flag=True,
              help="Add each column's time over the fastest of its row (1.00 marks the "
                   "fastest; 2.35x is 2.35 times slower).")
@click.option("--yes", is_flag=True,
              help=f"Run more than {CONFIRMED_CELLS:,} (instance, configuration) cells.")
@_writer_options
def run(instances, solvers, baseline, externals, patterns, external_timeout, timeout, repeat,
        min_time, warmup, interleave, cpu_time, suite_name, seed_count, list_suites, flow, detail,
        relative, yes, **outputs):
    """Time solvers on instances and print a table per family with speedups over the baseline.

    An INSTANCE is a DIMACS file, a quoted glob ('data/*.max'), a preset with optional seeds
    (genrmf-long-24x192:seed=1..5; see 'maxflow gen --list-presets') or a generator spec
    (genrmf:a=24,b=192,seed=1..5), generated in memory. With no INSTANCE and no --suite, the
    quick suite runs.

    Each instance is built once; each solver is compiled once (reported, not timed). Per
    (instance, configuration) cell: warm-up runs, then measured runs from a fresh state until
    both --repeat and --min-time are met. The time is the solver's stage 1 (the maximum preflow,
    as the papers time it). An external program's time is its own stage 1 where it prints one
    (hi_pr's 'c cut tm:'), else its wall time; the table says which. With --cpu-time every time is
    user CPU seconds instead (hi_pr's 'cut tm' is already). Every run's flow value must
    equal the baseline's and the baseline's certificate is checked once per instance: otherwise,
    or when an external program fails, the problem prints in red and the exit code is 1.

    \b
    maxflow bench --suite quick
    maxflow bench 'genrmf:a=16,b=128,seed=1..3' --solvers hipr,cuda --json run.json
    maxflow bench genrmf-wide-36 --solvers 'hipr,lockfree:threads=1,lockfree'
    maxflow bench data/clrs.max --external hi_pr=./hi_pr
    maxflow bench genrmf-wide-48 --external hi_pr=./hi_pr --interleave --cpu-time
    maxflow bench compare old.json new.json --fail-if-slower 10
    """
    if list_suites:
        _list_suites()
        return
    settings = _settings(repeat, warmup, min_time, flow, interleave, cpu_time, timeout)
    if suite_name is None and not instances:
        suite_name = DEFAULT_SUITE
    suite = SUITES.get(suite_name)
    chosen = _chosen_instances(suite, seed_count, instances)
    if solvers is None:
        solvers = ",".join(default_solvers())
    choices = choose_solvers(solvers, baseline, flow)
    choices += parse_externals(externals, patterns, external_timeout,
                               {*registered_solvers(), *(c.label for c in choices)})
    report_to_stderr = check_outputs({w.option: outputs[w.name] for w in WRITERS},
                                     _inputs(chosen, choices))
    for writer in WRITERS:
        if outputs[writer.name] is not None:
            writer.require(outputs[writer.name])
    env = results.environment()

    console = report.console_for(sys.stderr if report_to_stderr else sys.stdout)
    _announce(len(chosen), len(choices), settings, yes)
    report.print_header(console, plan(choices, settings), len(chosen), suite, env)
    try:
        with _progress(len(chosen) * len(choices)) as (progress, finished):
            outcome = run_benchmark(chosen, choices, settings, progress, finished)
    except BenchInterrupted as interrupted:
        # What finished is kept, marked incomplete; then the signal ends the command (exit 130).
        finished = len(interrupted.run.instances)
        written = finished and write_outputs(interrupted.run, outputs, suite_name, env,
                                             partial=True)
        if written:
            Console(stderr=True).print(
                f"{finished} of {len(chosen)} instances finished: written to "
                f"{' and '.join(written)}, marked incomplete", highlight=False)
        raise

    report.print_run(console, outcome, suite.published if suite else (),
                     suite.published_note if suite else "", detail, relative)
    write_outputs(outcome, outputs, suite_name, env)
    problems = outcome.problems
    if problems:
        raise BenchFailed(f"{len(problems)} problem(s); the first: {problems[0]}")


def _settings(repeat: int, warmup: int, min_time: float, flow: bool, interleave: bool,
              cpu_time: bool, timeout: float | None) -> Settings:
    """The runner's settings; --cpu-time with --flow is refused: the solve call it times would
    hold stage 2."""
    if cpu_time and flow:
        raise ParameterError("--cpu-time times the whole solve call, which with --flow would "
                             "include stage 2: use one or the other")
    return Settings(repeat=repeat, warmup=warmup, min_time=min_time, want_flow=flow,
                    interleave=interleave, cpu_time=cpu_time, timeout=timeout)


def _chosen_instances(suite, seed_count: int | None, instances) -> list:
    """The suite's instances (its seeds 1..seed_count where given), then the INSTANCE
    arguments', each once."""
    if seed_count and not suite:
        raise ParameterError("--seeds needs --suite")
    from_suite = [instance for instance in suite.instances
                  if not seed_count or instance.params.get("seed", 1) <= seed_count
                  ] if suite else []
    return unique([*from_suite, *parse_instances(instances)])


@contextlib.contextmanager
def _progress(cells: int):
    """The (progress, finished) callbacks of run_benchmark: a progress bar on a terminal; off
    one (a CI log, a pipe), one line on stderr per finished cell, so a long run shows it lives."""
    stderr = Console(stderr=True)
    if stderr.is_terminal:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn())
        with Progress(*columns, console=stderr, transient=True) as bar:
            task = bar.add_task("compiling", total=cells)
            yield (lambda text, done: bar.update(task, description=text, completed=done),
                   lambda finished: None)
        return
    print("maxflow: bench: compiling the solvers (once, kept out of the times)",
          file=sys.stderr, flush=True)
    done = itertools.count(1)

    def finished(finished_cells: list[Cell]) -> None:
        for cell in finished_cells:
            print(f"maxflow: bench: {next(done)}/{cells} {_cell_line(cell)}", file=sys.stderr,
                  flush=True)

    yield (lambda text, count: None), finished


def _cell_line(cell: Cell) -> str:
    """``INSTANCE SOLVER: 0.0123 s (median of 5 runs)``, or why the cell failed."""
    if cell.failure:
        return f"{cell.instance} {cell.solver}: failed"
    wrong = ", wrong flow value" if cell.mismatch else ""
    return (f"{cell.instance} {cell.solver}: {cell.stats.median:.4g} s "
            f"(median of {cell.stats.runs} runs){wrong}")


def _inputs(instances: list, choices: list) -> list[str]:
    """The files a run reads, which no output may replace: the instance files and the external
    programs' own files."""
    programs = [choice.program for choice in choices if choice.kind == "external"]
    return [instance.path for instance in instances if instance.path] + [
        program for program in programs if program]


def _announce(instances: int, configurations: int, settings: Settings, yes: bool) -> None:
    """Say how many cells a large run has and the least time they take (every cell measures for
    --min-time at least); refuse more than CONFIRMED_CELLS without --yes."""
    cells = instances * configurations
    least = cells * settings.min_time
    size = (f"{report.counted(cells, 'cell')} ({report.counted(instances, 'instance')} x "
            f"{report.counted(configurations, 'configuration')}), each "
            f"{settings.warmup} warm-up and >= {settings.repeat} runs over >= "
            f"{settings.min_time:g} s: at least {_duration(least)}")
    if cells > CONFIRMED_CELLS and not yes:
        raise ParameterError(f"{size}; more than {CONFIRMED_CELLS:,} cells: add --yes to run it")
    if cells >= ANNOUNCED_CELLS:
        Console(stderr=True).print(f"maxflow bench: {size}", highlight=False)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _list_suites() -> None:
    """Each suite's rows: family, instance group, vertices, arcs, seeds."""
    console = report.console_for(sys.stdout)
    for suite in SUITES.values():
        table = Table(title=f"[bold]{suite.name}[/bold]: {suite.title}", title_justify="left")
        for name in ("family", "instance", "vertices", "arcs", "seeds"):
            table.add_column(
                name, justify="right" if name in ("vertices", "arcs", "seeds") else "left")
        groups = itertools.groupby(suite.instances, lambda i: (i.family, i.group))
        for (family, group), members in groups:
            members = list(members)
            n, m, _ = FAMILIES[members[0].generator].size(**members[0].params)
            table.add_row(family, group, f"{n:,}", f"{m:,}", str(len(members)))
        console.print(table)


@bench.command("compare", epilog=f"{NOISE_RULE}; {significance_rule()} (see --alpha).")
@click.argument("old", metavar="OLD.json")
@click.argument("new", metavar="NEW.json")
@click.option("--fail-if-slower", type=FiniteFloat(0), metavar="PCT",
              help="Exit 1 when a cell's median is more than PCT% slower in NEW, significantly.")
@click.option("--alpha", type=FiniteFloat(0, 1, min_open=True, max_open=True), default=ALPHA,
              show_default=True, metavar="P",
              help="A change is significant when beyond noise and the Mann-Whitney test's "
                   "two-sided p-value is below P.")
@click.option("--json", "json_file", metavar="FILE",
              help="Write every compared cell: medians, ratio, U, p, noise, significant.")
def compare(old, new, fail_if_slower, alpha, json_file):
    """Per (instance, solver) cell in both files: the ratio of stage-1 medians, new/old, and
    the Mann-Whitney U test of the two runs' samples.

    Files are written by 'maxflow bench --json'.
    """
    report_to_stderr = check_outputs({"--json": json_file}, (old, new))
    before, after = results.load(old), results.load(new)
    console = report.console_for(sys.stderr if report_to_stderr else sys.stdout)
    for label, doc in (("OLD", before), ("NEW", after)):
        console.print(f"{label}: {doc.get('created', '?')}  "
                      f"{report.describe_environment(doc['environment'])}", highlight=False)
    changes, only_old, only_new = results.compare(before, after, alpha)
    if not changes:  # else an empty table and exit 0: a gate that can never fail
        raise BenchFailed(f"no (instance, solver) cell has a median in both files "
                          f"({len(only_old)} only in OLD, {len(only_new)} only in NEW): "
                          "nothing to compare")
    report.print_changes(console, changes, only_old, only_new, alpha)
    if json_file:
        results.write_json(results.comparison_document(old, new, changes, only_old, only_new,
                                                       alpha), json_file)
    if fail_if_slower is not None:
        slower = [change for change in changes
                  if change.significant and change.ratio > 1 + fail_if_slower / 100]
        if slower:
            worst = max(slower, key=lambda change: change.ratio)
            raise BenchFailed(f"{len(slower)} cell(s) more than {fail_if_slower:g}% slower, "
                              f"significantly (p < {alpha:g}); the worst: {worst.instance} "
                              f"({worst.solver}) x{worst.ratio:.2f}")

