"""bench.report: family rows as the papers print them, published numbers beside ours, the plot."""

import io
import sys
from types import SimpleNamespace

import pytest
from rich.console import Console

from maxflow_cli.bench import report
from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.bench.published import ALVINO_2015, ALVINO_2015_NOTE
from maxflow_cli.bench.results import Change
from maxflow_cli.bench.runner import BenchRun, Cell, InstanceRecord, Settings
from maxflow_cli.bench.stats import Stats
from maxflow_cli.errors import MaxflowError, ParameterError


def made_up_run(other: str = "fast", slowdown: float = 0.5) -> BenchRun:
    """Two seeds of one Alvino size, ``other`` taking ``slowdown`` times hipr's time (its last
    sample twice that); no solving."""
    instances = parse_instance("genrmf-wide-36:seed=1..2")
    run = BenchRun(Settings(), ["hipr", other], {"hipr": 0.1, other: 0.2},
                   dict.fromkeys(["hipr", other], {"kind": "solver"}))
    for instance, base in zip(instances, (1.0, 3.0)):
        run.instances.append(InstanceRecord(instance, 46656, 226800, 0.01, 0.02, [],
                                            cut_capacity=7))
        run.cells.append(made_up_cell(instance.name, "hipr", [base] * 5, {"pushes": 9}))
        run.cells.append(made_up_cell(instance.name, other,
                                      [base * slowdown] * 4 + [base * slowdown * 2]))
    return run


def made_up_cell(instance: str, solver: str, samples: list[float],
                 counters: dict | None = None) -> Cell:
    return Cell(instance, solver, "solver", "cpu", {}, samples, "stage1", samples, 1, 7,
                {"stage1": sorted(samples)[len(samples) // 2]}, counters or {})


def printed(**kwargs) -> str:
    stream = io.StringIO()
    report.print_run(Console(file=stream, width=250), made_up_run(), **kwargs)
    return stream.getvalue()


def test_a_row_is_the_mean_of_the_seeds_medians():
    (row,) = report.rows(made_up_run())["genrmf-wide"]
    assert (row.group, row.n, row.m, row.seeds) == ("genrmf-wide-36", 46656, 226800, 2)
    assert row.times == {"hipr": 2.0, "fast": 1.0}
    assert row.unstable == {"hipr": False, "fast": True}


def test_the_family_table_with_speedups_and_the_papers_numbers():
    text = printed(published=ALVINO_2015, published_note=ALVINO_2015_NOTE)
    assert "genrmf-wide" in text and "46,656" in text and "226,800" in text
    assert "speedup fast" in text and "2.00x" in text  # the row and the geometric mean
    assert "paper hipr (s)" in text and "0.48" in text and "1.95x" in text and "table 4.3" in text
    assert "2 unstable cells" in text and "fast" in text
    assert "FAILED" not in text


def test_a_stage_one_without_its_set_up_is_said_under_the_tables():
    run = made_up_run()
    assert "set-up before it" not in printed()
    run.cells[1].phases |= {"setup": 0.5, "settle": 0.1}
    stream = io.StringIO()
    report.print_run(Console(file=stream, width=250), run)
    assert "fast: stage 1 as the authors' code times it" in stream.getvalue()


def test_an_unstable_cell_of_a_zero_median_says_its_spread_in_seconds():
    cell = SimpleNamespace(instance="tiny", solver="hipr",
                           stats=Stats(5, 0.0, 0.0, 0.0, 0.01, True))
    (line,) = report._unstable_lines([cell])
    assert "median 0 s, MAD 0 s" in line and "max 0.01" in line


@pytest.mark.parametrize("slowdown, speedup", [
    (812, "0.00123x"), (2, "0.500x"), (1 / 12.34, "12.3x"), (1 / 1234.4, "1,234x")])
def test_speedups_keep_three_significant_figures(slowdown, speedup):
    stream = io.StringIO()
    report.print_run(Console(file=stream, width=250), made_up_run(slowdown=slowdown))
    assert speedup in stream.getvalue()


def test_a_report_off_a_terminal_is_printed_whole(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    label = "fast:" + ",".join(f"parameter_{i}={i}" for i in range(8))
    stream = io.StringIO()
    report.print_run(report.console_for(stream), made_up_run(label))
    text = stream.getvalue()
    assert f"speedup {label}" in text and "…" not in text
    assert max(map(len, text.splitlines())) > 250


def test_detail_adds_phases_and_counters():
    text = printed(detail=True)
    assert "instances (seconds)" in text and "cut capacity" in text and "pushes 9" in text


def test_problems_print_in_red():
    run = made_up_run()
    run.cells[1].mismatch = ("genrmf-wide-36:seed=1: fast gave flow value 8 in run 2 "
                             "(1 of 6 runs differ), not 7")
    stream = io.StringIO()
    report.print_run(Console(file=stream, width=250, force_terminal=True), run)
    assert "\x1b[1;31mFAILED" in stream.getvalue() and "gave flow value 8" in stream.getvalue()


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "times.png"
    report.plot(made_up_run(), str(path))
    assert path.read_bytes().startswith(b"\x89PNG")


def test_plot_without_matplotlib_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MaxflowError, match=r"pip install 'maxflow-dimacs\[plot\]'"):
        report.require_plot("out.png")


def test_a_plot_is_refused_unless_its_file_is_a_png():
    with pytest.raises(ParameterError, match=r"--plot x.txt: the plot is a PNG image"):
        report.require_plot("x.txt")


SIX = ["hipr", "lockfree", "lockfree:threads=1", "openmp-cuda", "gpu-bfs", "gpu-sync"]


def six_solver_run() -> BenchRun:
    """Six configurations on two seeds of one size, each solver a time with several digits."""
    run = BenchRun(Settings(), SIX, dict.fromkeys(SIX, 1.0), dict.fromkeys(SIX, {"kind": "solver"}))
    for instance in parse_instance("washington-rlg-long-1024x1536:seed=1..2"):
        run.instances.append(InstanceRecord(instance, 1572866, 4717568, 0.01, 0.02, [],
                                            cut_capacity=7))
        for rank, solver in enumerate(SIX, 1):
            run.cells.append(made_up_cell(instance.name, solver, [1.91912 * rank] * 5))
    return run


def test_a_terminal_narrower_than_the_table_gets_it_in_parts_of_whole_columns():
    stream = io.StringIO()
    report.print_run(Console(file=stream, width=80), six_solver_run())
    text = stream.getvalue()
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
    for solver in SIX:
        assert f"{solver} (s)" in text
    for solver in SIX[1:]:
        assert f"speedup {solver}" in text
    assert "11.51 ±0.0%" in text and "0.167x" in text  # gpu-sync's time and speedup, whole
    assert text.count("washington-rlg-long-1024x1536 ") == text.count("(continued)") + 1


def test_a_table_that_fits_stays_one_piece():
    console = Console(file=io.StringIO(), width=250)
    table = report._family_table("genrmf-wide", report.rows(made_up_run())["genrmf-wide"],
                                 made_up_run(), {})
    assert report.fitted(console, table) == [table]


def test_relative_columns_give_each_time_over_the_fastest_and_mark_it():
    assert "rel hipr" not in printed()
    text = printed(relative=True)
    assert "rel hipr" in text and "rel fast" in text and report.RELATIVE_NOTE in text
    (line,) = [line for line in text.splitlines() if line.startswith("│ genrmf-wide-36")]
    assert "2.00x" in line and f"1.00 {report.FASTEST}" in line
    (mean,) = [line for line in text.splitlines() if "geometric mean" in line]
    assert "2.00x" in mean and "1.00x" in mean


def test_a_failed_cell_stays_failed_in_the_relative_columns():
    run = made_up_run()
    run.cells[1].samples = []  # fast failed on seed 1: its row has no time
    run.cells[1].failure = "genrmf-wide-36:seed=1: fast failed in run 1: exited with status 3"
    stream = io.StringIO()
    report.print_run(Console(file=stream, width=250), run, relative=True)
    (line,) = [line for line in stream.getvalue().splitlines()
               if line.startswith("│ genrmf-wide-36")]
    assert line.count("failed") == 2 and f"1.00 {report.FASTEST}" in line  # time and rel
    (mean,) = [line for line in stream.getvalue().splitlines() if "geometric mean" in line]
    assert "—" in mean


def test_detail_gives_the_peak_memory_of_each_cell():
    run = made_up_run()
    for cell in run.cells:
        cell.peak_host_bytes = 35_200_000
    def headers():
        stream = io.StringIO()
        report.print_run(Console(file=stream, width=250), run, detail=True)
        text = stream.getvalue()
        return text, [line for line in text.splitlines()
                      if line.split()[:2] == ["instance", "runs"]]

    text, (hipr, fast) = headers()
    assert "host mem" in hipr and "35 MB" in text
    assert "GPU mem" not in hipr + fast  # no GPU ran
    run.cells[1].peak_gpu_bytes = 1_234_000_000
    text, (hipr, fast) = headers()
    assert "GPU mem" in fast and "GPU mem" not in hipr and "1.2 GB" in text


def test_changes_show_u_p_and_say_significant_only_where_both_rules_agree():
    changes = [Change("a", "f", "hipr", 1.0, 2.0, 2.0, False, 25.0, 0.0079, True),
               Change("b", "f", "hipr", 1.0, 2.0, 2.0, False, 4.0, 0.33, False),
               Change("c", "f", "hipr", 1.0, 1.01, 1.01, True, 14.0, 0.6, False),
               Change("d", "f", "hipr", 2.0, 1.0, 0.5, False, 0.0, 0.0001, True)]
    stream = io.StringIO()
    report.print_changes(Console(file=stream, width=250), changes, [], [], 0.01)
    lines = {line.split()[1]: line for line in stream.getvalue().splitlines()
             if line.startswith("│ ") and line.split()[1] in "abcd"}
    assert "25" in lines["a"] and "0.0079" in lines["a"] and "slower" in lines["a"]
    assert "0.33" in lines["b"] and "≈ not significant" in lines["b"]
    assert "≈ noise" in lines["c"] and "faster" in lines["d"] and "<0.001" in lines["d"]
    assert "p < 0.01" in stream.getvalue()
