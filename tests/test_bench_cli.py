"""`maxflow bench` and `maxflow bench compare` through Click's runner: tables, files, exit codes."""

import csv
import itertools
import json
import signal
import sys
from dataclasses import replace

import pytest
from click.testing import CliRunner
from fixtures import DATA
from test_bench_external import program
from test_bench_runner import fake_solver

from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.bench.suites import SUITES, Suite
from maxflow_cli.cli import main
from maxflow_cli.errors import Interrupted
from maxflow_cli.registry import solvers
from maxflow_cli.solvers.hipr import solve_hipr

TINY = "genrmf:a=3,b=4,seed=1..2"
FAST = ("--repeat", "2", "--warmup", "0", "--min-time", "0")
HIPR = ("--solvers", "hipr")


def bench(*args):
    return CliRunner().invoke(main, ["bench", *args], env={"COLUMNS": "300"})  # no header wraps


def test_help_shows_the_usage_and_the_rules():
    result = bench("--help")
    assert result.exit_code == 0
    assert "bench [OPTIONS] [INSTANCE]..." in result.output
    assert "MAD is unscaled" in result.output and "90th percentile" in result.output
    assert "quick|gutierrez2012|hehong2010|alvino2015" in result.output


def test_a_run_prints_tables_and_writes_json_and_csv(tmp_path):
    result = bench(TINY, str(DATA / "clrs.max"), *FAST, *HIPR, "--detail", "--json",
                   str(tmp_path / "r.json"),
                   "--csv", str(tmp_path / "r.csv"))
    assert result.exit_code == 0, result.output
    for text in ("genrmf:a=3,b=4", "files", "hipr (s)", "compile (kept out of the times)",
                 "instances (seconds)"):
        assert text in result.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["schema"] == 1 and len(doc["results"]) == 3
    assert {entry["flow_value"] for entry in doc["results"]
            if entry["instance"].endswith("clrs.max")} == {23}
    assert len((tmp_path / "r.csv").read_text().splitlines()) == 4


def test_no_instance_runs_the_quick_suite(monkeypatch):
    monkeypatch.setitem(SUITES, "quick",
                        Suite("quick", "tiny stand-in", tuple(parse_instance(TINY))))
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
    ((TINY, "--min-time", "nan"), "Invalid value for '--min-time': 'nan' is not a finite number"),
    ((TINY, "--min-time", "inf"), "Invalid value for '--min-time': 'inf' is not a finite number"),
    ((TINY, "--external-timeout", "nan"), "'nan' is not a finite number"),
    ((TINY, "--solvers", ""), "--solvers '': names no solver configuration"),
    ((TINY, "--plot", "x.txt"), "--plot x.txt: the plot is a PNG image; name it FILE.png"),
    (("genrmf:a=3,b=3,b=4",), "'b' is given twice"),
    (("compare", "a.json", "b.json", "--fail-if-slower", "nan"), "'nan' is not a finite number"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    result = bench(*args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("interrupt, exit_code", [
    (KeyboardInterrupt(), 130), (Interrupted(signal.SIGTERM), 143)])
def test_an_interrupted_run_writes_what_finished_marked_incomplete(monkeypatch, tmp_path,
                                                                   interrupt, exit_code):
    calls = itertools.count(1)

    def solve(graph, options):
        if next(calls) == 3:  # the first run on the second instance (2 runs per cell)
            raise interrupt
        return solve_hipr(graph, options)

    spec = replace(fake_solver("stopper"), solve=solve)
    monkeypatch.setitem(solvers(), spec.name, spec)
    json_file, csv_file = tmp_path / "r.json", tmp_path / "r.csv"
    result = bench(TINY, *FAST, "--solvers", "hipr,stopper", "--json", str(json_file),
                   "--csv", str(csv_file))
    assert result.exit_code == exit_code
    assert "1 of 2 instances finished" in result.output and "marked incomplete" in result.output
    doc = json.loads(json_file.read_text())
    assert doc["complete"] is False and len(doc["instances"]) == 1
    assert {(entry["solver"], entry["runs"]) for entry in doc["results"]} == {
        ("hipr", 2), ("stopper", 2)}
    rows = list(csv.DictReader(csv_file.open()))
    assert len(rows) == 2 and {row["complete"] for row in rows} == {"False"}


def test_a_large_run_says_its_size_and_needs_yes():
    result = bench("genrmf:a=3,b=4,seed=1..1001", *HIPR)
    assert result.exit_code == 2
    assert ("1,001 cells (1,001 instances x 1 configuration), each 1 warm-up and >= 5 runs "
            "over >= 1 s: at least 17 min; more than 1,000 cells: add --yes" in result.output)
    result = bench("genrmf:a=3,b=4,seed=1..50", *FAST, "--solvers", "hipr,hipr:alpha=3")
    assert result.exit_code == 0
    assert "maxflow bench: 100 cells (50 instances x 2 configurations)" in result.output


def test_the_header_comes_before_the_runs(monkeypatch):
    def solve(graph, options):
        raise KeyboardInterrupt

    spec = replace(fake_solver("stopper"), solve=solve)
    monkeypatch.setitem(solvers(), spec.name, spec)
    result = bench(TINY, *FAST, "--baseline", "stopper", "--solvers", "stopper")
    assert result.exit_code == 130
    assert "maxflow bench: 2 instances x 1 solver; stage-1 seconds" in result.output


def test_option_errors_name_the_command_people_type():
    result = bench(TINY, "--repeat", "0")
    assert result.exit_code == 2
    assert "bench --help' for help" in result.output and "bench run" not in result.output


def test_plot_without_matplotlib_fails_before_running(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = bench(TINY, "--plot", "out.png")
    assert result.exit_code == 2 and "pip install 'maxflow-dimacs[plot]'" in result.output


def test_list_suites():
    result = bench("--list-suites")
    assert result.exit_code == 0
    for text in ("quick", "gutierrez2012", "hehong2010", "alvino2015", "genrmf-wide-128",
                 "2,097,152"):
        assert text in result.output


def test_compare_and_fail_if_slower(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert bench(TINY, *FAST, *HIPR, "--json", str(old)).exit_code == 0
    doc = json.loads(old.read_text())
    for entry in doc["results"]:
        entry["median"], entry["mad"] = 1.0, 0.0
        entry["samples"] = [0.99, 0.995, 1.0, 1.005, 1.01]
    old.write_text(json.dumps(doc))
    for entry in doc["results"]:
        entry["median"] = 1.5
        entry["samples"] = [1.49, 1.495, 1.5, 1.505, 1.51]
    new.write_text(json.dumps(doc))
    result = bench("compare", str(old), str(new))
    assert result.exit_code == 0, result.output
    assert "1.500" in result.output and "slower" in result.output and "0.0079" in result.output
    result = bench("compare", str(old), str(new), "--fail-if-slower", "10")
    assert result.exit_code == 1 and "2 cell(s) more than 10% slower" in result.output
    assert "significantly (p < 0.05)" in result.output
    assert bench("compare", str(old), str(new), "--fail-if-slower", "60").exit_code == 0
    for entry in doc["results"]:  # overlapping samples: p = 0.12, beyond noise all the same
        entry["samples"] = [1.49, 1.495, 1.5, 1.505, 0.99]
    new.write_text(json.dumps(doc))
    result = bench("compare", str(old), str(new), "--fail-if-slower", "10")
    assert result.exit_code == 0 and "not significant" in result.output
    assert bench("compare", str(old), str(new), "--fail-if-slower", "10",
                 "--alpha", "0.2").exit_code == 1


def test_compare_writes_json_and_refuses_a_bad_alpha(tmp_path):
    old = tmp_path / "old.json"
    assert bench(TINY, *FAST, *HIPR, "--json", str(old)).exit_code == 0
    result = bench("compare", str(old), str(old), "--json", str(tmp_path / "c.json"))
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "c.json").read_text())
    assert written["alpha"] == 0.05 and len(written["changes"]) == 2
    assert {(c["ratio"], c["p"], c["significant"]) for c in written["changes"]} == {
        (1.0, 1.0, False)}
    for alpha in ("0", "1", "nan", "x"):
        result = bench("compare", str(old), str(old), "--alpha", alpha)
        assert result.exit_code == 2 and "--alpha" in result.output
        assert "Traceback" not in result.output
    result = bench("compare", str(old), str(old), "--json", str(old))
    assert result.exit_code == 2 and "would destroy the input" in result.output


@pytest.mark.parametrize("gate", [(), ("--fail-if-slower", "10")])
def test_compare_with_no_cell_in_common_fails_and_says_why(tmp_path, gate):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert bench(TINY, *FAST, *HIPR, "--json", str(old)).exit_code == 0
    doc = json.loads(old.read_text())
    for entry in doc["results"]:
        entry["solver"] = "renamed"
    new.write_text(json.dumps(doc))
    result = bench("compare", str(old), str(new), *gate)
    assert result.exit_code == 1
    assert ("no (instance, solver) cell has a median in both files (2 only in OLD, 2 only in NEW)"
            in result.output)


def test_configurations_are_labelled_and_record_device_and_parameters(tmp_path):
    result = bench(TINY, *FAST, "--solvers",
                   "hipr:alpha=3,beta=7,hipr:beta=7,alpha=3,lockfree:threads=1",
                   "--json", str(tmp_path / "r.json"), "--csv", str(tmp_path / "r.csv"))
    assert result.exit_code == 0, result.output
    assert "hipr:alpha=3,beta=7 (s)" in result.output
    assert "speedup lockfree:threads=1" in result.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["settings"]["solvers"] == ["hipr", "hipr:alpha=3,beta=7", "lockfree:threads=1"]
    assert doc["settings"]["configurations"]["lockfree:threads=1"] == {
        "kind": "solver", "solver": "lockfree", "device": "cpu", "params": {"threads": 1}}
    cells = {(entry["instance"], entry["solver"]): entry for entry in doc["results"]}
    first = parse_instance(TINY)[0].name
    assert cells[first, "hipr:alpha=3,beta=7"]["params"] == {
        "global_update_frequency": 0.5, "alpha": 3, "beta": 7, "initial_update": 0}
    assert cells[first, "lockfree:threads=1"]["params"]["threads"] == 1
    rows = list(csv.DictReader(open(tmp_path / "r.csv", newline="")))
    assert [(row["solver"], row["kind"], row["device"], row["params"]) for row in rows[:2]] == [
        ("hipr", "solver", "cpu", "global_update_frequency=0.5 alpha=6 beta=12 initial_update=0"),
        ("hipr:alpha=3,beta=7", "solver", "cpu",
         "global_update_frequency=0.5 alpha=3 beta=7 initial_update=0")]


@pytest.mark.parametrize("args, message", [
    (("--solvers", "hipr,,lockfree"), "--solvers 'hipr,,lockfree': an empty item"),
    (("--solvers", "hipr:alpha=1,alpha=2"), "'alpha' is given twice"),
    (("--solvers", "lockfree:threads=-1"), "--threads -1: must be in 0.."),
    (("--solvers", "hipr:speed=9"), "solver 'hipr' has no parameter 'speed'"),
    (("--baseline", "hipr,lockfree"), "--baseline 'hipr,lockfree': one configuration, not 2"),
    (("--seeds", "2"), "--seeds needs --suite"),
])
def test_bad_configurations_are_one_line_and_exit_2(args, message):
    result = bench(TINY, *FAST, *args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_a_suite_sets_parameters_per_family_unless_the_configuration_does(monkeypatch, tmp_path):
    first, second = parse_instance(TINY)
    suite = Suite("quick", "stand-in",
                  (replace(first, solver_params={"hipr": {"alpha": 3}}), second))
    monkeypatch.setitem(SUITES, "quick", suite)
    result = bench("--suite", "quick", *FAST, "--solvers", "hipr:alpha=5", "--json",
                   str(tmp_path / "r.json"))
    assert result.exit_code == 0, result.output
    assert "suite quick sets, where --solvers does not: genrmf: hipr alpha=3" in result.output
    params = {(entry["instance"], entry["solver"]): entry["params"]["alpha"]
              for entry in json.loads((tmp_path / "r.json").read_text())["results"]}
    assert params == {(first.name, "hipr"): 3, (second.name, "hipr"): 6,
                      (first.name, "hipr:alpha=5"): 5, (second.name, "hipr:alpha=5"): 5}


def test_seeds_keeps_the_first_seeds_of_a_suite(monkeypatch):
    monkeypatch.setitem(SUITES, "quick", Suite("quick", "stand-in", tuple(parse_instance(TINY))))
    result = bench("--suite", "quick", "--seeds", "1", *FAST, *HIPR)
    assert result.exit_code == 0, result.output
    assert "suite quick, 1 instance x 1 solver" in result.output and "seed=2" not in result.output


def test_external_programs_are_timed_checked_and_their_failures_are_rows(tmp_path):
    flow_of_tiny = 39275  # hipr's value on genrmf:a=3,b=4,seed=1, checked by the run itself
    counts_arcs = program(tmp_path, "counts_arcs", (
        "import sys\nlines = sys.stdin.read().splitlines()\n"
        "assert sum(line.startswith('a ') for line in lines) == 123, 'not the instance'\n"
        f"print('c flow: {flow_of_tiny}.0'); print('c cut tm: 0.01')\n"))
    plain = program(tmp_path, "plain", f"print({flow_of_tiny})")
    off = program(tmp_path, "off", "print('s 1')")
    broken = program(tmp_path, "broken", "raise SystemExit(3)")
    result = bench("genrmf:a=3,b=4,seed=1", *FAST, *HIPR, "--json", str(tmp_path / "r.json"),
                   "--external", f"hi_pr={counts_arcs}", "--external", f"plain={plain}",
                   "--external-pattern", r"plain=^(\d+)$", "--external", f"off={off}", "--external",
                   f"broken={broken}")
    assert result.exit_code == 1, result.output
    assert "cut tm" in result.output and "wall" in result.output and "failed" in result.output
    assert "off gave flow value 1 in run 1" in result.output
    assert "broken failed in run 1: exited with status 3" in result.output
    cells = {entry["solver"]: entry
             for entry in json.loads((tmp_path / "r.json").read_text())["results"]}
    assert ({cells[name]["flow_value"] for name in ("hipr", "hi_pr", "plain")}
            == {flow_of_tiny})
    assert (cells["hi_pr"]["kind"], cells["hi_pr"]["timed"],
            cells["hi_pr"]["samples"]) == ("external", "stage1", [0.01] * 2)
    wall = cells["hi_pr"]["wall_samples"]  # measured around the program, not what it prints
    assert len(wall) == 2 and all(0 < seconds != 0.01 for seconds in wall)
    assert cells["plain"]["timed"] == "wall"
    assert cells["broken"]["median"] is None and "status 3" in cells["broken"]["failure"]


def test_cpu_time_takes_a_cut_time_else_the_programs_user_time(tmp_path):
    flow_of_tiny = 39275
    cut = program(tmp_path, "cut", f"print('c flow: {flow_of_tiny}'); print('c cut tm: 0.25')")
    spins = program(tmp_path, "spins", (
        "import resource, time\ntime.sleep(0.3)\n"
        "while resource.getrusage(resource.RUSAGE_SELF).ru_utime < 0.1: pass\n"
        f"print('s {flow_of_tiny}')"))
    result = bench("genrmf:a=3,b=4,seed=1", *FAST, *HIPR, "--cpu-time", "--json",
                   str(tmp_path / "r.json"), "--external", f"cut={cut}", "--external",
                   f"spins={spins}")
    assert result.exit_code == 0, result.output
    assert "user CPU seconds of the solve (stage 1)" in result.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["settings"]["cpu_time"] is True
    cells = {entry["solver"]: entry for entry in doc["results"]}
    assert [cells[name]["timed"] for name in ("hipr", "cut", "spins")] == ["cpu", "stage1", "cpu"]
    assert cells["cut"]["samples"] == [0.25] * 2
    assert all(0.1 <= cpu < 0.3 < wall for cpu, wall in zip(cells["spins"]["samples"],
                                                             cells["spins"]["wall_samples"]))


def test_cpu_time_is_refused_with_flow():
    result = bench("genrmf:a=3,b=4,seed=1", *FAST, *HIPR, "--cpu-time", "--flow")
    assert result.exit_code == 2 and "--cpu-time times the whole solve call" in result.output


def test_external_programs_may_read_the_instance_from_a_file(tmp_path):
    flow_of_tiny = 39275
    reader = program(tmp_path, "reader", (
        "import sys\nassert sys.stdin.read() == ''\n"
        "path = sys.argv[1].removeprefix('--input=')\n"
        "assert sum(line.startswith('a ') for line in open(path)) == 123, 'not the instance'\n"
        f"print('s {flow_of_tiny}')\n"))
    result = bench("genrmf:a=3,b=4,seed=1", *FAST, *HIPR, "--json", str(tmp_path / "r.json"),
                   "--external", f"word={reader} {{file}}",
                   "--external", f"inside={reader} --input={{file}}", "--detail")
    assert result.exit_code == 0, result.output
    assert "as {file}" in result.output and "host mem" in result.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["settings"]["configurations"]["word"]["input"] == "file"
    cells = {entry["solver"]: entry for entry in doc["results"]}
    assert cells["word"]["flow_value"] == cells["inside"]["flow_value"] == flow_of_tiny
    assert cells["word"]["peak_host_bytes"] > 0 and cells["word"]["peak_gpu_bytes"] is None


def test_an_unknown_placeholder_is_one_line_and_exit_2():
    result = bench(TINY, *FAST, *HIPR, "--external", "x=true {foo}")
    assert result.exit_code == 2 and "unknown placeholder {foo}" in result.output
    assert "Traceback" not in result.output


def test_relative_times_in_the_table_json_and_csv(tmp_path):
    result = bench(TINY, *FAST, "--solvers", "hipr,hipr:alpha=5", "--relative", "--json",
                   str(tmp_path / "r.json"), "--csv", str(tmp_path / "r.csv"))
    assert result.exit_code == 0, result.output
    assert "rel hipr:alpha=5" in result.output and "1.00 ★" in result.output
    doc = json.loads((tmp_path / "r.json").read_text())
    for instance in {entry["instance"] for entry in doc["results"]}:
        entries = [entry for entry in doc["results"] if entry["instance"] == instance]
        assert min(entry["relative"] for entry in entries) == 1.0
        assert [entry["fastest"] for entry in entries].count(True) >= 1
    rows = list(csv.DictReader(open(tmp_path / "r.csv", newline="")))
    assert {row["fastest"] for row in rows} <= {"True", "False"} and rows[0]["relative"]
    assert int(rows[0]["peak_host_bytes"]) > 0 and rows[0]["peak_gpu_bytes"] == ""


SIX_HIPR = "hipr,hipr:alpha=5,hipr:alpha=7,hipr:beta=10,hipr:beta=14,hipr:alpha=8"


@pytest.mark.parametrize("columns", [None, "80"])
def test_six_configurations_print_every_column_whole_in_a_pipe_or_a_narrow_terminal(columns):
    """Off a terminal (CliRunner's output is not one) the table is one piece however wide; at a
    terminal width of 80 (COLUMNS) it comes in parts; never a figure cut to '…'."""
    result = CliRunner().invoke(main, ["bench", TINY, *FAST, "--solvers",
                                       SIX_HIPR], env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    for label in SIX_HIPR.split(","):
        assert f"{label} (s)" in result.output
    assert ("(continued)" in result.output) == (columns == "80")
    if columns:
        assert max(map(len, result.stdout.splitlines())) <= 80  # the report; stderr logs
