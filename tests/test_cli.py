"""The command group's handling of what goes wrong around any command: signals, a failing
stdout. Signals are sent to subprocesses, never to the test process."""

import errno
import io
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner
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
first = residual._first

@numba.njit
def interrupted_first(tails, heads, offsets):
    kill(getpid(), {signum})  # arrives while compiled code runs, as a Ctrl-C would
    return first(tails, heads, offsets)

residual._first = interrupted_first
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


SP_GRAPH = "p sp 3 2\na 1 2 1\na 2 3 1\n"
FAST_BENCH = ("--solvers", "hipr", "--repeat", "1", "--warmup", "0", "--min-time", "0")


@pytest.fixture
def results_file(tmp_path):
    """A `maxflow bench --json` results file, for `bench compare`."""
    path = tmp_path / "run.json"
    outcome = main(["bench", CLRS, *FAST_BENCH, "--json", str(path)], standalone_mode=False)
    assert outcome is None and path.exists()
    return path


def _every_command(tmp_path, results_file):
    """One invocation of each command that prints on stdout."""
    graph = tmp_path / "g.sp"
    graph.write_text(SP_GRAPH)
    return {"solve": ["solve", CLRS], "paths": ["paths", str(graph)],
            "bench": ["bench", CLRS, *FAST_BENCH], "bench-list-suites": ["bench", "--list-suites"],
            "bench-compare": ["bench", "compare", str(results_file), str(results_file)],
            "gen": ["gen", "genrmf", "--a", "2", "--b", "2", "--seed", "1"]}


@pytest.mark.parametrize("command", ["solve", "paths", "bench", "bench-list-suites",
                                     "bench-compare", "gen"])
def test_a_pipe_closed_early_is_quiet_for_every_command(tmp_path, results_file, command):
    reading, writing = os.pipe()
    os.close(reading)  # as `| head -1` does once it has its line
    try:
        done = subprocess.run([*MAXFLOW, *_every_command(tmp_path, results_file)[command]],
                              stdout=writing, stderr=subprocess.PIPE, text=True, timeout=300,
                              cwd=tmp_path)
    finally:
        os.close(writing)
    assert (done.returncode, done.stderr) == (BROKEN_PIPE_EXIT, "")


@pytest.mark.parametrize("columns", ["0", "00", "-3", "wide", ""])
@pytest.mark.parametrize("command", ["solve", "paths", "bench", "bench-compare"])
def test_a_columns_that_is_no_positive_width_counts_as_unset(tmp_path, results_file, command,
                                                             columns):
    args = _every_command(tmp_path, results_file)[command]
    expected = CliRunner().invoke(main, args, env={"COLUMNS": None})
    outcome = CliRunner().invoke(main, args, env={"COLUMNS": columns})
    assert outcome.exit_code == expected.exit_code == 0, outcome.output
    assert len(outcome.output.splitlines()) == len(expected.output.splitlines()) > 1


def test_a_full_disk_on_stdout_names_stdout(tmp_path):
    with open("/dev/full", "wb") as full:
        done = subprocess.run([*MAXFLOW, "solve", CLRS], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=300, cwd=tmp_path)
    assert (done.returncode, done.stderr) == \
        (1, "maxflow: error: cannot write to stdout: No space left on device\n")


def test_a_float_option_without_bounds_shows_no_range_in_help():
    from maxflow_cli.commands import FiniteFloat
    assert FiniteFloat()._describe_range() == "" and FiniteFloat(0)._describe_range() == "x>=0"
    result = CliRunner().invoke(main, ["solve", "--help"])
    assert result.exit_code == 0 and "None" not in result.output
