"""`maxflow solve FILE`: read a DIMACS max file (or generate a preset in memory), solve it,
report the value, times and counters."""

import json
import os
import sys
import time

import click
import numpy as np
from rich.console import Console
from rich.table import Table

from maxflow_cli import memory
from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.check import check_answer
from maxflow_cli.commands import FiniteFloat
from maxflow_cli.dimacs.reader import input_name, read_network
from maxflow_cli.dimacs.writer import write_rows
from maxflow_cli.errors import CheckFailed, InputError, MaxflowError, ParameterError
from maxflow_cli.generators import FAMILIES, PRESETS
from maxflow_cli.jit import compile_notice, compile_shared
from maxflow_cli.outputs import atomic_output, check_outputs
from maxflow_cli.registry import (
    DEFAULT_SOLVER,
    SolveOptions,
    all_parameters,
    get_solver,
    parameter_defaults,
    solvers,
)

TIME_PHASES = ("read", "compile", "build", "setup", "stage1", "settle", "stage2", "check")
"""The phases `solve` times, in the order it reports them; stage2 and check run only when asked,
setup and settle only for the solvers that time them apart from stage 1 (setup: hipr, hipr-forward,
hpf, eibfs; settle: hpf, eibfs)."""


_OUT_OF_MEMORY = ("out of memory while {0} the network ({1.n:,} vertices, {1.m:,} arcs): "
                  "the solver needs more than this machine has")


def _solver_parameter_options(command):
    """Add one --flag per solver parameter in the registry (declared once, there)."""
    for parameter in reversed(list(all_parameters().values())):
        kind = FiniteFloat() if parameter.type is float else parameter.type
        command = click.option(parameter.flag, parameter.name, type=kind,
                               default=None, help=f"{parameter.help} [default: "
                               f"{parameter_defaults(parameter.name)}]")(command)
    return command


def _load(file: str, lenient: bool):
    """FILE's network and the reader's warnings: generated in memory where FILE is no file
    but a preset or a generator spec as `maxflow bench` takes them
    (washington-rlg-long-1024x1536:seed=3, genrmf:a=8,b=64), else read."""
    if file != "-" and not os.path.exists(file) and \
            file.partition(":")[0] in PRESETS.keys() | FAMILIES.keys():
        instances = parse_instance(file)
        if len(instances) != 1:
            raise ParameterError(f"{file}: {len(instances):,} instances; solve takes one")
        return instances[0].load()
    return read_network(file, lenient=lenient)


def _built(spec, device: str, network, name: str, times: dict):
    """The residual graph of `network` (read from `name`) in the solver's arc order on
    `device`, its seconds in times["build"]; a network too large to build is the file's
    error."""
    started = time.perf_counter()
    try:
        graph = spec.build(network, device)
    except MaxflowError as error:  # the network is the file's: say which file
        raise InputError(name, None, str(error)) from None
    except MemoryError:
        raise InputError(name, None, _OUT_OF_MEMORY.format("building", network)) from None
    times["build"] = time.perf_counter() - started
    return graph


def _write_outputs(graph, result, certificate, flow_file, trace_file, cut_file) -> None:
    """--flow, --trace and --cut, each written atomically where asked."""
    if flow_file is not None:
        network = graph.network  # its ends gathered (8 bytes an arc) only where written
        with atomic_output(flow_file) as stream:
            stream.write(f"s {result.flow_value}\n".encode())
            write_rows(stream, b"f", [network.tails, network.heads, graph.flows(result.res)],
                       [0, 0, 0], add=(1, 1, 0))
    if trace_file is not None:
        with atomic_output(trace_file) as stream:
            stream.write(json.dumps(result.trace).encode())
    if cut_file is not None:
        with atomic_output(cut_file) as stream:
            stream.write(f"c source side of a minimum cut, capacity {certificate.cut_capacity}\n"
                         .encode())
            write_rows(stream, b"n", [np.flatnonzero(certificate.source_side)], [0], add=(1,))


@click.command()
@click.argument("file", metavar="FILE")
@click.option("--solver", "-s", "solver_name", default=DEFAULT_SOLVER, show_default=True,
              type=click.Choice(list(solvers())), help="Which solver to run.")
@click.option("--device", type=click.Choice(["cpu", "gpu"]), default=None,
              help="Where solvers with GPU kernels run: gpu (the default; an error where "
                   "none can run, save for auto, which then races on the CPU) or cpu (their "
                   "Numba twins; auto: its rivals alone).")
@click.option("--check", "run_check", is_flag=True,
              help="Verify the answer with a minimum-cut certificate; exit 1 if it fails.")
@click.option("--cut", "cut_file", metavar="FILE",
              help="Write the source side of a minimum cut: an 'n ID' line per vertex.")
@click.option("--flow", "flow_file", metavar="FILE",
              help="Write the flow (runs stage 2): 's VALUE', then 'f U V FLOW' per input arc.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--trace", "trace_file", metavar="FILE",
              help="Write the solver's rounds (device, active vertices, threshold, operations, "
                   "seconds) as one JSON list; empty for solvers without rounds.")
@click.option("--lenient", is_flag=True,
              help="Accept a number of 'a' lines different from the 'p' line's, with a warning.")
@_solver_parameter_options
def solve(file, solver_name, device, run_check, cut_file, flow_file, as_json, trace_file,
          lenient, **solver_params):
    """Solve the max-flow problem in FILE (DIMACS max or binary BK .bbk; .gz/.bz2/.xz; '-'
    for stdin), or generated in memory from a preset or a generator spec as `maxflow bench`
    takes them (washington-rlg-long-1024x1536:seed=3; its time is the read phase's)."""
    spec = get_solver(solver_name)
    given = {name: value for name, value in solver_params.items() if value is not None}
    options = _resolve(spec, SolveOptions(want_flow=flow_file is not None, device=device,
                                          params=given))
    if spec.follower is not None and spec.follower(options):
        return  # one of several processes (mpiexec): its share is done, the leader reports
    report_to_stderr = check_outputs({"--flow": flow_file, "--cut": cut_file,
                                      "--trace": trace_file}, inputs=[file])
    peaks = memory.PhasePeaks()
    with compile_notice("the reader, the builder and the checker"):
        times = {"compile": compile_shared()}
    peaks.after("compile")

    started = time.perf_counter()
    network, warnings = _load(file, lenient)
    times["read"] = time.perf_counter() - started
    for warning in warnings:
        click.echo(f"maxflow: warning: {warning}", err=True)
    peaks.after("read")

    with compile_notice(spec.name):  # after the input is known good: bad input fails at once
        times["compile"] += spec.prepare(options)
    peaks.after("compile")

    # built last, so that the solve finds the graph in the caches, as the C codes find the
    # arrays they have just parsed (README, "maxflow solve's order")
    name = input_name(file)
    graph = _built(spec, options.device, network, name, times)
    del network  # the graph shares its capacities and gathers its ends back when asked
    peaks.after("build")
    try:
        result = spec.solve(graph, options)
    except MemoryError:
        raise InputError(name, None, _OUT_OF_MEMORY.format("solving", graph)) from None
    for phase, seconds in result.times.items():  # auto's compile of a solver it chose adds
        times[phase] = times.get(phase, 0.0) + seconds
    peaks.after("solve")

    certificate = None
    if run_check or cut_file is not None:
        started = time.perf_counter()
        certificate = check_answer(graph, result)
        if run_check:
            times["check"] = time.perf_counter() - started
        peaks.after("check")
    _write_outputs(graph, result, certificate, flow_file, trace_file, cut_file)
    peaks.after("output")

    report = _report(file, spec, options, graph, result, times, peaks.report(),
                     certificate if run_check else None)
    if as_json:
        click.echo(json.dumps(report), err=report_to_stderr)
    else:
        _print_report(report, sys.stderr if report_to_stderr else sys.stdout)
    if certificate is not None and run_check and not certificate.ok:
        raise CheckFailed("the answer certificate fails: " + "; ".join(certificate.problems))


def _report(file, spec, options, graph, result, times, memory_peaks, certificate) -> dict:
    """What `solve` prints (as text or --json): the answer, the times in phase order, the
    counters, the memory peaks, the certificate's verdict (when --check) and the race's."""
    report = {
        "file": file,
        "solver": spec.name,
        "device": options.device,
        "flow_value": result.flow_value,
        "n": graph.n,
        "m": graph.m,
        "times": _in_phase_order(times),
        "counters": result.counters,
        "params": options.params,
        "memory": memory_peaks,
    }
    if certificate is not None:
        report["check"] = {"ok": certificate.ok, "problems": certificate.problems,
                           "cut_capacity": certificate.cut_capacity}
    if result.winner or result.why:  # a race's winner, or gpu-sync alone that handed over
        report |= {"winner": result.winner or result.solver, "why": result.why}
    if result.trace:
        report["trace"] = result.trace
    return report


def _resolve(spec, options: SolveOptions) -> SolveOptions:
    """The solver's options, defaults filled in. A solver with GPU kernels runs on the GPU:
    its CPU twin only when --device cpu asks, so that no GPU here is an error, not a slow run."""
    return spec.resolve_where_asked(options, "--device cpu")


def _in_phase_order(times: dict) -> dict:
    """The phases that ran, in TIME_PHASES' order, then the solver's own (global_relabel,
    kernels, ...)."""
    return {phase: times[phase] for phase in TIME_PHASES if phase in times} | times


def _print_report(report: dict, stream) -> None:
    console = Console(file=stream)
    console.print(f"[bold]flow value[/bold] {report['flow_value']}   "
                  f"({report['solver']} on {report['device']}, n={report['n']}, m={report['m']})")
    if "winner" in report:
        console.print(f"answered by [bold]{report['winner']}[/bold]: {report['why']}",
                      soft_wrap=True)
    table = Table(show_header=True, header_style="bold", box=None)
    table.add_column("phase")
    table.add_column("seconds", justify="right")
    for phase, seconds in report["times"].items():
        table.add_row(phase, f"{seconds:.4f}")
    counters = Table(show_header=True, header_style="bold", box=None)
    counters.add_column("counter")
    counters.add_column("count", justify="right")
    for name, count in report["counters"].items():
        counters.add_row(name, f"{count:,}")
    grid = Table.grid(padding=(0, 4))
    grid.add_row(table, counters)
    console.print(grid)
    peaks = report["memory"]
    gpu = f", GPU {memory.human_bytes(peaks['peak_gpu_bytes'])} ({peaks['peak_gpu_phase']})" \
        if peaks["peak_gpu_phase"] else ""
    console.print(f"[bold]peak memory[/bold] host {memory.human_bytes(peaks['peak_host_bytes'])} "
                  f"({peaks['peak_host_phase']}){gpu}; by phase: " + ", ".join(
                      f"{entry['phase']} {memory.human_bytes(entry['host_bytes'])}" + (
                          f" (GPU {memory.human_bytes(entry['gpu_bytes'])})"
                          if entry["gpu_bytes"] else "") for entry in peaks["by_phase"]),
                  soft_wrap=True)
    if "check" in report:
        check = report["check"]
        if check["ok"]:
            console.print(f"[green]check passed[/green]: a cut of capacity "
                          f"{check['cut_capacity']} equals the flow value")
        else:
            console.print("[red]check FAILED[/red]: " + "; ".join(check["problems"]))
