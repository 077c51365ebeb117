"""scripts/sanitize_kernels.py, the driver that compute-sanitizer runs: every run it makes is
checked against hipr and certified, and a wrong answer makes it fail."""

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

from maxflow_cli import kernels

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "sanitize_kernels.py"


def _script():
    spec = importlib.util.spec_from_file_location("sanitize_kernels", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("device", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_every_graph_runs_gpu_sync_with_its_defaults_and_alone(device, capsys):
    if device == "gpu" and kernels.gpu_unavailable():
        pytest.skip(kernels.gpu_unavailable())
    script = _script()
    assert script.main(["--device", device, "--solvers", "gpu-sync"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{graph} {run} ok" for graph in script.GRAPHS
                     for run in ("gpu-sync", "gpu-sync:rivals=none,hand_over=never")]


def test_the_gpu_solvers_are_those_with_kernels():
    solvers = _script().gpu_solvers()
    assert "gpu-sync" in solvers and "cuda" in solvers
    assert "auto" not in solvers and "hipr" not in solvers


def test_a_wrong_answer_is_reported_and_fails_the_run(monkeypatch, capsys):
    script = _script()
    monkeypatch.setattr(script, "check_answer", lambda graph, result: SimpleNamespace(ok=False))
    assert script.main(["--device", "cpu", "--solvers", "cuda"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.endswith("WRONG") for line in lines)
