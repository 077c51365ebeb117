"""kernels.devices without a GPU: a driver error while a GpuDevice allocates (out of memory,
say) frees what it allocated and becomes a one-line MaxflowError, simulated with a stand-in
for pycuda.driver; the layouts' byte counts."""

import sys
import types

import numpy as np
import pytest

from maxflow_cli.errors import MaxflowError
from maxflow_cli.kernels import devices, preflow
from maxflow_cli.network import Network
from maxflow_cli.registry import SolveOptions, solvers
from maxflow_cli.residual import build_residual


class FakeError(Exception):
    """pycuda.driver.Error."""


class FakeMemoryError(FakeError):
    """pycuda._driver.MemoryError: a driver error, not Python's MemoryError."""


class FakeDriver(types.ModuleType):
    """pycuda.driver whose mem_alloc fails with `error` once `budget` allocations are made."""

    Error, MemoryError = FakeError, FakeMemoryError

    def __init__(self, budget: int, error: Exception):
        super().__init__("pycuda.driver")
        self.budget, self.error, self.live, self.freed = budget, error, [], []

    class Event:
        def record(self):
            pass

        def synchronize(self):
            pass

        def time_since(self, other):
            return 0.0

    def mem_alloc(self, nbytes):
        if len(self.live) + len(self.freed) == self.budget:
            raise self.error
        driver = self

        class Allocation:
            def free(self):
                driver.live.remove(self)
                driver.freed.append(self)

        allocation = Allocation()
        self.live.append(allocation)
        return allocation

    def memcpy_htod(self, allocation, array):
        pass

    def memset_d32_async(self, allocation, value, words):
        pass

    def pagelocked_empty(self, length, dtype):
        raise AssertionError("not reached: the allocations fail first")


class FakeModule:
    def get_function(self, name):
        return types.SimpleNamespace(prepare=lambda signature: None)


@pytest.fixture
def driver(monkeypatch):
    def install(budget, error):
        fake = FakeDriver(budget, error)
        package = types.ModuleType("pycuda")
        package.driver = fake
        monkeypatch.setitem(sys.modules, "pycuda", package)
        monkeypatch.setitem(sys.modules, "pycuda.driver", fake)
        monkeypatch.setitem(sys.modules, "pycuda.autoprimaryctx", types.ModuleType("ctx"))
        monkeypatch.setattr(devices, "load", lambda name, defines=(): FakeModule())
        return fake
    return install


def _graph():
    return build_residual(Network.from_arcs(3, 0, 2, [(0, 1, 4), (1, 2, 3)]))


def test_out_of_memory_frees_what_was_allocated(driver):
    fake = driver(4, FakeMemoryError("cuMemAlloc failed: out of memory"))  # first, head, rev, res
    graph = _graph()
    with pytest.raises(MaxflowError) as raised:
        preflow.PreflowKernels("gpu", graph, 32)
    message = str(raised.value)
    assert message == (f"GPU out of memory: the instance needs about "
                       f"{-(-preflow.device_bytes(graph) // 10**6)} MB of GPU memory "
                       "(cuMemAlloc failed: out of memory)")
    assert "\n" not in message and not isinstance(raised.value, MemoryError)
    assert fake.live == [] and len(fake.freed) == 4  # all four freed


def test_other_driver_errors_carry_the_drivers_message(driver):
    fake = driver(0, FakeError("cuMemAlloc failed: invalid context\nmore detail"))
    with pytest.raises(MaxflowError, match=r"^GPU error: cuMemAlloc failed: invalid context$"):
        preflow.PreflowKernels("gpu", _graph(), 32)
    assert fake.live == []


def test_the_solvers_report_it_as_one_line(driver, monkeypatch):
    driver(2, FakeMemoryError("cuMemAlloc failed: out of memory"))
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: None)
    graph = _graph()
    for name in ("cuda", "gpu-bfs", "hybrid"):
        spec = solvers()[name]
        with pytest.raises(MaxflowError, match="^GPU out of memory"):
            spec.solve(graph, spec.resolve(SolveOptions(device="gpu")))


def test_device_bytes_counts_graph_state_counts_and_flags():
    graph = _graph()
    arcs = graph.head.shape[0]
    assert preflow.device_bytes(graph) == (np.dtype(np.int32).itemsize * (graph.n + 1 + 2 * arcs)
                                           + 8 * arcs + 8 * graph.n + 4 * graph.n + 3 * 8
                                           + 3 * 4)


def test_a_layout_counts_a_byte_for_an_empty_buffer():
    assert devices.layout_bytes({"a": (3, np.int64), "b": (0, np.int32)}) == 25


def test_the_twin_launches_by_name_and_copies_in_and_out():
    """A launch takes each argument from the scalars, the constants or the buffers, by name;
    uploads and downloads copy a prefix, so a batch may use the start of a buffer."""
    graph = build_residual(Network.from_arcs(3, 0, 2, [(0, 1, 4), (1, 2, 3)]))
    kernels = preflow.PreflowKernels("cpu", graph, 32)
    kernels.to_device("res", graph.cap)
    assert kernels.bfs_level(0, 6) is False  # every label is 0 but none is unreached (6)
    kernels.reset_labels(6)
    assert kernels.bfs_level(0, 6) is True
    label = kernels.to_host("label", np.empty(3, np.int32))
    assert label.tolist() == [3, 1, 0]
    assert kernels.counters()["kernel_launches"] == 3
    assert kernels.to_host("label", np.empty(2, np.int32)).tolist() == [3, 1]


class LockingDriver:
    """The two calls of the CUDA driver that page_locked makes, recorded; registering fails
    with `status` (0: it succeeds)."""

    def __init__(self, status=0):
        self.status, self.calls = status, []

    def cuMemHostRegister_v2(self, pointer, size, flags):
        self.calls.append(("lock", pointer, size))
        return self.status

    def cuMemHostUnregister(self, pointer):
        self.calls.append(("release", pointer))
        return 0


def test_a_large_copy_page_locks_its_array_for_the_copy_and_releases_it():
    host = np.zeros(devices.PAGE_LOCK_BYTES // 8, np.int64)
    driver = LockingDriver()
    with devices.page_locked(host, driver) as locked:
        assert locked is host
        assert driver.calls == [("lock", host.ctypes.data, host.nbytes)]
    assert driver.calls[-1] == ("release", host.ctypes.data)


def test_a_small_copy_or_a_refused_lock_copies_as_it_is():
    small = LockingDriver()
    with devices.page_locked(np.zeros(devices.PAGE_LOCK_BYTES // 8 - 1, np.int64), small):
        pass
    assert small.calls == []
    refused = LockingDriver(status=712)  # CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
    host = np.zeros(devices.PAGE_LOCK_BYTES, np.uint8)
    with pytest.raises(ValueError):  # the block's own error goes through, nothing released
        with devices.page_locked(host, refused):
            raise ValueError
    assert [call[0] for call in refused.calls] == ["lock"]
