"""`maxflow paths` through Click's runner: text and JSON output, every pair or one, and bad
input as one line with exit code 2."""

import json

import pytest
from click.testing import CliRunner

from maxflow_cli import memory
from maxflow_cli.cli import main
from maxflow_cli.kernels import gpu_unavailable

TINY = "c two ways, one of them through a zero-length arc\np sp 4 5\n" \
       "a 1 2 1\na 1 3 2\na 2 4 1\na 3 4 1\na 2 3 0\n"


def run(*args, input=None):
    return CliRunner().invoke(main, ["paths", *args], input=input)


def test_prints_the_paths_of_one_pair():
    result = run("-", "--source", "1", "--target", "4", "--k", "5", input=TINY)
    assert result.exit_code == 0, result.output
    assert "1 -> 4: 3 path(s)" in result.output
    lines = result.output.splitlines()
    assert lines[1].split() == ["rank", "cost", "vertices"]  # issue 27, item 18: headers
    assert [line.split() for line in lines[2:5]] == \
        [["1", "2", "1", "2", "4"], ["2", "2", "1", "2", "3", "4"], ["3", "3", "1", "3", "4"]]
    for line in lines[1:5]:  # each value right-aligned under its header
        rank, cost = line.split()[:2]
        assert (line.index(rank) + len(rank), line.index(cost, 6) + len(cost)) == (6, 20)


@pytest.mark.parametrize("algorithm", ["mps", "yen"])
def test_json_has_every_pair_and_every_path(algorithm):
    result = run("-", "--json", "--k", "3", "--algorithm", algorithm, input=TINY)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["n"], report["m"], report["k"], report["algorithm"]) == (4, 5, 3, algorithm)
    assert len(report["pairs"]) == 12
    first = report["pairs"][2]
    assert (first["source"], first["target"]) == ("1", "4")
    assert first["paths"][0] == {"cost": 2, "vertices": ["1", "2", "4"]}
    assert report["pairs"][3]["paths"] == []  # nothing leaves 2 towards 1


def test_sndlib_networks_by_name_and_node_names():
    result = run("sndlib:abilene", "--source", "ATLAM5", "--target", "KSCYng", "--k", "2",
                 "--json")
    assert result.exit_code == 0, result.output
    paths = json.loads(result.output)["pairs"][0]["paths"]
    assert [path["vertices"][0] for path in paths] == ["ATLAM5", "ATLAM5"]
    assert paths[0]["cost"] <= paths[1]["cost"]


@pytest.mark.parametrize("args, text, message", [
    (["-"], "p sp 3 1\na 1 4 2\n", "<stdin>:2: vertex id '4' outside 1..3"),
    (["-"], "p max 3 1\n", "<stdin>:1: problem type 'max', expected 'sp'"),
    (["missing.gr"], None, "missing.gr: cannot read"),
    (["sndlib:atlantis"], None, "no SNDlib network 'atlantis'"),
    (["-", "--source", "1", "--target", "9"], TINY, "no vertex '9'"),
    (["-", "--source", "2", "--target", "2"], TINY, "the same vertex"),
    (["-", "--source", "2"], TINY, "give both --source and --target"),
    (["-", "--threads-share", "0"], TINY, "--threads-share"),
    (["-", "--k", "0"], TINY, "--k"),
])
def test_bad_input_is_one_line_and_exit_code_2(args, text, message):
    result = run(*args, input=text)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.skipif(gpu_unavailable() is None, reason="a GPU is here: --device gpu runs")
def test_the_gpu_without_one_is_one_line_and_exit_code_2():
    result = run("-", "--device", "gpu", input=TINY)
    assert result.exit_code == 2 and "--device gpu: " in result.output, result.output


FIVE = "p sp 5 6\na 1 2 1\na 2 3 1\na 3 4 1\na 4 5 1\na 1 3 5\na 2 5 7\n"


@pytest.mark.parametrize("k,more,message", [
    ("1" + "0" * 30, [], "--k 1000000000000000000000000000000: at least 1, at most 2,147,483,647"),
    ("9223372036854775808", ["--algorithm", "yen"], "--k 9223372036854775808: at least 1, at most"),
    ("2147483648", ["--algorithm", "yen"], "--k 2147483648: at least 1, at most 2,147,483,647"),
    ("100000000", [], "--k 100000000 (100,000,000 paths of up to 5 vertices for 20 pair(s)) "
                      "needs about 72 GB of memory; this machine has 2.0 GB available"),
    ("100000000", ["--algorithm", "yen", "--source", "1", "--target", "5"],
     "--k 100000000 (100,000,000 paths of up to 5 vertices for 1 pair(s)) needs about 3.6 GB"),
])
def test_a_k_too_large_names_k_and_why(monkeypatch, k, more, message):
    monkeypatch.setattr(memory, "available", lambda: 2 * 10**9)
    result = run("-", "--k", k, *more, input=FIVE)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"maxflow: error: {message}")
    assert len(result.output.splitlines()) == 1
