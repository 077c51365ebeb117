"""bench.runner: solver choice, warm-up and measured runs, flow comparison, the certificate."""

import itertools
import resource
import time
import weakref
from dataclasses import replace

import pytest

from maxflow_cli import memory
from maxflow_cli.bench import runner
from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.bench.runner import Settings, choose_solvers, default_solvers, run_benchmark
from maxflow_cli.errors import ParameterError, SolverUnavailable
from maxflow_cli.registry import HIPR_PARAMETERS, SolverSpec, solvers
from maxflow_cli.residual import HIPR_ORDER, INPUT_ORDER
from maxflow_cli.solvers.hipr import solve_hipr

TINY = parse_instance("genrmf:a=3,b=4,seed=1..2")
FAST = Settings(repeat=3, warmup=1, min_time=0.0)


def fake_solver(name: str, wrong_calls=(), extra_seconds: float = 0.0) -> SolverSpec:
    """hipr under another name; the calls numbered in ``wrong_calls`` (from 1) report flow + 1."""
    calls = itertools.count(1)

    def solve(graph, options):
        time.sleep(extra_seconds)
        result = solve_hipr(graph, options)
        if next(calls) in wrong_calls:
            result.flow_value += 1
        return result

    return SolverSpec(name, "hipr in disguise", "tests", solve, prepare=lambda options: 0.0,
                      parameters=HIPR_PARAMETERS)


@pytest.fixture
def register(monkeypatch):
    def add(spec: SolverSpec) -> None:
        monkeypatch.setitem(solvers(), spec.name, spec)
    return add


def test_the_baseline_comes_first_once():
    choices = choose_solvers("hipr,hipr", "hipr", False)
    assert [choice.label for choice in choices] == ["hipr"]
    with pytest.raises(ParameterError, match="unknown solver"):
        choose_solvers("nope", "hipr", False)
    with pytest.raises(ParameterError, match="not on 'gpu'"):
        choose_solvers("hipr@gpu", "hipr", False)


def test_compiling_includes_what_a_solver_leaves_to_its_first_solve(register):
    """SolverSpec.prepare_rest (auto's eibfs) is compiled with the rest, before any run."""
    register(replace(fake_solver("rested"), prepare=lambda options: 1.0,
                     prepare_rest=lambda options: 2.0))
    register(fake_solver("plain"))
    rested, plain = choose_solvers("plain", "rested", False)
    assert (rested.prepare(), plain.prepare()) == (3.0, 0.0)


def test_solvers_run_by_default_only_on_their_own_device(register):
    register(SolverSpec("gpu-only", "a GPU solver with a CPU twin, no GPU here", "tests",
                        solve_hipr, prepare=lambda options: 0.0, parameters=HIPR_PARAMETERS,
                        devices=("gpu", "cpu"),
                        unavailable=lambda options: "no GPU" if options.device == "gpu" else None))
    register(SolverSpec("named-only", "a solver for the record", "tests", solve_hipr,
                        prepare=lambda options: 0.0, in_default_bench=False))
    names = default_solvers()
    assert "hipr" in names and "gpu-only" not in names and "named-only" not in names
    assert "self-stabilizing" not in names and "mpi" not in names
    assert [c.label for c in choose_solvers("gpu-only@cpu", "hipr", False)] == ["hipr",
                                                                                "gpu-only@cpu"]
    with pytest.raises(SolverUnavailable, match="no GPU"):
        choose_solvers("gpu-only@gpu", "hipr", False)


def test_warmup_and_measured_runs_are_counted(register):
    register(fake_solver("counted"))
    run = run_benchmark(TINY[:1], choose_solvers(None, "counted", False),
                        Settings(repeat=3, warmup=2, min_time=0.0))
    (cell,) = run.cells
    assert (cell.warmup, len(cell.samples), cell.stats.runs) == (2, 3, 3)
    assert cell.phases["stage1"] == cell.stats.median
    assert cell.counters["pushes"] > 0


def test_runs_continue_until_min_time(register):
    register(fake_solver("slow", extra_seconds=0.01))
    run = run_benchmark(TINY[:1], choose_solvers(None, "slow", False),
                        Settings(repeat=1, warmup=0, min_time=0.05))
    assert len(run.cells[0].samples) >= 4


def test_every_solver_on_every_instance_checked_once(register):
    register(fake_solver("twin"))
    run = run_benchmark(TINY, choose_solvers("twin", "hipr", False), FAST)
    assert run.solvers == ["hipr", "twin"] and set(run.compile) == {"hipr", "twin"}
    assert [(cell.instance, cell.solver) for cell in run.cells] == [
        (TINY[0].name, "hipr"), (TINY[0].name, "twin"), (TINY[1].name, "hipr"),
        (TINY[1].name, "twin")]
    assert all(record.cut_capacity == run.cells[2 * i].flow_value
               for i, record in enumerate(run.instances))
    assert run.problems == []
    assert run.speedups()[TINY[0].name, "hipr"] == 1.0


def test_a_wrong_flow_value_in_any_run_is_a_problem(register):
    register(fake_solver("wrong", wrong_calls={3}))  # the warm-up is call 1
    run = run_benchmark(TINY[:1], choose_solvers("wrong", "hipr", False), FAST)
    (problem,) = run.problems
    assert problem.startswith(f"{TINY[0].name}: wrong gave flow value")
    assert "in run 3 (1 of 4 runs differ)" in problem


def test_a_wrong_baseline_fails_its_certificate(register):
    register(fake_solver("liar", wrong_calls=set(range(1, 100))))
    run = run_benchmark(TINY[:1], choose_solvers(None, "liar", False), FAST)
    assert run.instances[0].check_problems
    assert run.problems[0].startswith(f"{TINY[0].name}: certificate fails")


def test_flow_runs_stage_two_timed_apart():
    run = run_benchmark(TINY[:1], choose_solvers(None, "hipr", True), FAST)
    assert "stage2" in run.cells[0].phases


def test_a_set_up_timed_apart_is_kept_beside_stage_one_not_in_it():
    run = run_benchmark(TINY[:1], choose_solvers("hpf", "hpf", False), FAST)
    cell = run.cells[0]
    assert cell.timed == "stage1" and cell.phases["stage1"] == cell.stats.median
    assert {"setup", "settle"} <= set(cell.phases)


def user_seconds() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def test_cpu_time_is_the_solve_calls_user_time_not_its_wall_time(register):
    def solve(graph, options):
        time.sleep(0.2)  # wall time only
        spun = user_seconds()
        while user_seconds() - spun < 0.05:  # user time too
            pass
        return solve_hipr(graph, options)

    register(SolverSpec("sleepy", "sleeps, then spins, then hipr", "tests", solve,
                        prepare=lambda options: 0.0, parameters=HIPR_PARAMETERS))
    run = run_benchmark(TINY[:1], choose_solvers(None, "sleepy", False),
                        Settings(repeat=2, warmup=1, min_time=0.0, cpu_time=True))
    (cell,) = run.cells
    assert cell.timed == "cpu" and cell.phases["cpu"] == cell.stats.median
    assert "stage1" in cell.phases  # the solver's own wall-clock stage 1, kept beside
    assert all(0.05 <= cpu < 0.15 and wall >= 0.2 for cpu, wall in zip(cell.samples, cell.wall))


@pytest.mark.parametrize("interleave, order", [
    (False, ["one"] * 3 + ["two"] * 3),
    (True, ["one", "two"] * 3),  # the warm-ups in turn, then one measured run of each per round
])
def test_cells_run_one_after_the_other_or_interleaved(register, interleave, order):
    calls = []
    for name in ("one", "two"):
        register(SolverSpec(name, "records its calls", "tests",
                            lambda graph, options, name=name:
                            calls.append(name) or solve_hipr(graph, options),
                            prepare=lambda options: 0.0, parameters=HIPR_PARAMETERS))
    settings = Settings(repeat=2, warmup=1, min_time=0.0, interleave=interleave)
    run = run_benchmark(TINY[:1], choose_solvers("two", "one", False), settings)
    assert calls == order
    assert [len(cell.samples) for cell in run.cells] == [2, 2] and run.problems == []


@pytest.mark.parametrize("interleave", (False, True))
def test_each_solver_runs_on_the_graph_of_its_arc_order(register, interleave):
    """As `maxflow solve` builds it: hipr's order for one, input order for the other; each
    order built once, without interleaving only the one in use held, and the baseline's
    answer certified on its own graph."""
    seen = []
    for name, order in (("parsed", HIPR_ORDER), ("ordered", INPUT_ORDER)):
        register(SolverSpec(name, "records its graph", "tests",
                            lambda graph, options, order=order:
                            seen.append((order, graph.input_ordered))
                            or solve_hipr(graph, options),
                            prepare=lambda options: 0.0, parameters=HIPR_PARAMETERS,
                            arc_order=order))
    settings = Settings(repeat=2, warmup=1, min_time=0.0, interleave=interleave)
    built, graphs = [], []  # the orders built; weak references to the graphs

    def build(network, order):
        built.append((order, sum(graph() is not None for graph in graphs)))  # and those held
        graph = real_build(network, order)
        graphs.append(weakref.ref(graph))
        return graph

    real_build = runner.build_residual
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "build_residual", build)
        run = run_benchmark(TINY[:1], choose_solvers("parsed", "ordered", False), settings)
    assert {order for order, _ in seen} == {HIPR_ORDER, INPUT_ORDER}
    assert all(input_ordered == (order == INPUT_ORDER) for order, input_ordered in seen)
    assert built == [(INPUT_ORDER, 0), (HIPR_ORDER, 1 if interleave else 0)]
    assert run.problems == [] and run.instances[0].cut_capacity == run.cells[0].flow_value


def memory_solver(name: str, host_bytes: int = 0, gpu_bytes=()) -> SolverSpec:
    """hipr that also touches ``host_bytes`` of memory and holds ``gpu_bytes[call]`` of
    (counted) GPU memory in each call; the warm-up is call 0."""
    calls = itertools.count()

    def solve(graph, options):
        call = next(calls)
        block = bytearray(host_bytes)  # noqa: F841 (resident while hipr runs)
        held = gpu_bytes[call] if call < len(gpu_bytes) else 0
        if held:
            memory.GPU.allocated(held)
        try:
            return solve_hipr(graph, options)
        finally:
            if held:
                memory.GPU.freed(held)

    return SolverSpec(name, "hipr holding memory", "tests", solve, prepare=lambda options: 0.0,
                      parameters=HIPR_PARAMETERS)


def test_each_cell_records_its_peak_gpu_memory_over_its_measured_runs(register):
    register(memory_solver("gpu", gpu_bytes=(10**9, 1000, 3000, 2000)))  # 10**9: the warm-up
    run = run_benchmark(TINY[:1], choose_solvers("gpu", "hipr", False), FAST)
    hipr, gpu = run.cells
    assert hipr.peak_gpu_bytes is None and gpu.peak_gpu_bytes == 3000
    assert hipr.peak_host_bytes > 0 and gpu.peak_host_bytes > 0


def test_each_cell_records_its_peak_host_memory(register):
    if not memory.reset_peak_rss():
        pytest.skip("/proc/self/clear_refs is not writable here: the peak is not reset")
    register(memory_solver("big", host_bytes=200 * 2**20))
    run = run_benchmark(TINY[:1], choose_solvers("big", "hipr", False), FAST)
    hipr, big = run.cells
    assert big.peak_host_bytes >= hipr.peak_host_bytes + 150 * 2**20
    assert "VmHWM" in run.memory["peak_host_bytes"]


def test_where_the_peak_cannot_be_reset_the_run_says_so(monkeypatch):
    monkeypatch.setattr(memory, "reset_peak_rss", lambda: False)
    run = run_benchmark(TINY[:1], choose_solvers(None, "hipr", False), FAST)
    assert "since it started" in run.memory["peak_host_bytes"] and "upper bound" in run.memory[
        "peak_host_bytes"]
    assert run.cells[0].peak_host_bytes > 0


def test_relative_times_are_over_the_fastest_on_each_instance(register):
    register(fake_solver("slow", extra_seconds=0.02))
    run = run_benchmark(TINY[:1], choose_solvers("slow", "hipr", False), FAST)
    relative = run.relative()
    assert relative[TINY[0].name, "hipr"] == 1.0 and relative[TINY[0].name, "slow"] > 1.0
