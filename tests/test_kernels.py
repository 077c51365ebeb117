"""The kernels: every .cu file builds with nvcc; each kernel's declaration matches its .cu
signature and its twin; the Numba twins' per-vertex steps; on a GPU (marked gpu), each kernel
against its twin on the same arrays, and the PyCUDA loader."""

import importlib
import importlib.machinery
import inspect
import re
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

from maxflow_cli import generators, kernels
from maxflow_cli.kernels import declarations, push_relabel_cpu
from maxflow_cli.kernels.declarations import Kernel
from maxflow_cli.kernels.preflow import STATE_TYPES, PreflowKernels
from maxflow_cli.network import Network
from maxflow_cli.pushrelabel.relabel import saturate_source_arcs
from maxflow_cli.residual import build_residual
from maxflow_cli.steps import reverse_bfs


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc (the CUDA compiler) is not on PATH")
@pytest.mark.parametrize("source", sorted(kernels.KERNEL_DIR.glob("*.cu")),
                         ids=lambda path: path.name)
def test_every_kernel_builds_with_nvcc(source, tmp_path):
    build = subprocess.run(["nvcc", "-arch=sm_90", "-c", "-I", str(source.parent), str(source),
                            "-o", str(tmp_path / "kernel.o")], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr


LAUNCH_BOUNDS = r"(?:__launch_bounds__\([^)]*\)\s*)?"
KERNELS = [value for value in vars(declarations).values() if isinstance(value, Kernel)]


def _cu_parameters(kernel):
    """The parameters of the kernel's extern "C" __global__ function: (name, PyCUDA's letter:
    P a pointer, q a long long, i an int)."""
    source = (kernels.KERNEL_DIR / f"{kernel.file}.cu").read_text()
    match = re.search(rf"__global__ void {LAUNCH_BOUNDS}{kernel.name}\(([^)]*)\)", source)
    assert match, f"{kernel.name} is not in {kernel.file}.cu"
    return [(re.findall(r"\w+", parameter)[-1],
             "P" if "*" in parameter else "q" if "long long" in parameter else "i")
            for parameter in match.group(1).split(",")]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda kernel: kernel.name)
def test_declaration_matches_the_cu_signature_and_the_twin(kernel):
    parameters = _cu_parameters(kernel)
    assert [name for name, _ in parameters] == list(kernel.arguments)
    assert "".join(letter for _, letter in parameters) == kernel.pycuda_types
    twin = getattr(importlib.import_module(f"maxflow_cli.kernels.{kernel.file}_cpu"),
                   kernel.name)
    assert tuple(inspect.signature(twin.py_func).parameters) == kernel.arguments


def test_every_kernel_is_declared():
    found = {name for source in kernels.KERNEL_DIR.glob("*.cu")
             for name in re.findall(rf"__global__ void {LAUNCH_BOUNDS}(\w+)\(",
                                    source.read_text())}
    assert found == {kernel.name for kernel in KERNELS}


def _diamond():
    """s=0 -> a=1 (9), a -> b=2 (4), a -> c=3 (6), b -> t=4, c -> t (9 each), a -> a (5)."""
    return build_residual(Network.from_arcs(5, 0, 4, [(0, 1, 9), (1, 2, 4), (1, 3, 6),
                                                      (2, 4, 9), (3, 4, 9), (1, 1, 5)]))


def test_step_pushes_to_the_lowest_residual_neighbour():
    graph = _diamond()
    res = graph.initial_residuals()
    excess = np.zeros(5, np.int64)
    saturate_source_arcs(graph.first, graph.head, graph.rev, res, excess, 0)
    label = np.array([5, 3, 2, 1, 0], np.int32)
    arc = push_relabel_cpu.push_relabel_step(1, 9, 3, graph.first, graph.head, graph.rev, res,
                                             excess, label)
    assert arc == graph.arc_of_input[2]
    assert excess.tolist() == [-9, 3, 0, 6, 0]  # all of (a, c)'s 6, c being lowest
    assert res[graph.arc_of_input[2]] == 0 and res[graph.rev[graph.arc_of_input[2]]] == 6


def test_step_relabels_to_lowest_plus_one_ignoring_self_loops():
    graph = _diamond()
    res = graph.initial_residuals()
    label = np.array([5, 1, 4, 3, 0], np.int32)
    excess = np.array([-9, 9, 0, 0, 0], np.int64)
    res[graph.arc_of_input[0]] = 0
    res[graph.rev[graph.arc_of_input[0]]] = 9
    outcome = push_relabel_cpu.push_relabel_step(1, 9, 1, graph.first, graph.head, graph.rev,
                                                 res, excess, label)
    assert outcome == push_relabel_cpu.RELABELED
    assert label[1] == 4  # c's 3 + 1; the self-loop's label 1 does not count


def _state(seed):
    """A genrmf graph with random residuals, excesses and labels: plenty of violations."""
    graph = build_residual(generators.make("genrmf", a=5, b=8, seed=seed))
    rng = np.random.default_rng(seed)
    return graph, {
        "res": graph.cap // rng.integers(1, 4, graph.cap.shape[0]),
        "excess": rng.integers(0, 50, graph.n),
        "label": rng.integers(0, 9, graph.n),  # 8: unreached, for bfs_level
    }


def _run(device, state, operation, *args):
    """Load `state` into `device`, run `operation`, return (its outcome, the state after)."""
    for name, values in state.items():
        device.to_device(name, values.astype(STATE_TYPES[name]))
    outcome = getattr(device, operation)(*args)
    after = {name: np.empty(len(values), STATE_TYPES[name]) for name, values in state.items()}
    for name, host in after.items():
        device.to_host(name, host)
    return outcome, after


def test_twin_bfs_levels_give_exact_distances():
    graph, state = _state(1)
    device = PreflowKernels("cpu", graph, 32)
    n = graph.n
    device.to_device("res", state["res"])
    device.reset_labels(2 * n)
    level = 0
    while device.bfs_level(level, 2 * n):
        level += 1
    label = np.empty(n, np.int32)
    device.to_host("label", label)
    expected = np.empty(n, np.int32)
    reverse_bfs(graph.first, graph.head, graph.rev, state["res"], graph.sink, expected,
                np.empty(n, np.int32))
    expected[expected == n] = 2 * n
    expected[graph.source] = n
    assert label.tolist() == expected.tolist()


@pytest.fixture
def devices():
    """The kernels on the GPU and their twins on one graph and state (skips without a usable
    GPU)."""
    reason = kernels.gpu_unavailable()
    if reason:
        pytest.skip(reason)
    graph, state = _state(7)
    gpu = PreflowKernels("gpu", graph, 32)
    yield gpu, PreflowKernels("cpu", graph, 32), graph, state
    gpu.close()


@pytest.mark.gpu
@pytest.mark.parametrize("operation,args", [("reset_labels", (8,)), ("bfs_level", (0, 8)),
                                            ("bfs_level", (3, 8))])
def test_kernel_matches_twin(devices, operation, args):
    gpu, twin, _, state = devices
    gpu_outcome, gpu_after = _run(gpu, state, operation, *args)
    twin_outcome, twin_after = _run(twin, state, operation, *args)
    assert gpu_outcome == twin_outcome
    for name in state:
        np.testing.assert_array_equal(gpu_after[name], twin_after[name], err_msg=name)


def _assert_cancellation_kept_a_preflow(graph, before, after):
    """Violation cancellation moved excess along arcs only, left no deficit (negative excess
    but at the source) and no negative residual, and cancelled something."""
    others = np.arange(graph.n) != graph.source
    assert after["excess"].sum() == before["excess"].sum()
    assert (after["excess"][others] >= 0).all()
    assert (after["res"] >= 0).all()
    np.testing.assert_array_equal(after["res"] + after["res"][graph.rev],
                                  before["res"] + before["res"][graph.rev])
    assert not np.array_equal(after["res"], before["res"])


@pytest.mark.parametrize("device_kind", ["twin", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_cancel_violations_leaves_no_deficit(device_kind):
    """Regression: the seeds push a violating arc's whole residual, which left negative
    excess where the tail had sent its excess elsewhere (gpu-bfs reported more than the
    maximum flow on a 25 M-arc instance)."""
    graph, state = _state(3)
    state["excess"] %= 5  # violating tails have sent most of their excess on
    state["excess"][graph.source] = -10**6
    if device_kind == "gpu":
        reason = kernels.gpu_unavailable()
        if reason:
            pytest.skip(reason)
        device = PreflowKernels("gpu", graph, 32)
    else:
        device = PreflowKernels("cpu", graph, 32)
    try:
        _, after = _run(device, state, "cancel_violations")
    finally:
        device.close()
    _assert_cancellation_kept_a_preflow(graph, {k: v.astype(STATE_TYPES[k])
                                                for k, v in state.items()}, after)


@pytest.mark.gpu
def test_push_relabel_kernel_matches_twin_on_independent_active_vertices(devices):
    """One cycle in which the active vertices are pairwise non-adjacent, and their neighbours
    stay inactive whatever they receive, has one outcome in any order."""
    gpu, twin, graph, state = devices
    state["excess"][:] = -1000
    blocked = np.zeros(graph.n, bool)
    blocked[[graph.source, graph.sink]] = True
    for u in np.random.default_rng(3).permutation(graph.n):
        if not blocked[u]:
            state["excess"][u] = 1 + u % 7
            blocked[graph.head[graph.first[u]:graph.first[u + 1]]] = True
            blocked[u] = True
    gpu_seen, gpu_after = _run(gpu, state, "push_relabel", 1)
    twin_seen, twin_after = _run(twin, state, "push_relabel", 1)
    assert gpu_seen and twin_seen
    for name in state:
        np.testing.assert_array_equal(gpu_after[name], twin_after[name], err_msg=name)
    counts = gpu.counters()
    assert counts["pushes"] == twin.counters()["pushes"] > 0
    assert counts["relabels"] == twin.counters()["relabels"] > 0


@pytest.mark.gpu
def test_push_relabel_kernel_keeps_a_preflow_under_contention(devices):
    """Many cycles, every vertex active: residual pairs and total excess are conserved, no
    excess goes negative, and each excess matches the flows."""
    gpu, _, graph, _ = devices
    res = graph.initial_residuals()
    excess = np.zeros(graph.n, np.int64)
    saturate_source_arcs(graph.first, graph.head, graph.rev, res, excess, graph.source)
    label = np.zeros(graph.n, np.int32)
    label[graph.source] = graph.n
    _, after = _run(gpu, {"res": res, "excess": excess, "label": label}, "push_relabel", 64)
    res, excess = after["res"], after["excess"]
    assert np.array_equal(res + res[graph.rev], graph.cap + graph.cap[graph.rev])
    assert excess.sum() == 0 and (np.delete(excess, graph.source) >= 0).all()
    flow = graph.cap - res
    tails = np.repeat(np.arange(graph.n), np.diff(graph.first))
    inflow = np.bincount(graph.head, weights=np.maximum(flow, 0), minlength=graph.n)
    outflow = np.bincount(tails, weights=np.maximum(flow, 0), minlength=graph.n)
    assert np.array_equal(excess, (inflow - outflow).astype(np.int64))
    assert gpu.counters()["pushes"] > 0


@pytest.mark.gpu
def test_loader_compiles_once_for_this_device():
    reason = kernels.gpu_unavailable()
    if reason:
        pytest.skip(reason)
    module = kernels.load("push_relabel")
    assert kernels.load("push_relabel") is module
    assert kernels.LOAD_SECONDS["push_relabel"] > 0


def _fake_pycuda(monkeypatch, init):
    """Install a stand-in pycuda whose driver's init() is `init`."""
    driver = types.ModuleType("pycuda.driver")
    driver.Error = RuntimeError
    driver.init = init
    package = types.ModuleType("pycuda")
    package.__spec__ = importlib.machinery.ModuleSpec("pycuda", None)
    package.driver = driver
    monkeypatch.setitem(sys.modules, "pycuda", package)
    monkeypatch.setitem(sys.modules, "pycuda.driver", driver)


class FakeDriver:
    """A stand-in libcuda: cuInit's status and the number of devices."""

    def __init__(self, status=0, devices=1):
        self.status, self.devices = status, devices

    def cuInit(self, flags):
        return self.status

    def cuDeviceGetCount(self, count):
        count._obj.value = self.devices
        return 0


def _fake_driver(monkeypatch, driver):
    def load(name):
        if driver is None:
            raise OSError(f"{name}: cannot open shared object file")
        return driver

    monkeypatch.setattr(kernels.ctypes, "CDLL", load)


def test_the_missing_driver_or_device_is_named_before_pycuda(monkeypatch):
    probe = kernels.gpu_unavailable.__wrapped__
    monkeypatch.setattr(kernels.importlib.util, "find_spec", lambda name: None)
    _fake_driver(monkeypatch, None)
    assert probe().startswith("no NVIDIA driver: libcuda.so.1 cannot be loaded")
    _fake_driver(monkeypatch, FakeDriver(status=kernels.CUDA_ERROR_NO_DEVICE))
    assert probe() == "no CUDA device found: the NVIDIA driver lists none"
    _fake_driver(monkeypatch, FakeDriver(devices=0))
    assert probe() == "no CUDA device found: the NVIDIA driver lists none"
    _fake_driver(monkeypatch, FakeDriver(status=35))
    assert probe() == "the NVIDIA driver does not start: cuInit returned CUDA error 35"
    _fake_driver(monkeypatch, FakeDriver())
    assert probe() == "PyCUDA is not installed (pip install 'maxflow-dimacs[cuda]')"


def test_unavailable_reasons_name_what_is_missing(monkeypatch):
    probe = kernels.gpu_unavailable.__wrapped__
    _fake_driver(monkeypatch, FakeDriver())

    def no_device():
        raise RuntimeError("cuInit failed: no CUDA-capable device is detected")

    _fake_pycuda(monkeypatch, no_device)
    assert probe() == "no CUDA device found: cuInit failed: no CUDA-capable device is detected"
