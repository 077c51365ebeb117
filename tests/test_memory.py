"""Memory estimates and the check against what the machine has."""

import pytest

from maxflow_cli import memory
from maxflow_cli.errors import MaxflowError


def test_available_memory_is_read_from_the_kernel():
    free = memory.available()
    assert free is not None and 0 < free < 2**50  # Linux: /proc/meminfo


def test_require_refuses_with_both_figures(monkeypatch):
    monkeypatch.setattr(memory, "available", lambda: 3 * 10**9)
    memory.require(3 * 10**9, "this")
    with pytest.raises(MaxflowError, match="^that needs about 12 GB of memory; this machine "
                                           "has 3.0 GB available$"):
        memory.require(12 * 10**9, "that")
    monkeypatch.setattr(memory, "available", lambda: None)  # unknown: nothing refused
    memory.require(10**18, "anything")


@pytest.mark.parametrize("size,text", [(999, "999 B"), (780_000, "780 kB"), (35_200_000, "35 MB"),
                                       (1_234_000_000, "1.2 GB")])
def test_human_bytes(size, text):
    assert memory.human_bytes(size) == text
