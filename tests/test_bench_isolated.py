"""`maxflow bench --timeout`: our solvers' cells in child processes (bench.isolated)."""

import json
import os
from types import SimpleNamespace

import pytest
from test_bench_cli import FAST, bench

from maxflow_cli import kernels
from maxflow_cli.bench.external import InstanceFiles, RunFailed
from maxflow_cli.bench.isolated import PARENT, Child, Children, IsolatedCell, child_environment
from maxflow_cli.network import Network
from maxflow_cli.registry import SolveOptions

SMALL = "genrmf:a=4,b=8,seed=1"
SLOW = "ak:n=2000"
"""gpu-bfs's CPU twin takes far more than a second on it (a second to compile aside), hpf
milliseconds."""


def _doc(tmp_path, *args):
    result = bench(*args, *FAST, "--json", str(tmp_path / "r.json"))
    doc = json.loads((tmp_path / "r.json").read_text())
    return result, doc, {cell["solver"]: cell for cell in doc["results"]}


def test_cells_in_children_answer_certify_and_measure_as_in_process(tmp_path):
    result, doc, cells = _doc(tmp_path, SMALL, "--solvers", "hipr,hpf", "--timeout", "60",
                              "--cpu-time")
    assert result.exit_code == 0, result.output
    assert "--timeout 60: each cell of our solvers runs in a child process" in result.output
    check = doc["instances"][0]["check"]
    assert check["ok"] and check["seconds"] > 0
    assert {cell["flow_value"] for cell in cells.values()} == {check["cut_capacity"]}
    for cell in cells.values():
        assert cell["failure"] is None and cell["peak_host_bytes"] > 0
        assert cell["timed"] == "cpu" and {"stage1", "wall", "cpu"} <= set(cell["phases"])
    assert doc["settings"]["timeout"] == 60


def test_a_run_past_the_timeout_is_killed_and_fails_its_cell_only(tmp_path):
    result, doc, cells = _doc(tmp_path, SLOW, "--solvers", "gpu-bfs@cpu,hpf", "--timeout",
                              "1")
    assert result.exit_code == 1
    assert cells["gpu-bfs@cpu"]["failure"].endswith(
        "gpu-bfs@cpu failed in run 1: ran past --timeout 1 s and was killed")
    assert cells["hpf"]["failure"] is None and cells["hpf"]["flow_value"] == 4003
    assert doc["instances"][0]["check"]["ok"]


def test_a_baseline_past_the_timeout_leaves_the_answer_unchecked(tmp_path):
    result, doc, cells = _doc(tmp_path, SLOW, "--baseline", "gpu-bfs@cpu", "--solvers", "hpf",
                              "--timeout", "1")
    assert result.exit_code == 1
    assert doc["instances"][0]["check"]["problems"] == [
        "not checked: the baseline gave no answer"]
    assert cells["hpf"]["flow_value"] == 4003 and cells["hpf"]["mismatch"] is None


def test_a_child_that_cannot_set_up_fails_with_its_reason_and_a_new_one_follows(tmp_path):
    network = Network.from_arcs(2, 0, 1, [(0, 1, 5)])
    children, files = Children(), InstanceFiles(None, network)

    def cell(name):
        choice = SimpleNamespace(label="x", spec=SimpleNamespace(name=name),
                                 options=SolveOptions(), device=None, params={})
        return IsolatedCell(choice, 10.0, False, children)

    try:
        with pytest.raises(RunFailed, match="no-such-solver"):
            cell("no-such-solver").run(None, files)
        assert cell("hpf").run(None, files, certify=True).certificate[1:] == ([], 5)
    finally:
        children.end()
        files.close()


def test_a_child_serves_its_configuration_on_instance_after_instance(tmp_path, monkeypatch):
    started, start = [], Child.__init__
    monkeypatch.setattr(Child, "__init__",
                        lambda child, environment: started.append(start(child, environment)))
    result, doc, cells = _doc(tmp_path, "genrmf:a=3,b=4,seed=1..3", "--solvers", "hpf",
                              "--timeout", "60")
    assert result.exit_code == 0, result.output
    assert [record["check"]["ok"] for record in doc["instances"]] == [True] * 3
    assert len(started) == 2  # hipr's (the baseline) and hpf's


@pytest.mark.gpu
def test_gpu_solvers_run_in_children_with_contexts_of_their_own(tmp_path):
    if kernels.gpu_unavailable():
        pytest.skip(kernels.gpu_unavailable())
    result, doc, cells = _doc(tmp_path, "genrmf:a=8,b=16,seed=1", "--solvers",
                              "gpu-sync:rivals=none,cuda", "--timeout", "120")
    assert result.exit_code == 0, result.output
    assert doc["instances"][0]["check"]["ok"]
    for label in ("gpu-sync:rivals=none", "cuda"):
        assert cells[label]["failure"] is None and cells[label]["peak_gpu_bytes"] > 0


def test_interleaved_children_wait_passively_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    assert child_environment(True)["OMP_WAIT_POLICY"] == "passive"
    assert "OMP_WAIT_POLICY" not in child_environment(False)
    assert child_environment(False)[PARENT] == str(os.getpid())
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")
    assert child_environment(True)["OMP_WAIT_POLICY"] == "active"
