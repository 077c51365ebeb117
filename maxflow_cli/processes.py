"""Child programs that end with us: the one process-group helper behind ``bench --external``
programs and the ``mpi`` solver's mpiexec.

``ProcessGroup(argv)`` runs ARGV under GUARDIAN, a small Python process that leads a session
(and so a process group) of its own: a terminal's Ctrl-C reaches only us, and we end the
program together with everything it started in its group. Leaving the ``with`` block by any
exception (Ctrl-C, SIGTERM, a timeout) sends the group ``stop`` (SIGKILL for an external
program; SIGTERM for mpiexec, which ends the ranks it started in sessions of their own), waits
up to ``grace`` seconds, then sends SIGKILL, and reaps the guardian before the exception goes
on; after a normal end, whatever the program left running in its group is killed too. Where
we die without unwinding (SIGKILL, a crash), Linux tells the guardian (PR_SET_PDEATHSIG) and
it ends the group the same way. The guardian measures the program too: with ``report`` (an
open file) it writes there the program's exit status, wall seconds, ``ru_maxrss`` and user CPU
seconds.
"""

import contextlib
import os
import select
import signal
import subprocess
import sys
import time

GUARDIAN = """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)  # our stop signal is for the program
signal.signal(signal.SIGTERM, signal.SIG_IGN)
parent, stop, grace, report = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
argv = sys.argv[5:]
try:
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
except OSError:
    pass
if report != "-":
    os.set_inheritable(int(report), False)  # not the program's
    report = os.fdopen(int(report), "w")
started = time.perf_counter()
try:
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          setsigdef=(signal.SIGINT, signal.SIGTERM))
except OSError as error:
    if report != "-":
        report.write("error " + (error.strerror or str(error)))
    print(f"cannot start {argv[0]}: {error.strerror or error}", file=sys.stderr)
    raise SystemExit(127)

def end_group(*_):
    try:
        os.killpg(0, stop)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and os.waitpid(pid, os.WNOHANG) == (0, 0):
            time.sleep(0.05)
    except OSError:
        pass  # the program was reaped already
    finally:
        os.killpg(0, signal.SIGKILL)

signal.signal(signal.SIGUSR1, end_group)
try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGUSR1)  # PR_SET_PDEATHSIG
except (OSError, AttributeError):
    pass  # not Linux: no guard against a parent killed outright
if os.getppid() != parent:
    end_group()
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - started
code = os.waitstatus_to_exitcode(status)
if report != "-":
    report.write(f"{code} {wall!r} {usage.ru_maxrss} {usage.ru_utime!r}")
raise SystemExit(code if code >= 0 else 128 - code)
"""
"""``python -I -S -c GUARDIAN PARENT STOP GRACE REPORT ARGV...``: spawns ARGV in its own
process group (its leader's) with SIGINT and SIGTERM at their defaults, ends the group when
PARENT dies, waits and exits with the program's status (128 + N for a signal N). REPORT is a
file descriptor for '<status> <wall seconds> <ru_maxrss> <ru_utime>' (or 'error <why>'), or
'-'.

Its wall time runs from the program's start to its end, not the guardian's own start; its
``ru_utime`` (user CPU seconds, of the processes it waited for too) and ``ru_maxrss`` come
from os.wait4 (Popen would reap with waitpid, which gives none;
RUSAGE_CHILDREN's is the largest child ever reaped). The guardian is a small process of its
own because Linux starts a program's ru_maxrss at the peak resident set of the process that
started it: the guardian's few MB (its floor, about 9 MB), its peak reset before the spawn,
rather than this benchmark's hundreds (the interpreter, numba, the instance's graph)."""


class ProcessGroup:
    """``argv`` run under GUARDIAN in a process group of its own, ended with us (see the
    module docstring). Popen's keyword arguments (stdin, stdout, cwd, pass_fds...) pass on."""

    def __init__(self, argv, stop: int = signal.SIGKILL, grace: float = 0.0, report=None,
                 **options):
        self.argv, self.stop, self.grace, self.report = list(argv), stop, grace, report
        self.options = options
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "ProcessGroup":
        report = "-" if self.report is None else str(self.report.fileno())
        fds = tuple(self.options.pop("pass_fds", ())) + (
            (self.report.fileno(),) if self.report is not None else ())
        command = [sys.executable, "-I", "-S", "-c", GUARDIAN, str(os.getpid()),
                   str(int(self.stop)), repr(self.grace), report, *self.argv]
        signals = {signal.SIGINT, signal.SIGTERM}
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
        try:  # a signal now waits until the group is known, so that it ends the group too
            self.process = subprocess.Popen(command, start_new_session=True, pass_fds=fds,
                                            **self.options)
        finally:
            try:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            except BaseException:
                self.end()
                raise
        return self

    def __exit__(self, *exception) -> None:
        self.end()

    @property
    def returncode(self) -> int | None:
        """The guardian's exit status once ended: the program's (128 + N for a signal N)."""
        return self.process.returncode

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the program's end, up to ``timeout`` seconds (None: no limit); whether it
        ended. The guardian is left unreaped, so its group id stays ours to signal."""
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            watch = os.pidfd_open(self.process.pid)
        except (AttributeError, OSError):  # before Linux 5.3: poll
            watch = None
        try:
            while not self._ended():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                if watch is None:
                    time.sleep(0.01 if left is None else min(0.01, left))
                else:
                    select.select([watch], [], [], left)
            return True
        finally:
            if watch is not None:
                os.close(watch)

    def _ended(self) -> bool:
        if self.process.returncode is not None:
            return True
        try:
            found = os.waitid(os.P_PID, self.process.pid,
                              os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return found is not None

    def _signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signum)

    def end(self) -> None:
        """Stop the group if it runs (``stop``, up to ``grace`` seconds, then SIGKILL), kill
        what the program left in it, and reap the guardian."""
        if self.process is None:
            return
        try:
            if not self._ended():
                self._signal(self.stop)
                if self.stop != signal.SIGKILL:
                    self.wait(self.grace)
        finally:
            if self.process.returncode is None:
                self._signal(signal.SIGKILL)
                self.process.wait()
