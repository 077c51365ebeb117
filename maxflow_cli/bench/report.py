"""What `maxflow bench` prints and draws: tables per family as Alvino 2015 (tables 4.1–4.5)
prints them, the cells' detail, the problems, comparisons of two runs, and the plot.

A row of a family table is a group of instances that differ only by their seed; as in the
papers (which average over instances), its time is the mean over those instances of each
one's median stage-1 time, and its speedup the baseline's row time over the solver's. A
column is a solver configuration or an external program; an external program's times are
its own stage 1 (``cut tm``) where it prints one, its wall time (``wall``) otherwise, or with
``cpu_time`` its user CPU time (``cpu``). With
``relative``, each row also gives every column's time over the fastest of the row, as Jensen
et al. (TPAMI 2023) tabulate them: 1.00 for the fastest (marked), 2.35x for one 2.35 times
slower.
"""

import copy
import dataclasses
import math
import os
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from maxflow_cli.bench.published import PublishedRow
from maxflow_cli.bench.results import Change
from maxflow_cli.bench.runner import BenchRun, Cell
from maxflow_cli.bench.stats import (
    ALPHA,
    NOISE_RULE,
    UNSTABLE_RULE,
    geometric_mean,
    relative_to_fastest,
    significance_rule,
)
from maxflow_cli.bench.suites import Suite
from maxflow_cli.errors import MaxflowError, ParameterError
from maxflow_cli.memory import human_bytes
from maxflow_cli.outputs import atomic_output

FASTEST = "★"
"""Marks the fastest of a row in the relative columns."""
RELATIVE_NOTE = (f"rel: each time over the fastest of its row (Jensen et al., TPAMI 2023); "
                 f"1.00 {FASTEST} = the fastest")
LISTED_UNSTABLE = 10
"""How many unstable cells are named below the tables (all of them are in --detail and --json)."""


@dataclass
class Row:
    group: str
    n: int
    m: int
    seeds: int
    # solver -> mean over the group's instances of their medians (NaN: one failed)
    times: dict[str, float]
    spread: dict[str, float]  # solver -> the largest MAD / median among those instances
    unstable: dict[str, bool]
    # solver -> what its times are, as Cell.timed; "wall" or "cpu" where some of them are
    timed: dict[str, str]


def rows(run: BenchRun) -> dict[str, list[Row]]:
    """Family -> its rows, in the order the instances came."""
    groups: dict[tuple[str, str], list] = {}
    for record in run.instances:
        groups.setdefault((record.instance.family, record.instance.group), []).append(record)
    cells = {(cell.instance, cell.solver): cell for cell in run.cells}
    table: dict[str, list[Row]] = {}
    for (family, group), records in groups.items():
        members = {solver: [cells[record.instance.name, solver] for record in records]
                   for solver in run.solvers}
        stats = {solver: [cell.stats for cell in group_cells]
                 for solver, group_cells in members.items()}
        table.setdefault(family, []).append(Row(
            group, records[0].n, records[0].m, len(records),
            {solver: sum(s.median for s in group_stats) / len(group_stats)
             for solver, group_stats in stats.items()},
            {solver: max(s.mad / s.median if s.median > 0 else 0.0 for s in group_stats)
             for solver, group_stats in stats.items()},
            {solver: any(s.unstable for s in group_stats) for solver, group_stats in stats.items()},
            {solver: _timed(group_cells) for solver, group_cells in members.items()},
        ))
    return table


CLOCK_MARKS = {"stage1": "cut tm", "wall": "wall", "cpu": "cpu"}
"""How an external program's column says what its time is (Cell.timed)."""
CLOCK_WORDS = {"stage1": "stage-1 seconds", "wall": "wall seconds", "cpu": "user CPU seconds"}
"""What a cell's times are (Cell.timed), in words."""


def _timed(cells: list[Cell]) -> str:
    """What the cells' times are: "wall" or "cpu" where some of them are, else "stage1"."""
    kinds = {cell.timed for cell in cells}
    return next((clock for clock in ("wall", "cpu") if clock in kinds), "stage1")


UNLIMITED_WIDTH = 100_000
"""The width of a report that is not going to a terminal: wide enough for any table."""


FALLBACKS = str.maketrans({"≈": "~", FASTEST: "*", "—": "-", "–": "-", "±": "+/-", "…": "...",
                           "×": "x"})
"""ASCII for the marks of the report, on a stream that cannot encode them
(PYTHONIOENCODING=ascii, an old console); any other such character becomes '?'."""


class _Encodable:
    """A text stream whose writes are made encodable in its encoding first (FALLBACKS)."""

    def __init__(self, stream):
        self._stream = stream

    def __getattr__(self, name: str):
        return getattr(self._stream, name)

    def write(self, text: str) -> int:
        encoding = self._stream.encoding
        return self._stream.write(
            text.translate(FALLBACKS).encode(encoding, "replace").decode(encoding))


def _encodable(stream):
    """``stream``, or where its encoding lacks the report's marks, a stream that writes ASCII
    for them."""
    encoding = getattr(stream, "encoding", None)
    try:
        "".join(chr(code) for code in FALLBACKS).encode(encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return _Encodable(stream)
    return stream


def console_for(stream) -> Console:
    """A console for the report on ``stream``. A terminal's is its width; elsewhere (a pipe, a
    file, a CI log) a table is never cut to rich's default 80 columns but printed whole, unless
    COLUMNS says how wide to be. Marks the stream cannot encode print as ASCII (FALLBACKS)."""
    stream = _encodable(stream)
    probe = Console(file=stream)
    if probe.is_terminal or os.environ.get("COLUMNS", "").isdigit():
        return probe
    return Console(file=stream, width=UNLIMITED_WIDTH)


def fitted(console: Console, table: Table, keys: int = 1) -> list[Table]:
    """``table`` whole where it fits the console's width; else cut, as a wide data frame prints,
    into parts of whole columns that each fit, every part repeating the first ``keys`` columns
    (the instance). A terminal narrower than the table then shows every figure whole, where
    rich would shrink all the columns to ``1.9…``; off a terminal the width is unlimited
    (console_for) and the table stays one piece."""
    def part(columns: list, number: int, last: bool) -> Table:
        piece = copy.copy(table)  # same rows, title, caption and box; a share of the columns
        piece.columns = [dataclasses.replace(column, _index=index)
                         for index, column in enumerate(columns)]
        if number:
            piece.title = f"{table.title} (continued)" if table.title else None
        if not last:
            piece.caption = None
        return piece

    def width(columns: list) -> int:
        natural = console.options.update_width(UNLIMITED_WIDTH)
        return Measurement.get(console, natural, part(columns, 0, True)).maximum

    key_columns, others = table.columns[:keys], table.columns[keys:]
    if width(table.columns) <= console.width or not others:
        return [table]
    shares = [[others[0]]]
    for column in others[1:]:
        if width([*key_columns, *shares[-1], column]) <= console.width:
            shares[-1].append(column)
        else:
            shares.append([column])
    return [part([*key_columns, *share], number, number == len(shares) - 1)
            for number, share in enumerate(shares)]


def _seconds(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.4g}"


def _speedup(value: float) -> str:
    """Three significant figures (0.00123x, 0.500x, 12.3x), whole numbers from 100x."""
    if math.isnan(value):
        return "—"
    return f"{value:,.0f}x" if value >= 100 else f"{value:#.3g}x"


def _relative(value: float) -> str:
    """1.00 and the mark for the fastest; 2.35x for the others; whole numbers from 100x."""
    if math.isnan(value):
        return "[red]failed[/red]"
    if value == 1.0:
        return f"[bold green]1.00 {FASTEST}[/bold green]"
    return _times_slower(value)


def _times_slower(value: float) -> str:
    return f"{value:,.0f}x" if value >= 100 else f"{value:.2f}x"


def counted(number: int, noun: str) -> str:
    """``3 solvers``, ``1 solver``; thousands separated."""
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def describe_environment(env: dict) -> str:
    """One line: CPU, GPUs, maxflow version and commit."""
    gpus = ", ".join(f"{gpu['name']} (driver {gpu['driver']}, "
                     f"SM clock up to {gpu['max_sm_clock_mhz']} MHz)" for gpu in env["gpus"])
    git = env["git"]
    commit = f" @ {git['commit'][:10]}{' (with changes)' if git['dirty'] else ''}" if git else ""
    return (f"{env['cpu']['model']} ({env['cpu']['cores']} cores); GPU: {gpus or 'none'}; "
            f"maxflow {env['maxflow']}{commit}; Python {env['python']}, numba {env['numba']}")


def _measured(settings) -> str:
    """What a run's times are, in words."""
    return ("user CPU seconds of the solve (stage 1)" if settings.cpu_time
            else "stage-1 seconds")


def print_header(console: Console, run: BenchRun, instances: int, suite: Suite | None,
                 env: dict) -> None:
    """The machine and what runs, printed before anything runs (``run``: runner.plan)."""
    settings = run.settings
    what = f"suite {suite.name}, " if suite else ""
    console.print(describe_environment(env), highlight=False)
    console.print(
        f"[bold]maxflow bench[/bold]: {what}{counted(instances, 'instance')} x "
        f"{counted(len(run.solvers), 'solver')}; "
        f"{_measured(settings)}, median of >= {settings.repeat} runs and >= "
        f"{settings.min_time:g} s "
        f"per cell after {settings.warmup} warm-up; baseline {run.baseline}")
    if settings.timeout is not None:
        console.print(f"--timeout {settings.timeout:g}: each cell of our solvers runs in a "
                      "child process of its own, killed where a run passes it", highlight=False)
    if run.externals:
        console.print("external programs (DIMACS on stdin, or as {file}): " + ", ".join(
            f"{label} = {run.configurations[label]['command']}"
            for label in run.solvers if label in run.externals),
            highlight=False)
    if suite and suite.solver_params:
        console.print(f"suite {suite.name} sets, where --solvers does not: " + "; ".join(
            f"{family}: " + ", ".join(
                f"{solver} " + ",".join(f"{key}={value}" for key, value in params.items())
                for solver, params in solvers.items())
            for family, solvers in suite.solver_params.items()), highlight=False)


def _family_table(family: str, family_rows: list[Row], run: BenchRun,
                  published: dict[str, PublishedRow], relative: bool = False) -> Table:
    others = run.solvers[1:]
    papers = [published[row.group] for row in family_rows if row.group in published]
    caption = f"paper: table {', '.join(sorted({p.table for p in papers}))}" if papers else None
    table = Table(title=f"[bold]{family}[/bold]", title_justify="left", caption=caption,
                  caption_justify="left")
    for name in ("instance", "vertices", "arcs", "seeds"):
        table.add_column(name, justify="left" if name == "instance" else "right")
    for solver in run.solvers:
        table.add_column(f"{solver} (s)", justify="right")
    for solver in run.solvers if relative else ():
        table.add_column(f"rel {solver}", justify="right")
    for solver in others:
        table.add_column(f"speedup {solver}", justify="right")
    paper_solvers = list(dict.fromkeys(solver for p in papers for solver in p.times))
    for solver in paper_solvers:
        table.add_column(f"paper {solver} (s)", justify="right", style="cyan")
    if papers:
        table.add_column("paper speedup", justify="right", style="cyan")
    speedups = {solver: [] for solver in others}
    ratios = {solver: [] for solver in run.solvers if relative}
    for row in family_rows:
        cells = [row.group, f"{row.n:,}", f"{row.m:,}", str(row.seeds)]
        for solver in run.solvers:
            cells.append(_time_cell(row, solver, solver in run.externals))
        row_ratios = relative_to_fastest(row.times)
        for solver in ratios:
            ratios[solver].append(row_ratios[solver])
            cells.append(_relative(row_ratios[solver]))
        for solver in others:
            ratio = (row.times[run.baseline] / row.times[solver] if row.times[solver] > 0
                     else math.nan)
            speedups[solver].append(ratio)
            cells.append(_speedup(ratio))
        paper = published.get(row.group)
        if papers:
            cells += [_seconds(paper.times[s]) if paper and s in paper.times else ""
                      for s in paper_solvers]
            cells.append(_speedup(paper.speedup) if paper else "")
        table.add_row(*cells)
    if others:
        table.add_section()
        table.add_row("geometric mean", *[""] * (3 + len(run.solvers)),
                      *(_geometric_relative(ratios[s]) for s in ratios),
                      *(_speedup(geometric_mean(speedups[s])) for s in others),
                      *[""] * (len(paper_solvers) + 1 if papers else 0))
    return table


def _geometric_relative(ratios: list[float]) -> str:
    """The geometric mean of a column's relative times; — where a row failed."""
    if any(math.isnan(ratio) for ratio in ratios):
        return "—"
    return _times_slower(geometric_mean(ratios))


def _time_cell(row: Row, solver: str, external: bool) -> str:
    """The row's time for one column, its spread, ! when unstable; which time, for an external
    program."""
    if math.isnan(row.times[solver]):
        return "[red]failed[/red]"
    mark = " [yellow]![/yellow]" if row.unstable[solver] else ""
    which = f" [dim]{CLOCK_MARKS[row.timed[solver]]}[/dim]" if external else ""
    return f"{_seconds(row.times[solver])} [dim]±{row.spread[solver]:.1%}[/dim]{mark}{which}"


def _set_up_apart(run: BenchRun) -> list[str]:
    """The configurations whose stage 1 leaves a set-up or a settling out (hpf, eibfs)."""
    return list(dict.fromkeys(cell.solver for cell in run.cells
                              if {"setup", "settle"} & cell.phases.keys()))


def _relative_mad(stats) -> str:
    """The MAD over the median, or the MAD in seconds where the median is 0 (a CPU clock's
    tick longer than the runs)."""
    if stats.median > 0:
        return f"{stats.mad / stats.median:.1%}"
    return f"{_seconds(stats.mad)} s"


def _unstable_lines(unstable: list[Cell]) -> list[str]:
    lines = [f"  {cell.instance} {cell.solver}: median {_seconds(cell.stats.median)} s, MAD "
             f"{_relative_mad(cell.stats)}, min {_seconds(cell.stats.minimum)}, max "
             f"{_seconds(cell.stats.maximum)} ({cell.stats.runs} runs)"
             for cell in unstable[:LISTED_UNSTABLE]]
    if len(unstable) > LISTED_UNSTABLE:
        lines.append(f"  ... and {len(unstable) - LISTED_UNSTABLE} more (see --detail or --json)")
    return lines


def _detail_tables(run: BenchRun) -> list[Table]:
    """The instances (sizes, read, build and check seconds), then per solver every cell's
    statistics, its other phases (median seconds over the measured runs) and its counters."""
    instances = Table(title="[bold]instances[/bold] (seconds)", title_justify="left",
                      box=box.SIMPLE_HEAD)
    for name in ("instance", "vertices", "arcs", "read", "build", "check", "cut capacity"):
        instances.add_column(name, justify="left" if name == "instance" else "right",
                             overflow="fold" if name == "instance" else "ellipsis")
    for record in run.instances:
        instances.add_row(record.instance.name, f"{record.n:,}", f"{record.m:,}",
                          _seconds(record.read),
                          _seconds(record.build), _seconds(record.check_seconds),
                          f"{record.cut_capacity:,}")
    tables = [instances]
    for solver in run.solvers:
        cells = [cell for cell in run.cells if cell.solver == solver]
        timed = {cell.timed for cell in cells}
        phases = list(dict.fromkeys(key for cell in cells for key in cell.phases
                                    if key not in timed))
        clocks = ", ".join(CLOCK_WORDS[clock] for clock in sorted(timed))
        table = Table(title=f"[bold]{solver}[/bold] ({clocks}; other phases: medians; "
                            "counters: medians)",
                      title_justify="left", box=box.SIMPLE_HEAD)
        gpu = any(cell.peak_gpu_bytes is not None for cell in cells)
        memory_columns = ("host mem", "GPU mem") if gpu else ("host mem",)
        for name in ("instance", "runs", "median", "MAD", "min", "max", *phases, *memory_columns):
            table.add_column(name, justify="left" if name == "instance" else "right",
                             overflow="fold" if name == "instance" else "ellipsis")
        table.add_column("counters", ratio=1)
        for cell in cells:
            stats = cell.stats
            values = [stats.median, stats.mad, stats.minimum, stats.maximum,
                      *(cell.phases.get(key) for key in phases)]
            peaks = [cell.peak_host_bytes, cell.peak_gpu_bytes][:len(memory_columns)]
            counters = ", ".join(f"{name} {count:,}" for name, count in cell.counters.items())
            table.add_row(cell.instance, str(stats.runs),
                          *("" if v is None else _seconds(v) for v in values),
                          *("—" if peak is None else human_bytes(peak) for peak in peaks),
                          counters)
        tables.append(table)
    return tables


def print_run(console: Console, run: BenchRun, published: tuple[PublishedRow, ...] = (),
              published_note: str = "",
              detail: bool = False, relative: bool = False) -> None:
    """The compile times, the family tables (with the relative columns when asked), the detail
    when asked, the unstable cells, then the problems in red."""
    console.print("compile (kept out of the times): "
                  + ", ".join(f"{solver} {seconds:.2f} s"
                              for solver, seconds in run.compile.items()))
    by_preset = {row.preset: row for row in published}
    for family, family_rows in rows(run).items():
        for table in fitted(console, _family_table(family, family_rows, run, by_preset,
                                                   relative)):
            console.print(table)
    console.print(f"[dim]time: mean over the seeds of each instance's median; ± the largest "
                  f"MAD/median (unscaled MAD); ! {UNSTABLE_RULE}[/dim]")
    if relative:
        console.print(f"[dim]{RELATIVE_NOTE}[/dim]")
    apart = _set_up_apart(run)
    if apart:
        console.print(f"[dim]{', '.join(apart)}: stage 1 as the authors' code times it; the "
                      "set-up before it and the settling into a preflow after it are apart "
                      "(setup, settle: --detail, --json)[/dim]")
    if run.externals:
        console.print("[dim]external programs: cut tm = their own stage-1 time as they print "
                      "it (hi_pr: CPU seconds, 10 ms ticks); wall = the whole process, reading "
                      "the input included; cpu = its user CPU time (all in --detail and "
                      "--json)[/dim]")
    if published_note:
        console.print(f"[cyan]{published_note}[/cyan]")
    if detail:
        for table in _detail_tables(run):
            console.print(table)
        console.print("[dim]host mem, GPU mem: peak memory, the largest over the measured runs "
                      "(see --json settings.memory)[/dim]")
    for record in run.instances:
        for warning in record.warnings:
            console.print(f"[yellow]warning[/yellow]: {record.instance.name}: {warning}")
    unstable = [cell for cell in run.cells if cell.stats.unstable]
    if unstable:
        console.print(f"[yellow]{len(unstable)} unstable cells[/yellow] ({UNSTABLE_RULE}):")
        for line in _unstable_lines(unstable):
            console.print(line, highlight=False)
    for problem in run.problems:
        console.print(f"[bold red]FAILED[/bold red] [red]{problem}[/red]", highlight=False)


def _verdict(change: Change) -> tuple[str, str]:
    """(colour, word) of a change: faster or slower where significant, else why not."""
    if change.significant:
        return ("red", "slower") if change.ratio > 1 else ("green", "faster")
    return "dim", "≈ noise" if change.noise else "≈ not significant"


def _p_value(p: float) -> str:
    return "—" if math.isnan(p) else f"{p:.2g}" if p >= 0.001 else "<0.001"


def print_changes(console: Console, changes: list[Change], only_old: list[str],
                  only_new: list[str], alpha: float = ALPHA) -> None:
    """Per cell new/old, its Mann–Whitney U and p, and whether it is significant (faster or
    slower) or not (≈, noise by the MAD rule or p >= alpha); geometric mean per family."""
    table = Table(title="[bold]new / old[/bold] (stage-1 medians)", title_justify="left")
    for name in ("instance", "solver", "old (s)", "new (s)", "new/old", "U", "p", ""):
        table.add_column(name, justify="left" if name in ("instance", "solver") else "right")
    for change in changes:
        colour, verdict = _verdict(change)
        table.add_row(change.instance, change.solver, _seconds(change.old), _seconds(change.new),
                      f"[{colour}]{change.ratio:.3f}[/{colour}]",
                      "—" if math.isnan(change.u) else f"{change.u:g}", _p_value(change.p),
                      f"[{colour}]{verdict}[/{colour}]")
    families = {}
    for change in changes:
        families.setdefault(change.family, []).append(change.ratio)
    table.add_section()
    for family, ratios in families.items():
        table.add_row(f"{family}: geometric mean", "", "", "", f"{geometric_mean(ratios):.3f}",
                      "", "", "")
    console.print(table)
    console.print(f"[dim]{NOISE_RULE}; {significance_rule(alpha)}; U: pairs of runs where the "
                  f"new one is slower, ties counting 1/2[/dim]")
    for label, names in (("only in OLD", only_old), ("only in NEW", only_new)):
        if names:
            console.print(f"[yellow]{label}[/yellow]: {', '.join(names)}")


def require_plot(path: str) -> None:
    """Fail before a long run, not after it, when --plot cannot be drawn: a PNG image, by
    matplotlib."""
    if path != "-" and not path.lower().endswith(".png"):
        raise ParameterError(f"--plot {path}: the plot is a PNG image; name it FILE.png")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MaxflowError("--plot needs matplotlib: pip install 'maxflow-dimacs[plot]'") from None


def plot(run: BenchRun, path: str) -> None:
    """Stage-1 time against arcs, log-log, one panel per family and one line per solver."""
    require_plot(path)
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    table = rows(run)
    columns = min(3, len(table))
    lines = math.ceil(len(table) / columns)
    figure, axes = pyplot.subplots(lines, columns, figsize=(4.5 * columns, 3.6 * lines),
                                   squeeze=False)
    for axis in axes.flat[len(table):]:
        axis.set_visible(False)
    for axis, (family, family_rows) in zip(axes.flat, table.items()):
        for solver in run.solvers:
            axis.plot([row.m for row in family_rows], [row.times[solver] for row in family_rows],
                      "o-", label=solver)
        axis.set(title=family, xlabel="arcs", ylabel="stage-1 seconds", xscale="log", yscale="log")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    figure.tight_layout()
    with atomic_output(path) as stream:
        figure.savefig(stream, format="png", dpi=120)
    pyplot.close(figure)
