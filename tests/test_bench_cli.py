"""`maxflow bench` and `maxflow bench compare` through Click's runner: tables, files, exit codes."""

import json
import sys

import pytest
from click.testing import CliRunner

from fixtures import DATA
from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.bench.suites import SUITES, Suite
from maxflow_cli.cli import main
from maxflow_cli.registry import solvers
from test_bench_runner import fake_solver

TINY = "genrmf:a=3,b=4,seed=1..2"
FAST = ("--repeat", "2", "--warmup", "0", "--min-time", "0")
HIPR = ("--solvers", "hipr")


def bench(*args):
    return CliRunner().invoke(main, ["bench", *args])


def test_help_shows_the_usage_and_the_rules():
    result = bench("--help")
    assert result.exit_code == 0
    assert "bench [OPTIONS] [INSTANCE]..." in result.output
    assert "MAD is unscaled" in result.output and "90th percentile" in result.output
    assert "quick|gutierrez2012|hehong2010|alvino2015" in result.output


def test_a_run_prints_tables_and_writes_json_and_csv(tmp_path):
    result = bench(TINY, str(DATA / "clrs.max"), *FAST, *HIPR, "--detail", "--json", str(tmp_path / "r.json"),
                   "--csv", str(tmp_path / "r.csv"))
    assert result.exit_code == 0, result.output
    for text in ("genrmf:a=3,b=4", "files", "hipr (s)", "compile (kept out of the times)", "instances (seconds)"):
        assert text in result.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["schema"] == 1 and len(doc["results"]) == 3
    assert {entry["flow_value"] for entry in doc["results"] if entry["instance"].endswith("clrs.max")} == {23}
    assert len((tmp_path / "r.csv").read_text().splitlines()) == 4


def test_no_instance_runs_the_quick_suite(monkeypatch):
    monkeypatch.setitem(SUITES, "quick", Suite("quick", "tiny stand-in", tuple(parse_instance(TINY))))
    result = bench(*FAST, *HIPR)
    assert result.exit_code == 0, result.output
    assert "suite quick, 2 instances x 1 solver" in result.output


def test_a_flow_mismatch_prints_in_red_and_exits_1(monkeypatch, tmp_path):
    spec = fake_solver("wrong", wrong_calls={2})
    monkeypatch.setitem(solvers(), spec.name, spec)
    result = bench(TINY, *FAST, "--solvers", "hipr,wrong", "--json", str(tmp_path / "r.json"))
    assert result.exit_code == 1
    assert "FAILED" in result.output and "wrong gave flow value" in result.output
    assert "maxflow: error: 1 problem(s); the first:" in result.output
    assert json.loads((tmp_path / "r.json").read_text())["problems"]  # written all the same


def test_csv_to_stdout_sends_the_report_to_stderr():
    result = bench(TINY, *FAST, *HIPR, "--csv", "-")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and lines[0].startswith("instance,") and "hipr (s)" in result.stderr


def test_two_outputs_on_stdout_are_refused_before_any_run():
    result = bench(TINY, *FAST, *HIPR, "--json", "-", "--plot", "-")
    assert result.exit_code == 2 and "only one of --json, --csv, --plot can be '-'" in result.output
    assert "hipr (s)" not in result.output


@pytest.mark.parametrize("args, message", [
    (("nothing-here",), "is not a file, a glob"),
    ((TINY, "--solvers", "nope"), "unknown solver 'nope'"),
    ((TINY, "--repeat", "0"), "Invalid value for '--repeat'"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = bench(*args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_plot_without_matplotlib_fails_before_running(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = bench(TINY, "--plot", "out.png")
    assert result.exit_code == 2 and "pip install 'maxflow[plot]'" in result.output


def test_list_suites():
    result = bench("--list-suites")
    assert result.exit_code == 0
    for text in ("quick", "gutierrez2012", "hehong2010", "alvino2015", "genrmf-wide-128", "2,097,152"):
        assert text in result.output


def test_compare_and_fail_if_slower(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert bench(TINY, *FAST, *HIPR, "--json", str(old)).exit_code == 0
    doc = json.loads(old.read_text())
    for entry in doc["results"]:
        entry["median"], entry["mad"] = 1.0, 0.0
    old.write_text(json.dumps(doc))
    for entry in doc["results"]:
        entry["median"] = 1.5
    new.write_text(json.dumps(doc))
    result = bench("compare", str(old), str(new))
    assert result.exit_code == 0, result.output
    assert "1.500" in result.output and "slower" in result.output
    result = bench("compare", str(old), str(new), "--fail-if-slower", "10")
    assert result.exit_code == 1 and "2 cell(s) more than 10% slower" in result.output
    assert bench("compare", str(old), str(new), "--fail-if-slower", "60").exit_code == 0
