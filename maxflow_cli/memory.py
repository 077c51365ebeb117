"""Memory a request needs, checked against what the machine has before the memory is asked
for: a network too large for this machine is refused in a moment, with the figures, instead of
failing after seconds of allocation (or being killed by the kernel); and the peak memory a
benchmark run used, on the host and on the GPU."""

import resource
import sys
import threading

import numpy as np

from maxflow_cli.errors import MaxflowError
from maxflow_cli.limits import arc_index_type

NETWORK_BYTES_PER_ARC = 16
"""A Network's arrays: tail and head (int32) and capacity (int64) per arc."""


def residual_bytes(n: int, m: int, arc_type=None) -> int:
    """The least memory building a residual graph of the network and solving on it adds to the
    network's own: the graph's forward-star arrays (first, head, rev, arc_of_input: 20 m +
    4 n with int32 arc indices, 32 m + 8 n with int64; the capacities are the network's),
    then either the builder's transient placement arrays (8 m + 8 n) or the preflow state
    every solver keeps (residuals, excesses, labels: 16 m + 12 n), the larger. Solvers add
    their own. Arc indices are `arc_type`s (None: limits.arc_index_type)."""
    index = np.dtype(arc_type or arc_index_type(m)).itemsize
    graph = (8 + 3 * index) * m + index * n  # head and rev per residual arc, arc_of_input, first
    return graph + 16 * m + 12 * n


def available() -> int | None:
    """Bytes this process can still allocate without swapping: the kernel's MemAvailable,
    lowered by a cgroup limit where one is set; None where neither can be read."""
    figures = []
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    figures.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as limit, \
                open("/sys/fs/cgroup/memory.current") as current:
            figures.append(int(limit.read()) - int(current.read()))
    except (OSError, ValueError):  # no cgroup v2 limit ("max" reads as ValueError)
        pass
    return min(figures) if figures else None


def too_little(needed: int) -> int | None:
    """The bytes available where they are fewer than `needed`; None where they suffice or
    cannot be read."""
    free = available()
    return free if free is not None and needed > free else None


def require(needed: int, what: str) -> None:
    """Raise a MaxflowError saying so when `needed` bytes exceed what is available."""
    if (free := too_little(needed)) is not None:
        raise MaxflowError(f"{what} needs about {human_bytes(needed)} of memory; "
                           f"this machine has {human_bytes(free)} available")


def touch(arrays) -> None:
    """Write each array once (zeros): a fresh allocation's pages come in at their first
    write, the kernel's faults, which would otherwise fall on a solve's clock."""
    for array in arrays:
        array.fill(0)


def human_bytes(size: int) -> str:
    """A byte count as '780 kB', '35 MB', '1.2 GB'."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            digits = 1 if size < 10 * scale else 0
            return f"{size / scale:.{digits}f} {unit}"
    return f"{size} B"


# Peak memory of a benchmark run (maxflow bench: peak_host_bytes, peak_gpu_bytes).

CLEAR_REFS = "/proc/self/clear_refs"
STATUS = "/proc/self/status"


def maxrss_bytes(maxrss: int) -> int:
    """``ru_maxrss`` in bytes: Linux counts KiB, macOS bytes."""
    return maxrss if sys.platform == "darwin" else maxrss * 1024


RESET_SLACK = 4 * 2**20
"""How far the peak may stand above the resident set just after a reset that worked."""


def reset_peak_rss(path: str = CLEAR_REFS, status: str = STATUS) -> bool:
    """Reset this process's peak resident set (VmHWM) to its current one, as Linux does when
    "5" is written to /proc/self/clear_refs; False where that cannot be done, or where the
    write is taken but the peak stays (some sandboxed kernels)."""
    try:
        with open(path, "w") as stream:
            stream.write("5")
    except OSError:
        return False
    peak, resident = _status_bytes("VmHWM:", status), _status_bytes("VmRSS:", status)
    return peak is not None and resident is not None and peak <= resident + RESET_SLACK


def _status_bytes(field: str, path: str) -> int | None:
    """A ``kB`` field of /proc/self/status in bytes; None where it cannot be read."""
    try:
        with open(path) as status:
            for line in status:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def peak_rss(path: str = STATUS) -> int:
    """This process's peak resident set in bytes: VmHWM (since the last reset_peak_rss) where
    /proc/self/status has it, else ru_maxrss (the peak since the process started)."""
    peak = _status_bytes("VmHWM:", path)
    return peak if peak is not None else \
        maxrss_bytes(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


class GpuTracker:
    """The bytes of GPU memory our code holds: the kernels' allocation helper
    (kernels.devices.GpuDevice) adds what it asks the driver for and subtracts what it frees.
    ``peak`` is the most held at once since ``reset``; None when no GPU memory was held since
    then (no GPU ran). The CUDA context, the kernels' code and the driver's own memory are not
    counted."""

    def __init__(self):
        self._lock = threading.Lock()
        self.current = self._peak = 0
        self._used = False

    def allocated(self, nbytes: int) -> None:
        with self._lock:
            self.current += nbytes
            self._peak = max(self._peak, self.current)
            self._used = True

    def freed(self, nbytes: int) -> None:
        with self._lock:
            self.current -= nbytes

    def reset(self) -> None:
        """Start a new peak from what is held now."""
        with self._lock:
            self._peak, self._used = self.current, self.current > 0

    @property
    def peak(self) -> int | None:
        return self._peak if self._used else None


GPU = GpuTracker()
"""The tracker the GPU devices report to."""


class PhasePeaks:
    """A command's peaks phase by phase: ``after(phase)`` notes the peak resident set and the
    GPU peak of the phase that just ended, then starts the next phase's from what is held now
    (reset_peak_rss, GpuTracker.reset). Where the host peak cannot be reset, a phase's counts
    from the start of the process, so that it is still the command's peak so far. The
    command's peak is the largest, placed in the first phase that reached it; the GPU peak
    counts from here (what an earlier command in the same process held is not this one's)."""

    def __init__(self):
        GPU.reset()
        self.phases: list[tuple[str, int, int | None]] = []  # phase, host, GPU peak (None: no GPU)

    def after(self, phase: str) -> None:
        self.phases.append((phase, peak_rss(), GPU.peak))
        reset_peak_rss()
        GPU.reset()

    def report(self) -> dict:
        """peak_host_bytes, peak_host_phase, peak_gpu_bytes, peak_gpu_phase (None: no GPU),
        and by_phase: each phase's own peaks in the order they ran."""
        host = max(self.phases, key=lambda entry: entry[1], default=(None, 0, None))
        used = [entry for entry in self.phases if entry[2] is not None]
        gpu = max(used, key=lambda entry: entry[2], default=(None, 0, None))
        return {"peak_host_bytes": host[1], "peak_host_phase": host[0],
                "peak_gpu_bytes": gpu[2], "peak_gpu_phase": gpu[0],
                "by_phase": [{"phase": phase, "host_bytes": host_bytes, "gpu_bytes": gpu_bytes}
                             for phase, host_bytes, gpu_bytes in self.phases]}
