"""Memory estimates and the check against what the machine has."""

import mmap
import types

import numpy as np
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


def test_peak_rss_is_reset_and_read_from_proc(tmp_path):
    if not memory.reset_peak_rss():
        pytest.skip("/proc/self/clear_refs is not writable here")
    before = memory.peak_rss()
    block = mmap.mmap(-1, 64 * 2**20)  # fresh pages, not the heap's freed ones
    block.write(b"\x01" * len(block))  # written, so resident
    grown = memory.peak_rss()
    block.close()
    assert grown >= before + 60 * 2**20
    assert memory.reset_peak_rss() and memory.peak_rss() < grown - 32 * 2**20


def test_peak_rss_falls_back_to_ru_maxrss(tmp_path, monkeypatch):
    status = tmp_path / "status"
    status.write_text("Name:\tpython\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n")
    assert memory.peak_rss(str(status)) == 2048 * 1024
    assert not memory.reset_peak_rss(str(tmp_path / "no" / "clear_refs"))
    monkeypatch.setattr(memory.resource, "getrusage",
                        lambda who: types.SimpleNamespace(ru_maxrss=3000))
    assert memory.peak_rss(str(tmp_path / "absent")) == 3000 * 1024  # KiB on Linux


@pytest.mark.parametrize("platform, size", [("linux", 5 * 1024), ("darwin", 5)])
def test_maxrss_units(monkeypatch, platform, size):
    monkeypatch.setattr(memory.sys, "platform", platform)
    assert memory.maxrss_bytes(5) == size


def test_the_gpu_tracker_keeps_the_peak_since_its_reset():
    tracker = memory.GpuTracker()
    assert tracker.peak is None  # nothing held: no GPU ran
    tracker.allocated(100)
    tracker.allocated(50)
    tracker.freed(150)
    tracker.allocated(30)
    assert (tracker.peak, tracker.current) == (150, 30)
    tracker.reset()  # a new run; 30 bytes still held from before
    assert tracker.peak == 30
    tracker.freed(30)
    tracker.reset()
    assert tracker.peak is None
    tracker.allocated(10)
    tracker.freed(10)
    assert tracker.peak == 10 and tracker.current == 0


def test_a_reset_that_leaves_the_peak_is_not_taken_for_one(tmp_path):
    clear_refs, status = tmp_path / "clear_refs", tmp_path / "status"
    status.write_text("VmHWM:\t  966000 kB\nVmRSS:\t  100000 kB\n")  # written, not reset
    assert not memory.reset_peak_rss(str(clear_refs), str(status))
    assert clear_refs.read_text() == "5"
    status.write_text("VmHWM:\t  100100 kB\nVmRSS:\t  100000 kB\n")
    assert memory.reset_peak_rss(str(clear_refs), str(status))


def test_each_peak_is_placed_in_the_phase_that_reached_it_first(monkeypatch):
    """Each phase's own peaks (the host's reset after each; where it cannot be, it only
    rises, and the first phase at the top is still the one)."""
    host = iter([100, 300, 300, 250])
    monkeypatch.setattr(memory, "peak_rss", lambda: next(host))
    tracker = memory.GpuTracker()
    monkeypatch.setattr(memory, "GPU", tracker)
    peaks = memory.PhasePeaks()
    peaks.after("read")
    peaks.after("build")
    report = peaks.report()
    assert (report["peak_host_bytes"], report["peak_host_phase"], report["peak_gpu_bytes"],
            report["peak_gpu_phase"]) == (300, "build", None, None)
    tracker.allocated(40)
    tracker.freed(40)
    peaks.after("solve")
    tracker.allocated(20)
    peaks.after("check")
    report = peaks.report()
    assert (report["peak_host_bytes"], report["peak_host_phase"], report["peak_gpu_bytes"],
            report["peak_gpu_phase"]) == (300, "build", 40, "solve")
    assert report["by_phase"] == [
        {"phase": "read", "host_bytes": 100, "gpu_bytes": None},
        {"phase": "build", "host_bytes": 300, "gpu_bytes": None},
        {"phase": "solve", "host_bytes": 300, "gpu_bytes": 40},
        {"phase": "check", "host_bytes": 250, "gpu_bytes": 20}]


def test_the_gpu_peak_counts_from_the_command_that_watches_it(monkeypatch):
    monkeypatch.setattr(memory, "peak_rss", lambda: 100)
    tracker = memory.GpuTracker()
    monkeypatch.setattr(memory, "GPU", tracker)
    tracker.allocated(80)  # an earlier command in the same process, since freed
    tracker.freed(80)
    peaks = memory.PhasePeaks()
    peaks.after("solve")
    assert peaks.report()["peak_gpu_bytes"] is None


def test_a_wide_graph_needs_12_bytes_an_arc_and_4_a_vertex_more():
    """rev (per residual arc), arc_of_input and first hold int64 arc numbers: 4 bytes more
    each per residual arc, input arc and vertex."""
    narrow = memory.residual_bytes(1000, 5000, np.int32)
    assert narrow == memory.residual_bytes(1000, 5000) == 36 * 5000 + 16 * 1000
    assert memory.residual_bytes(1000, 5000, np.int64) - narrow == 12 * 5000 + 4 * 1000


def test_too_little_gives_what_is_available_only_where_it_falls_short(monkeypatch):
    monkeypatch.setattr(memory, "available", lambda: 1000)
    assert (memory.too_little(1001), memory.too_little(1000)) == (1000, None)
    monkeypatch.setattr(memory, "available", lambda: None)
    assert memory.too_little(10**18) is None


def test_touch_writes_every_array():
    arrays = [np.full(3, 7, np.int32), np.full(2, -1, np.int64)]
    memory.touch(arrays)
    assert [array.tolist() for array in arrays] == [[0, 0, 0], [0, 0]]
