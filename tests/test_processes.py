"""processes.ProcessGroup: a child program and everything it starts in its group end with the
`with` block, by its stop signal first; its status and measures come back."""

import os
import signal
import subprocess
import sys
import time

import pytest

from maxflow_cli.processes import ProcessGroup


def _state(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state, ppid, pgrp, ...)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie counts as ended)."""
    try:
        return _state(pid)[0] != "Z"
    except FileNotFoundError:
        return False


def group_members(pgid: int) -> list[int]:
    """The live processes (zombies, not yet reaped by init, left out) of group `pgid`."""
    members = []
    for entry in os.listdir("/proc"):
        try:
            fields = _state(int(entry))
        except (ValueError, OSError):
            continue
        if fields[2] == str(pgid) and fields[0] != "Z":
            members.append(int(entry))
    return members


def test_the_status_comes_back_and_a_signal_is_128_plus_it():
    with ProcessGroup(["sh", "-c", "exit 3"]) as group:
        assert group.wait(60)
    assert group.returncode == 3
    with ProcessGroup(["sh", "-c", "kill -9 $$"]) as group:
        assert group.wait(60)
    assert group.returncode == 128 + signal.SIGKILL


def test_what_the_program_left_in_its_group_is_killed_at_the_end(tmp_path):
    pid_file = tmp_path / "pid"
    with ProcessGroup(["sh", "-c", f"sleep 1000 & echo $! > {pid_file}"]) as group:
        assert group.wait(60)
        left = int(pid_file.read_text())
        assert alive(left)  # the program ended; its background child has not
    deadline = time.monotonic() + 5
    while alive(left) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(left)


def test_an_exception_stops_the_group_with_its_stop_signal_first(tmp_path):
    log = tmp_path / "log"
    script = f"trap 'echo stopped > {log}; exit 7' TERM; echo ready > {log}; " \
             "while :; do sleep 0.05; done"
    with pytest.raises(KeyboardInterrupt):
        with ProcessGroup(["sh", "-c", script], stop=signal.SIGTERM, grace=30) as group:
            while not log.exists():
                time.sleep(0.01)
            raise KeyboardInterrupt
    assert group.returncode == 7 and log.read_text() == "stopped\n"


def test_a_timeout_returns_false_and_the_group_dies_with_the_block():
    started = time.monotonic()
    with ProcessGroup(["sleep", "1000"]) as group:
        assert not group.wait(0.2)
        leader = group.process.pid
    assert time.monotonic() - started < 10
    assert group.returncode == -signal.SIGKILL and not alive(leader)  # the guardian too
    deadline = time.monotonic() + 5  # SIGKILL is sent; a process takes a moment to end
    while group_members(leader) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert group_members(leader) == []


def test_the_guardian_reports_status_wall_time_peak_memory_and_cpu_time(tmp_path):
    with open(tmp_path / "report", "w+") as report:
        with ProcessGroup(["sleep", "0.2"], report=report) as group:
            assert group.wait(60)
        report.seek(0)
        code, wall, maxrss, user = report.read().split()
    assert (group.returncode, int(code)) == (0, 0)
    assert 0.2 <= float(wall) < 5 and int(maxrss) > 0 and float(user) < 0.1


def test_the_guardian_reports_the_programs_user_cpu_time(tmp_path):
    spin = "import resource\nwhile resource.getrusage(resource.RUSAGE_SELF).ru_utime < 0.3: pass"
    with open(tmp_path / "report", "w+") as report:
        with ProcessGroup([sys.executable, "-c", spin], report=report) as group:
            assert group.wait(60)
        report.seek(0)
        wall, user = report.read().split()[1::2]
    assert 0.2 <= float(user) <= float(wall)


def test_the_group_ends_by_its_stop_signal_when_we_are_killed_outright(tmp_path):
    """SIGKILL leaves us no time: the guardian, told by Linux, stops the group itself."""
    log = tmp_path / "log"
    script = f"trap 'echo stopped > {log}; exit 7' TERM; echo ready > {log}; " \
             "while :; do sleep 0.05; done"
    owner = subprocess.Popen([sys.executable, "-c", OWNER, script], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert owner.stdout.readline() == "started\n"
        deadline = time.monotonic() + 60
        while not log.exists() or log.read_text() != "ready\n":
            assert time.monotonic() < deadline
            time.sleep(0.01)
        owner.kill()
        owner.wait()
        while log.read_text() != "stopped\n" and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        owner.kill()
    assert log.read_text() == "stopped\n"


OWNER = """
import signal, sys, time
from maxflow_cli.processes import ProcessGroup
ProcessGroup(["sh", "-c", sys.argv[1]], stop=signal.SIGTERM, grace=30).__enter__()
print("started", flush=True)
time.sleep(1000)
"""
