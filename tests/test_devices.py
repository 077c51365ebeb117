"""kernels.devices without a GPU: a driver error while a GpuDevice opens (out of memory, say)
frees what it allocated and becomes a one-line MaxflowError, simulated with a stand-in for
pycuda.driver."""

import sys
import types

import numpy as np
import pytest

from maxflow_cli.errors import MaxflowError
from maxflow_cli.kernels import devices
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
        monkeypatch.setattr(devices, "load", lambda name: FakeModule())
        return fake
    return install


def _graph():
    return build_residual(Network.from_arcs(3, 0, 2, [(0, 1, 4), (1, 2, 3)]))


def test_out_of_memory_frees_what_was_allocated(driver):
    fake = driver(4, FakeMemoryError("cuMemAlloc failed: out of memory"))  # first, head, rev, res
    graph = _graph()
    with pytest.raises(MaxflowError) as raised:
        devices.open_device("gpu", graph, 32)
    message = str(raised.value)
    assert message == (f"GPU out of memory: the instance needs about "
                       f"{-(-devices.device_bytes(graph) // 10**6)} MB of GPU memory "
                       "(cuMemAlloc failed: out of memory)")
    assert "\n" not in message and not isinstance(raised.value, MemoryError)
    assert fake.live == [] and len(fake.freed) == 4  # all four freed


def test_other_driver_errors_carry_the_drivers_message(driver):
    fake = driver(0, FakeError("cuMemAlloc failed: invalid context\nmore detail"))
    with pytest.raises(MaxflowError, match=r"^GPU error: cuMemAlloc failed: invalid context$"):
        devices.open_device("gpu", _graph(), 32)
    assert fake.live == []


def test_the_solvers_report_it_as_one_line(driver, monkeypatch):
    driver(2, FakeMemoryError("cuMemAlloc failed: out of memory"))
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: None)
    graph = _graph()
    for name in ("cuda", "gpu-bfs", "hybrid"):
        spec = solvers()[name]
        with pytest.raises(MaxflowError, match="^GPU out of memory"):
            spec.solve(graph, spec.resolve(SolveOptions(device="gpu")))


def test_device_bytes_counts_graph_and_state():
    graph = _graph()
    arcs = graph.head.shape[0]
    assert devices.device_bytes(graph) == (np.dtype(np.int32).itemsize * (graph.n + 1 + 2 * arcs)
                                           + 8 * arcs + 8 * graph.n + 4 * graph.n + 24 + 4)
