"""The solver registry: one calling convention, parameters and devices checked up front; the
solver modules found in their folder, loaded by the registry alone, none importing another."""

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import maxflow_cli
from maxflow_cli.errors import ParameterError
from maxflow_cli.network import Network
from maxflow_cli.registry import (
    SolveOptions,
    all_parameters,
    get_solver,
    parameter_defaults,
    solver_modules,
    solvers,
)


def test_every_solver_is_described_and_cites_its_seed():
    for name, spec in solvers().items():
        assert spec.name == name and spec.summary and spec.citation
        assert spec.devices


def test_defaults_are_filled_in_and_unknown_parameters_refused():
    hipr = get_solver("hipr")
    options = hipr.resolve(SolveOptions(params={"alpha": 3}))
    assert options.params == {"global_update_frequency": 0.5, "alpha": 3, "beta": 12,
                              "initial_update": 0}
    assert options.device == "cpu"
    with pytest.raises(ParameterError, match="--kernel-cycles does not apply to solver 'hipr'"):
        hipr.resolve(SolveOptions(params={"kernel_cycles": 5}))
    with pytest.raises(ParameterError, match="runs on cpu, not on 'gpu'"):
        hipr.resolve(SolveOptions(device="gpu"))


def test_unknown_solver():
    with pytest.raises(ParameterError, match="unknown solver 'nope'"):
        get_solver("nope")


def test_parameters_become_flags():
    assert all_parameters()["global_update_frequency"].flag == "--global-update-frequency"


def test_defaults_are_shown_per_solver_where_they_differ():
    assert parameter_defaults("alpha") == "6"
    shown = parameter_defaults("block_size").split(", ")
    assert "cuda 32" in shown and "gpu-bfs 1024" in shown


def test_parameters_outside_their_limits_are_refused():
    hipr = get_solver("hipr")
    with pytest.raises(ParameterError, match="--global-update-frequency -1: must be in 0.0.."):
        hipr.resolve(SolveOptions(params={"global_update_frequency": -1}))
    with pytest.raises(ParameterError, match="--alpha 10000000: must be in 0..1000000"):
        hipr.resolve(SolveOptions(params={"alpha": 10**7}))
    assert hipr.resolve(SolveOptions(params={"global_update_frequency": 0})).params[
        "global_update_frequency"] == 0


@pytest.mark.parametrize("solver, params, message", [
    ("cuda", {"kernel_cycles": 2**31}, "--kernel-cycles 2147483648: must be in 1..2147483647"),
    ("hybrid", {"kernel_cycles": 0}, "--kernel-cycles 0: must be in 1..2147483647"),
    ("gpu-bfs", {"inner_cycles": 0}, "--inner-cycles 0: must be in 1..2147483647"),
    ("gpu-bfs", {"outer_cycles": 0}, "--outer-cycles 0: must be in 1..2147483647"),
    ("gpu-bfs", {"block_size": 16}, "--block-size 16: must be in 32..1024"),
    ("hybrid", {"initial_threshold": -1}, "--initial-threshold -1: must be in 0.."),
    ("openmp-cuda", {"active_threshold": -1}, "--active-threshold -1: must be in 0.."),
    ("hipr", {"global_update_frequency": float("nan")},
     "--global-update-frequency nan: must be a finite number"),
    ("hybrid", {"initial_threshold": float("inf")},
     "--initial-threshold inf: must be a finite number"),
    ("mpi", {"partition": "cubes"}, "--partition 'cubes': must be one of ranges, regions"),
    ("mpi", {"blocks": 0}, "--blocks 0: must be in 1..1024"),
])
def test_solver_parameters_out_of_bounds_are_refused(solver, params, message):
    with pytest.raises(ParameterError, match=f"^{message}$"):
        get_solver(solver).resolve(SolveOptions(device="cpu", params=params))


def test_kernel_cycles_is_one_parameter_shared_by_cuda_and_hybrid():
    cuda, hybrid = ({p.name: p for p in get_solver(name).parameters}["kernel_cycles"]
                    for name in ("cuda", "hybrid"))
    assert cuda is hybrid and all_parameters()["kernel_cycles"].help.startswith(
        "cuda, hybrid: push/relabel iterations")


def test_the_help_of_a_shared_parameter_is_each_solvers_own():
    shown = all_parameters()["global_update_frequency"].help.split("; ")
    hipr = next(text for text in shown if text.startswith("hipr, hipr-forward, "))
    assert "gpu-sync" not in hipr and "hi_pr's 0.5" in hipr
    assert [text for text in shown if text.startswith("gpu-sync: global relabel when")]
    block_size = all_parameters()["block_size"].help
    assert "cuda, hybrid: threads per CUDA block, a multiple of 32 (32: small" in block_size


def test_a_parameter_parses_and_checks_text():
    alpha = {p.name: p for p in get_solver("hipr").parameters}["alpha"]
    assert alpha.parse("7") == 7
    with pytest.raises(ParameterError, match=r"^alpha='x' is not an integer$"):
        alpha.parse("x")
    with pytest.raises(ParameterError, match="^--alpha -1: must be in 0..1000000$"):
        alpha.parse("-1")


SOLVERS_DIR = Path(maxflow_cli.__file__).parent / "solvers"
SOLVER_MODULE_NAMES = {f"maxflow_cli.solvers.{name}" for name in solver_modules()}


def imported_modules(path: Path) -> set[str]:
    """The modules a source file imports, as absolute names (`from package import module`
    counts as the module where it is one)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_solver_modules_are_found_and_import_no_other_solver():
    files = {path.stem for path in SOLVERS_DIR.glob("*.py")} - {"__init__"}
    assert set(solver_modules()) == files and "hipr" in files
    for name in solver_modules():
        path = SOLVERS_DIR / f"{name}.py"
        others = SOLVER_MODULE_NAMES - {f"maxflow_cli.solvers.{name}"}
        assert not imported_modules(path) & others, f"{path.name} imports another solver"


def test_only_the_registry_loads_solvers():
    """The layer, the kernels, check and the registry module itself import no solver module;
    the registry loads them when it is first asked for a solver."""
    package = Path(maxflow_cli.__file__).parent
    for path in package.rglob("*.py"):
        if path.parent != SOLVERS_DIR:
            assert not imported_modules(path) & SOLVER_MODULE_NAMES, path
    code = ("import sys, maxflow_cli.check, maxflow_cli.registry as r\n"
            "print(sorted(m for m in sys.modules if m.startswith('maxflow_cli.solvers.')))\n"
            "r.solvers()\n"
            "print(sorted(m for m in sys.modules if m.startswith('maxflow_cli.solvers.')))\n")
    before, after = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True,
                                   text=True, check=True).stdout.splitlines()
    assert before == "[]"
    assert after == str(sorted(SOLVER_MODULE_NAMES))


def test_solvers_with_kernels_are_built_in_input_order_and_hipr_in_hi_prs():
    """hipr's operation counts equal hi_pr's only in hi_pr's order; the GPU solvers count
    nothing against a C code's, so their graphs are built in parallel in input order."""
    from maxflow_cli.residual import HIPR_ORDER, INPUT_ORDER, build_residual

    table = solvers()
    assert table["hipr"].arc_order == table["hipr-forward"].arc_order == HIPR_ORDER
    assert table["gpu-sync"].arc_order == table["cuda"].arc_order == INPUT_ORDER
    network = Network.from_arcs(3, 0, 2, [(0, 1, 4), (1, 2, 3), (0, 2, 1), (1, 0, 2)])
    assert table["gpu-sync"].build(network).head.tolist() == \
        build_residual(network, INPUT_ORDER).head.tolist() != build_residual(network).head.tolist()


def test_auto_is_built_as_the_engine_it_runs_on_each_device():
    """auto runs gpu-sync on a GPU (input order) and hipr's and hpf's relay elsewhere."""
    from maxflow_cli.residual import HIPR_ORDER, INPUT_ORDER, build_residual

    auto = solvers()["auto"]
    assert (auto.arc_order_on("gpu"), auto.arc_order_on("cpu")) == (INPUT_ORDER, HIPR_ORDER)
    assert solvers()["hipr"].arc_order_on("gpu") == HIPR_ORDER  # no GPU order of its own
    network = Network.from_arcs(3, 0, 2, [(0, 1, 4), (1, 2, 3), (0, 2, 1), (1, 0, 2)])
    assert auto.build(network, "gpu").head.tolist() == \
        build_residual(network, INPUT_ORDER).head.tolist() != auto.build(network).head.tolist()


def test_a_solver_of_32_bit_arc_indices_refuses_a_network_before_building_it(monkeypatch):
    """Past limits.MAX_NARROW_ARCS arcs the graph would be wide: the solvers that cannot take
    one say so before the build spends its time and memory."""
    import numpy as np

    from maxflow_cli import registry, residual

    monkeypatch.setattr(registry, "arc_index_type", lambda m: np.int64)
    monkeypatch.setattr(residual, "arc_index_type", lambda m: np.int64)
    network = Network.from_arcs(3, 0, 2, [(0, 1, 2), (1, 2, 1)])
    built = []
    monkeypatch.setattr(registry, "build_residual",
                        lambda *args: built.append(args) or residual.build_residual(*args))
    with pytest.raises(ParameterError, match="solver 'hpf' indexes arcs with 32-bit"):
        get_solver("hpf").build(network)
    assert not built
    assert get_solver("hipr").build(network).wide and len(built) == 1


@pytest.mark.parametrize("res_type", [None, np.uint16, np.int32, np.int64])
@pytest.mark.parametrize("arc_type", [None, np.int64])
def test_the_tiny_graph_takes_each_residual_type_and_arc_type(res_type, arc_type):
    from maxflow_cli.registry import tiny_graph
    from maxflow_cli.residual import residual_type

    graph = tiny_graph(arc_type, res_type)
    assert residual_type(graph) is (res_type or np.uint16)
    assert graph.rev.dtype == (arc_type or np.int32)
