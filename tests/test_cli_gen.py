"""`maxflow gen` end to end through click: output bytes, files, presets, help and errors."""

import bz2
import gzip
import lzma
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner
from fixtures import VECTORS

from maxflow_cli.cli import main
from maxflow_cli.commands import gen as gen_command
from maxflow_cli.generators import FAMILIES, PRESETS

CASES = [
    (["genrmf", "--a", "5", "--b", "7", "--seed", "1"], "genrmf_a5_b7_c1-1_c2-10000_seed1.max"),
    (
        ["washington-rlg", "--rows", "4", "--levels", "3", "--cap", "100", "--seed", "1"],
        "rlg_w4_l3_cap100_seed1.max",
    ),
    (
        ["acyclic-dense", "--n", "60", "--seed", "12345", "--original-format"],
        "ac_n60_seed12345.max",
    ),
]


def run(*args):
    return CliRunner().invoke(main, ["gen", *args])


@pytest.mark.parametrize("args, vector", CASES, ids=[c[0][0] for c in CASES])
def test_stdout_is_the_original_output(args, vector):
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == (VECTORS / vector).read_bytes()


def test_acyclic_dense_default_has_no_seed_line():
    result = run("acyclic-dense", "--n", "5", "--seed", "1")
    original = (VECTORS / "ac_n5_seed1.max").read_bytes()
    assert result.stdout_bytes == original.replace(b"s 1\n", b"")


@pytest.mark.parametrize(
    "suffix, opener", [("", open), (".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)]
)
def test_output_file_and_compression(tmp_path, suffix, opener):
    args, vector = CASES[0]
    target = tmp_path / f"out.max{suffix}"
    result = run(*args, "-o", str(target))
    assert result.exit_code == 0 and result.stdout_bytes == b""
    with opener(target, "rb") as stream:
        assert stream.read() == (VECTORS / vector).read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temporary left behind


def test_ctrl_c_while_compressing_xz_acts_at_once_and_leaves_nothing(tmp_path):
    """Issue 27, item 6: Ctrl-C took 30-39 s to act while xz compressed a 30 MB chunk in one
    call (preset 6); the compressor now gets 1 MiB at a time, at a fast preset. The signal
    comes half a second after the first compressed bytes: in the middle of a call."""
    target = tmp_path / "long.max.xz"
    job = subprocess.Popen([sys.executable, "-m", "maxflow_cli", "gen", "--preset",
                            "genrmf-long-48x384", "-o", str(target)],
                           stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 300
        while not any(path.stat().st_size for path in tmp_path.glob(".maxflow-*.tmp")):
            assert job.poll() is None, job.communicate()  # finished before any output
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(0.5)
        assert job.poll() is None, "finished before the signal: the output is too small"
        job.send_signal(signal.SIGINT)
        started = time.monotonic()
        errors = job.communicate(timeout=120)[1]
        waited = time.monotonic() - started
    finally:
        if job.poll() is None:
            job.kill()
    assert (job.returncode, errors.splitlines()[-1]) == (130, "maxflow: error: interrupted")
    assert waited < 8, f"{waited:.1f} s from Ctrl-C to exit"
    assert list(tmp_path.iterdir()) == []


def test_preset(tmp_path):
    target = tmp_path / "wide36.max"
    result = run("--preset", "genrmf-wide-36", "--seed", "3", "-o", str(target))
    assert result.exit_code == 0, result.output
    direct = run("genrmf", "--a", "36", "--b", "36", "--c1", "1", "--c2", "10000", "--seed", "3")
    assert target.read_bytes() == direct.stdout_bytes
    assert target.read_bytes().split(b"\n")[2] == b"p max   46656     226800"


def test_a_preset_defaults_to_seed_1_as_in_bench(tmp_path):
    result = run("--preset", "genrmf-wide-12")
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == run("--preset", "genrmf-wide-12", "--seed", "1").stdout_bytes


SMALLEST = {"genrmf": ["--a", "2", "--b", "2"], "acyclic-dense": ["--n", "3"],
            "washington-rlg": ["--rows", "3", "--levels", "2"],
            "washington": ["--function", "rlg", "--dim1", "3", "--dim2", "2"],
            "grid": ["--shape", "4x4", "--connectivity", "4"]}


@pytest.mark.parametrize("family", [name for name in FAMILIES if FAMILIES[name].seeded])
def test_every_family_defaults_to_seed_1_as_a_preset_does(family):
    result = run(family, *SMALLEST[family])
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == run(family, *SMALLEST[family], "--seed", "1").stdout_bytes
    assert "default 1)" in " ".join(run(family, "--help").output.split("--seed", 1)[1].split())


def test_list_presets():
    result = run("--list-presets")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "preset",
        "family",
        "parameters",
        "vertices",
        "arcs",
        "file",
        "size",
    ]
    assert len(lines) == 1 + len(PRESETS)
    row = next(line for line in lines if line.startswith("washington-rlg-long-1024x1536 "))
    assert (
        "--rows 1024 --levels 1536 --cap 10000" in row and "1,572,866" in row and "4,717,568" in row
    )
    assert "MB" in row


def test_help_lists_every_family_and_parameter():
    result = run("--help")
    assert result.exit_code == 0
    for family in FAMILIES.values():
        assert family.name in result.stdout
        for option in [p.option for p in family.parameters] + [f.option for f in family.flags]:
            assert option in result.stdout
    assert "--list-presets" in result.stdout and "--preset" in result.stdout


def test_large_output_is_announced_on_stderr(monkeypatch):
    monkeypatch.setattr(gen_command, "LARGE_OUTPUT", 1000)
    result = run(*CASES[0][0])
    assert result.exit_code == 0
    assert result.stderr == "maxflow: genrmf: 175 vertices, 710 arcs, about 21 kB\n"
    assert run(*CASES[1][0]).stderr == ""  # below the threshold: quiet


@pytest.mark.parametrize(
    "args, message",
    [
        (
            [
                "genrmf",
                "--a",
                "3",
                "--b",
                "2",
                "--c1",
                "9",
                "--c2",
                "5",
                "--seed",
                "1",
                "-o",
                "bad.max",
            ],
            "--c1 (9) must not",
        ),
        (["genrmf", "--a", "3", "--b", "2", "--c1", "-2", "--seed", "1"], "--c1 must be in [0,"),
        (["genrmf", "--a", "500", "--b", "2", "--seed", "1"], "c2 * a^2 = 2500000000"),
        (["genrmf", "--a", "0", "--b", "2", "--seed", "1"], "--a must be in [1,"),
        (
            ["washington-rlg", "--rows", "2", "--levels", "3", "--seed", "1"],
            "--rows must be in [3,",
        ),
        (["washington-rlg", "--rows", "60000", "--levels", "60000", "--seed", "1"], "too large"),
        (["acyclic-dense", "--n", "1", "--seed", "1"], "--n must be in [2,"),
        (["acyclic-dense", "--n", "100000", "--seed", "1"], "too large"),
        (["--preset", "genrmf-wide-37", "--seed", "1"], "unknown preset 'genrmf-wide-37'"),
        (["--seed", "4"], "need --preset or a family"),
        (["-o", "x.max", "genrmf", "--a", "3", "--b", "2", "--seed", "1"], "after the family name"),
    ],
)
def test_errors_exit_2_with_one_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith("maxflow: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [["genrmf", "--b", "2", "--seed", "1"], ["genrmf", "--a", "x", "--b", "2", "--seed", "1"]],
)
def test_click_usage_errors_exit_2(args):
    result = run(*args)
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_a_network_larger_than_the_memory_is_refused_before_anything_is_written(tmp_path,
                                                                                monkeypatch):
    from maxflow_cli import memory

    monkeypatch.setattr(memory, "available", lambda: 10**9)
    output = tmp_path / "big.max"
    result = run("acyclic-dense", "--n", "46000", "--seed", "1", "-o", str(output))
    assert result.exit_code == 2
    assert result.stderr == (
        "maxflow: error: acyclic-dense: 46,000 vertices and 1,057,977,000 arcs needs about "
        "17 GB of memory; this machine has 1.0 GB available\n")
    assert list(tmp_path.iterdir()) == []


def test_an_empty_output_name_is_refused():
    result = run("genrmf", "--a", "3", "--b", "2", "--seed", "1", "-o", "")
    assert result.exit_code == 2 and result.stderr == "maxflow: error: -o: the file name is empty\n"


def test_washington_is_refused_by_its_own_working_memory(tmp_path, monkeypatch):
    """Its record lists take 64 bytes an arc, not the network's 16: 25 M arcs need 1.6 GB."""
    from maxflow_cli import memory

    monkeypatch.setattr(memory, "available", lambda: 10**9)
    output = tmp_path / "mesh.max"
    result = run("washington", "--function", "mesh", "--dim1", "2048", "--dim2", "4096",
                 "--seed", "1", "-o", str(output))
    assert result.exit_code == 2 and "needs about 1.6 GB of memory" in result.stderr
    assert list(tmp_path.iterdir()) == []
