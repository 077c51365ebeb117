"""`maxflow bench` refuses what would destroy its inputs, exhaust memory or crash on bad data,
prints on any console encoding and says what it does when off a terminal."""

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures import DATA
from test_bench_external import program, run_once

from maxflow_cli.bench import report, results
from maxflow_cli.bench.external import RunFailed
from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.bench.runner import choose_solvers, default_solvers
from maxflow_cli.cli import main
from maxflow_cli.errors import InputError, ParameterError
from maxflow_cli.kernels import devices
from maxflow_cli.registry import solvers

TINY = "genrmf:a=3,b=4,seed=1..2"
FAST = ("--repeat", "2", "--warmup", "0", "--min-time", "0")


def bench(*args):
    return CliRunner().invoke(main, ["bench", *args], env={"COLUMNS": "300"})


def one_error_line(result, message: str) -> None:
    """Exit 2 and one `maxflow: error:` line holding `message`, no traceback."""
    errors = [line for line in result.output.splitlines() if line.startswith("maxflow: error:")]
    assert result.exit_code == 2, result.output
    assert len(errors) == 1 and message in errors[0], result.output
    assert "Traceback" not in result.output


@pytest.fixture
def instance(tmp_path):
    """A copy of clrs.max, and a symlink to it."""
    path = tmp_path / "in.max"
    shutil.copy(DATA / "clrs.max", path)
    os.symlink(path, tmp_path / "link.max")
    return path


# 2: no output on an input


@pytest.mark.parametrize("option", ["--json", "--csv", "--plot"])
@pytest.mark.parametrize("name", ["in.max", "link.max"])
def test_an_output_on_an_instance_is_refused_before_any_run(instance, option, name):
    before = instance.read_bytes()
    result = bench(str(instance.parent / name), *FAST, "--solvers", "hipr", option, str(instance))
    one_error_line(result, f"{option} {instance} is the input file")
    assert instance.read_bytes() == before and "hipr (s)" not in result.output


def test_an_output_on_an_external_program_is_refused(tmp_path):
    solver = program(tmp_path, "solver", "print('s 23')\n")
    before = open(solver, "rb").read()
    result = bench(str(DATA / "clrs.max"), *FAST, "--solvers", "hipr",
                   "--external", f"x={solver} -v", "--csv", solver)
    one_error_line(result, f"--csv {solver} is the input file")
    assert open(solver, "rb").read() == before


def test_an_output_not_yet_there_is_no_input(tmp_path):
    result = bench(str(DATA / "clrs.max"), *FAST, "--solvers", "hipr", "--json",
                   str(tmp_path / "new.json"))
    assert result.exit_code == 0, result.output


# 3: a signal, or our end, ends an external program's whole process group


def marked_processes(marker: bytes) -> dict[int, bytes]:
    """The live processes whose environment holds ``marker``: pid -> command name."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                found[int(entry.name)] = (entry / "comm").read_bytes().strip()
        except (OSError, ValueError):
            continue
    return found


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_signal_ends_the_external_programs_group_with_us(signum, tmp_path):
    """The program (a shell) and what it started (two sleeps) end with us at once, even where
    SIGKILL leaves us no time to end them (issue 27, item 3: the group was orphaned). Run
    outside the checkout, whose maxflow_cli/ would shadow the installed package."""
    marker = f"MAXFLOW_TEST_GROUP={os.getpid()}-{time.monotonic_ns()}"
    command = "h=sh -c 'sleep 1000 & sleep 1000; wait'"
    job = subprocess.Popen([sys.executable, "-m", "maxflow_cli", "bench", str(DATA / "clrs.max"),
                            "--solvers", "hipr", "--min-time", "0", "--repeat", "1",
                            "--external", command],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=os.environ | dict([marker.split("=")]), start_new_session=True,
                           cwd=tmp_path)
    try:
        deadline = time.monotonic() + 300
        while list(marked_processes(marker.encode()).values()).count(b"sleep") < 2:
            assert job.poll() is None, job.communicate()
            assert time.monotonic() < deadline, "the program never started"
            time.sleep(0.02)
        job.send_signal(signum)
        started = time.monotonic()
        _, errors = job.communicate(timeout=60)
        waited = time.monotonic() - started
        while marked_processes(marker.encode()) and time.monotonic() < started + 5:
            time.sleep(0.02)  # SIGKILL: the guardian ends the group once the kernel tells it
        left = marked_processes(marker.encode())
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == {}, f"still running after we ended: {left}"
    if signum != signal.SIGKILL:
        word = "interrupted" if signum == signal.SIGINT else "terminated"
        assert (job.returncode, errors.splitlines()[-1]) == (128 + signum,
                                                             f"maxflow: error: {word}")
        assert waited < 10


# 4: compare reads regular files of a bounded size


def test_compare_refuses_a_device(tmp_path):
    old = tmp_path / "old.json"
    assert bench(TINY, *FAST, "--solvers", "hipr", "--json", str(old)).exit_code == 0
    one_error_line(bench("compare", str(old), "/dev/zero"), "/dev/zero: not a regular file")


def test_compare_refuses_a_file_past_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "MAX_DOCUMENT_BYTES", 100)
    path = tmp_path / "big.json"
    path.write_text(" " * 101 + "{}")
    with pytest.raises(InputError, match="larger than 100 bytes"):
        results.load(str(path))


# 5: a spec's size is counted before it is expanded


@pytest.mark.parametrize("text", ["genrmf-wide-12:seed=1..100000000",
                                  "genrmf:a=3..1000,b=4..1000,seed=1..1000"])
def test_a_huge_spec_is_refused_before_it_is_expanded(text):
    started = time.perf_counter()
    with pytest.raises(ParameterError, match="instances; at most 100,000"):
        parse_instance(text)
    assert time.perf_counter() - started < 1


def test_a_huge_spec_is_one_line_on_the_command_line():
    one_error_line(bench("genrmf-wide-12:seed=1..100000000"), "100,000,000 instances")


# 8: compare validates what it reads


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    path = tmp_path_factory.mktemp("docs") / "good.json"
    assert bench(TINY, *FAST, "--solvers", "hipr", "--json", str(path)).exit_code == 0
    return json.loads(path.read_text())


@pytest.mark.parametrize("field, value, message", [
    ("mad", None, "result 1: 'mad': expected a finite number >= 0"),
    ("median", "0.1", "result 1: 'median': expected a finite number > 0 or null"),
    ("median", 0, "result 1: 'median': expected a finite number > 0 or null"),
    ("median", -1.0, "result 1: 'median': expected a finite number > 0 or null"),
    ("median", float("nan"), "result 1: 'median': expected a finite number > 0 or null"),
    ("median", True, "result 1: 'median': expected a finite number > 0 or null"),
    ("instance", ["a"], "result 1: 'instance': expected a string"),
    ("samples", [1.0, -1.0], "result 1: 'samples': expected a list of finite numbers >= 0"),
    ("samples", "1 2", "result 1: 'samples': expected a list of finite numbers >= 0"),
])
def test_compare_refuses_a_malformed_result(good, tmp_path, field, value, message):
    doc = json.loads(json.dumps(good))
    doc["results"][0][field] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    old = tmp_path / "old.json"
    old.write_text(json.dumps(good))
    one_error_line(bench("compare", str(old), str(path)), f"{path}: {message}")


@pytest.mark.parametrize("change, message", [
    (lambda doc: doc["results"].__setitem__(0, ["x"]), "result 1: expected an object"),
    (lambda doc: doc["environment"].__setitem__("cpu", "x"),
     "'environment.cpu': expected an object"),
    (lambda doc: doc["environment"].__setitem__("gpus", [1]),
     "'environment.gpus': expected a list of objects"),
    (lambda doc: doc["environment"].__setitem__("git", {"commit": 5, "dirty": False}),
     "'environment.git.commit': expected a string"),
])
def test_compare_refuses_a_malformed_document(good, tmp_path, change, message):
    doc = json.loads(json.dumps(good))
    change(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    one_error_line(bench("compare", str(path), str(path)), message)


@pytest.mark.parametrize("text", ["[" * 100_000, '{"a": ' * 100_000])
def test_compare_refuses_deep_nesting_in_one_line(tmp_path, text):
    path = tmp_path / "deep.json"
    path.write_text(text)
    one_error_line(bench("compare", str(path), str(path)), "nested too deeply")


# 10: any console encoding


def test_compare_prints_ascii_where_the_stream_is_ascii(good, tmp_path):
    doc = json.loads(json.dumps(good))
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    for entry in doc["results"]:
        entry["median"], entry["mad"], entry["samples"] = 1.0, 0.1, [1.0]
    old.write_text(json.dumps(doc))
    new.write_text(json.dumps(doc))
    result = subprocess.run([sys.executable, "-m", "maxflow_cli", "bench", "compare", str(old),
                             str(new)], capture_output=True, cwd=tmp_path,  # the installed package
                            env=os.environ | {"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr.decode()
    assert b"~ noise" in result.stdout and b"-" in result.stdout


def test_the_fallbacks_cover_the_marks():
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")  # strict: raises on what it cannot encode
    report.console_for(stream).print(f"{report.FASTEST} \u2248 \u2014 \u00b1 \u2603",
                                     highlight=False)
    stream.flush()
    assert raw.getvalue().decode().strip() == "* ~ - +/- ?"


# 12: external times are finite and non-negative


@pytest.mark.parametrize("cut", ["nan", "-5", "inf"])
def test_a_bad_cut_time_fails_the_run(tmp_path, cut):
    solver = program(tmp_path, "solver", f"import sys\nsys.stdin.read()\n"
                                         f"print('c flow: 23\\nc cut tm: {cut}')\n")
    with pytest.raises(RunFailed, match=f"cut time that is not a finite number >= 0: '{cut}'"):
        run_once(solver)


def test_a_bad_cut_time_is_a_problem_row_and_exit_1(tmp_path):
    solver = program(tmp_path, "solver", "import sys\nsys.stdin.read()\n"
                                         "print('c flow: 23\\nc cut tm: nan')\n")
    out = tmp_path / "r.json"
    result = bench(str(DATA / "clrs.max"), *FAST, "--solvers", "hipr", "--external",
                   f"x={solver}", "--json", str(out))
    assert result.exit_code == 1 and "cut time that is not a finite number" in result.output
    json.loads(out.read_text(), parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))


# 14: a GPU solver runs on the GPU; its CPU twin only where named


GPU_SOLVERS = [name for name, spec in solvers().items()
               if "gpu" in spec.devices and not spec.falls_back_to_cpu]


@pytest.mark.parametrize("name", GPU_SOLVERS)
def test_a_gpu_solver_without_a_gpu_is_refused_unless_its_twin_is_named(monkeypatch, name):
    """Issue 27, item 14: `bench --solvers gpu-sync` ran gpu-sync@cpu on a GPU-less machine."""
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: "no NVIDIA driver: test")
    result = bench(str(DATA / "clrs.max"), *FAST, "--solvers", name)
    one_error_line(result, f"solver '{name}' cannot run here: no NVIDIA driver: test; "
                           f"{name}@cpu runs its CPU twin")
    result = bench(str(DATA / "clrs.max"), *FAST, "--solvers", f"{name}@cpu")
    assert result.exit_code == 0 and f"{name}@cpu" in result.output, result.output


def test_auto_runs_on_the_cpu_without_a_gpu(monkeypatch):
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: "no NVIDIA driver: test")
    result = bench(str(DATA / "clrs.max"), *FAST, "--solvers", "auto")
    assert result.exit_code == 0 and "auto@cpu" in result.output, result.output


@pytest.mark.parametrize("missing", [None, "PyCUDA is not installed: test"])
def test_the_default_solvers_hold_gpu_solvers_only_where_a_gpu_can_run(monkeypatch, missing):
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: missing)
    names = default_solvers()
    listed = {name for name in GPU_SOLVERS if solvers()[name].in_default_bench}
    assert listed and (listed <= set(names) if missing is None else not listed & set(names))
    assert {"hipr", "hipr-forward", "lockfree"} <= set(names)
    if missing is None:  # the GPU is the device the configuration names: no "@cpu"
        choice = choose_solvers("gpu-sync", "hipr", False)[1]
        assert (choice.label, choice.device) == ("gpu-sync", "gpu")


# 16: a line per finished cell off a terminal


def test_off_a_terminal_each_finished_cell_is_a_line_on_stderr(tmp_path):
    result = bench(TINY, *FAST, "--solvers", "hipr,hipr:alpha=3", "--json",
                   str(tmp_path / "r.json"))
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("maxflow: bench: ")]
    assert lines[0].startswith("maxflow: bench: compiling")
    cells = [line for line in lines if " s (median of 2 runs)" in line]
    assert len(cells) == 4
    assert cells[0].startswith("maxflow: bench: 1/4 genrmf:a=3,b=4,seed=1 hipr: ")
    assert "hipr (s)" not in result.stderr
