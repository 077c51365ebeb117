"""peak_gpu_bytes without a GPU: the GPU devices' allocation helper reports to memory.GPU, with
test_devices' stand-in for pycuda.driver."""

import numpy as np
import pytest
from test_devices import FakeDriver, FakeMemoryError, _graph, driver  # noqa: F401 (a fixture)

from maxflow_cli.errors import MaxflowError
from maxflow_cli.kernels.preflow import PreflowKernels, device_bytes
from maxflow_cli.memory import GPU


class Pinned(np.ndarray):
    """pagelocked_empty's array: its base frees it."""

    def free(self):
        pass


def roomy(driver):  # noqa: F811
    """A stand-in driver with memory enough, whose allocations have addresses and whose
    pagelocked_empty works."""
    fake = driver(10**6, FakeMemoryError("not reached"))
    allocate = fake.mem_alloc

    def mem_alloc(nbytes):
        allocation = allocate(nbytes)
        type(allocation).__int__ = lambda self: 4096
        return allocation

    fake.mem_alloc = mem_alloc
    fake.pagelocked_empty = lambda length, dtype: np.zeros(length, dtype).view(Pinned)[:]
    return fake


def test_a_gpu_device_counts_what_it_allocates_and_frees(driver):  # noqa: F811
    roomy(driver)
    graph = _graph()
    held = GPU.current
    GPU.reset()
    device = PreflowKernels("gpu", graph, 32)
    assert GPU.current - held == device_bytes(graph)
    device.close()
    assert GPU.current == held and GPU.peak == held + device_bytes(graph)


def test_a_device_that_fails_to_open_gives_back_what_it_counted(driver):  # noqa: F811
    driver(4, FakeMemoryError("cuMemAlloc failed: out of memory"))
    held = GPU.current
    GPU.reset()
    with pytest.raises(MaxflowError, match="GPU out of memory"):
        PreflowKernels("gpu", _graph(), 32)
    assert GPU.current == held and GPU.peak > held  # four arrays were held, then freed


def test_the_cpu_twin_holds_no_gpu_memory():
    GPU.reset()
    PreflowKernels("cpu", _graph(), 32).close()
    assert GPU.peak == (GPU.current or None)
