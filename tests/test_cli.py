"""The command group's handling of what goes wrong around any command: signals, a failing
stdout. Signals are sent to subprocesses, never to the test process."""

import errno
import io
import signal
import subprocess
import sys
import time

import pytest
from fixtures import DATA

from maxflow_cli.cli import BROKEN_PIPE_EXIT, main

CLRS = str(DATA / "clrs.max")
MAXFLOW = [sys.executable, "-m", "maxflow_cli"]
"""Run with cwd outside the checkout, so that the installed package is imported: the checkout's
maxflow_cli/ lacks the generators and kernels subpackages that installing maps in."""


def test_sigterm_while_writing_removes_the_temporary_file(tmp_path):
    output = tmp_path / "big.max"
    process = subprocess.Popen([*MAXFLOW, "gen", "acyclic-dense", "--n", "1500", "--seed", "1",
                                "-o", str(output)], stderr=subprocess.PIPE, text=True,
                               cwd=tmp_path.parent)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".maxflow-*.tmp")) and process.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    process.send_signal(signal.SIGTERM)
    stderr = process.communicate(timeout=120)[1]
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert stderr == "maxflow: error: terminated\n"
    assert list(tmp_path.iterdir()) == []


INTERRUPTED_BUILD = """
import ctypes, os, sys
import numba
import maxflow_cli.residual as residual
from maxflow_cli.cli import run

libc = ctypes.CDLL(None)
kill, getpid = libc.kill, libc.getpid
kill.argtypes, kill.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
getpid.argtypes, getpid.restype = [], ctypes.c_int
build = residual._build

@numba.njit
def interrupted_build(n, tails, heads, caps):
    kill(getpid(), {signum})  # arrives while compiled code runs, as a Ctrl-C would
    return build(n, tails, heads, caps)

residual._build = interrupted_build
sys.argv = ["maxflow", "solve", sys.argv[1]]
run()
"""


@pytest.mark.parametrize("signum,message", [(signal.SIGINT, "interrupted"),
                                            (signal.SIGTERM, "terminated")])
def test_a_signal_while_compiled_code_runs_is_one_line(tmp_path, signum, message):
    """Numba's wrapper calls back into Python to box the arrays it returns; a signal taken
    there used to surface as 'SystemError: CPUDispatcher(...) returned a result with an
    exception set' and exit 1."""
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_BUILD.format(signum=int(signum)),
                           CLRS], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (128 + signum, f"maxflow: error: {message}\n")


class FullDisk(io.RawIOBase):
    """A stdout on a full disk: every write fails, as /dev/full's do."""

    full = True

    def writable(self):
        return True

    def write(self, data):
        if self.full:
            raise OSError(errno.ENOSPC, "No space left on device")
        return len(data)


@pytest.mark.parametrize("args", [
    ["solve", CLRS], ["solve", CLRS, "--json"], ["solve", CLRS, "--flow", "-"],
    ["gen", "genrmf", "--a", "3", "--b", "3", "--seed", "1"], ["gen", "--list-presets"],
    ["bench", "--list-suites"],
], ids=["solve", "solve-json", "solve-flow", "gen", "gen-list-presets", "bench-list-suites"])
def test_a_full_stdout_is_one_line_and_exit_1(monkeypatch, capsys, args):
    disk = FullDisk()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BufferedWriter(disk)))
    with pytest.raises(SystemExit) as exit:
        main(args)
    disk.full = False  # lets the stream close quietly when the test ends
    assert exit.value.code == 1
    assert capsys.readouterr().err == \
        "maxflow: error: cannot write to stdout: No space left on device\n"


def test_a_closed_pipe_is_quiet_and_exits_as_sigpipe_would(tmp_path):
    process = subprocess.Popen([*MAXFLOW, "gen", "acyclic-dense", "--n", "800", "--seed", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    process.stdout.readline()
    process.stdout.close()  # as `| head -1` does, with 5 MB still to come
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=300) == BROKEN_PIPE_EXIT
    assert stderr == ""
