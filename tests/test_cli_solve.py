"""`maxflow solve` through Click's runner: output, JSON, files written atomically, exit codes."""

import json
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner
from fixtures import DATA

from maxflow_cli.cli import main
from maxflow_cli.kernels import devices
from maxflow_cli.registry import DEFAULT_SOLVER, solvers

CLRS = str(DATA / "clrs.max")
GRID_40 = "grid:shape=40x40,connectivity=4,seed=1"  # a vision grid, made in memory
MAXFLOW = [sys.executable, "-m", "maxflow_cli"]  # with cwd outside the checkout (test_cli.py)


def run(*args, input=None):
    return CliRunner().invoke(main, ["solve", *args], input=input)


@pytest.mark.parametrize("solver,counters", [
    ((), ("pushes", "relabels", "gaps")),  # auto: hpf answers
    (("--solver", "eibfs"), ("pushes", "orphans", "augmentations")),
])
def test_prints_the_flow_value_times_and_counters(solver, counters):
    result = run(CLRS, *solver)
    assert result.exit_code == 0, result.output
    assert "flow value 23" in result.output
    for word in ("read", "build", "compile", "stage1", *counters):
        assert word in result.output


def test_json_has_the_documented_fields():
    result = run(CLRS, "--json", "--check")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["flow_value"] == 23 and isinstance(report["flow_value"], int)
    assert (report["solver"], report["n"], report["m"]) == (DEFAULT_SOLVER, 6, 9)
    times = list(report["times"])  # the solver's own phases between compile and check
    assert times[:3] == ["read", "compile", "build"] and times[-1] == "check"
    assert "stage1" in times
    assert report["counters"]["pushes"] > 0
    assert report["check"]["ok"] is True
    peaks = report["memory"]
    assert peaks["peak_host_bytes"] > 10**6
    assert peaks["peak_host_phase"] in ("compile", "read", "build", "solve", "check", "output")
    assert peaks["peak_gpu_bytes"] is peaks["peak_gpu_phase"] is None  # the CPU solver


def test_reads_stdin():
    result = run("-", "--json", input=(DATA / "clrs.max").read_text())
    assert result.exit_code == 0 and json.loads(result.output)["flow_value"] == 23


def test_writes_the_flow_and_the_cut(tmp_path):
    flow, cut = tmp_path / "out.flow", tmp_path / "out.cut"
    result = run(str(DATA / "edge-cases.max"), "--flow", str(flow), "--cut", str(cut), "--check")
    assert result.exit_code == 0, result.output
    lines = flow.read_text().splitlines()
    assert lines[0] == "s 11"
    assert len(lines) == 1 + 13  # one 'f' line per input arc, in input order
    assert lines[1].startswith("f 1 2 ") and lines[-1] == "f 6 6 0"
    assert sum(int(line.split()[3]) for line in lines[1:] if line.split()[2] == "6") - \
        sum(int(line.split()[3]) for line in lines[1:] if line.split()[1] == "6") == 11
    cut_lines = cut.read_text().splitlines()
    assert cut_lines[0].startswith("c ") and "capacity 11" in cut_lines[0]
    assert "n 1" in cut_lines and "n 6" not in cut_lines


def test_a_compressed_flow_file(tmp_path):
    import gzip

    flow = tmp_path / "out.flow.gz"
    assert run(CLRS, "--flow", str(flow)).exit_code == 0
    assert gzip.decompress(flow.read_bytes()).startswith(b"s 23\nf 1 2 ")


@pytest.mark.parametrize("args,message", [
    (["missing.max"], "missing.max: cannot read"),
    (["BAD"], "BAD:4: vertex id '9' outside 1..4"),
    ([CLRS, "--solver", "nope"], "Invalid value for '--solver'"),
    ([CLRS, "--alpha", "x"], "Invalid value for '--alpha'"),
    ([CLRS, "--global-update-frequency", "nan"], "'nan' is not a finite number"),
    ([CLRS, "--global-update-frequency", "inf"], "'inf' is not a finite number"),
])
def test_errors_are_one_line_with_exit_code_2(tmp_path, args, message):
    bad = tmp_path / "bad.max"
    bad.write_text("p max 4 1\nn 1 s\nn 4 t\na 1 9 3\n")
    args = [str(bad) if a == "BAD" else a for a in args]
    if message and message.startswith("BAD"):
        message = str(bad) + message[3:]
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert message in result.output


def test_hipr_parameters_are_used():
    fast = json.loads(run(CLRS, "--solver", "hipr-forward", "--json").output)
    eager = json.loads(run(CLRS, "--solver", "hipr-forward", "--json",
                           "--global-update-frequency", "1000").output)
    assert eager["params"]["global_update_frequency"] == 1000
    assert eager["counters"]["global_updates"] > fast["counters"]["global_updates"]
    assert eager["flow_value"] == fast["flow_value"] == 23


def test_outputs_are_atomic_and_untouched_on_failure(tmp_path):
    flow = tmp_path / "out.flow"
    flow.write_text("old contents\n")
    bad = tmp_path / "bad.max"
    bad.write_text("p max 4 1\nn 1 s\nn 4 t\na 1 2 x\n")
    result = run(str(bad), "--flow", str(flow))
    assert result.exit_code == 2
    assert flow.read_text() == "old contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.max", "out.flow"]


def test_lenient_turns_the_arc_count_error_into_a_warning(tmp_path):
    path = tmp_path / "count.max"
    path.write_text("p max 3 1\nn 1 s\nn 3 t\na 1 2 4\na 2 3 3\n")
    assert run(str(path)).exit_code == 2
    result = run(str(path), "--lenient", "--json")
    assert result.exit_code == 0
    assert "declares 1 arcs" in result.stderr
    assert json.loads(result.stdout)["flow_value"] == 3


def test_an_unwritable_output_fails_before_any_work(tmp_path):
    result = run(CLRS, "--flow", str(tmp_path))
    assert result.exit_code == 2
    assert "it is a directory" in result.output and "flow value" not in result.output
    result = run(CLRS, "--cut", str(tmp_path / "no" / "cut.txt"))
    assert result.exit_code == 2 and "no directory" in result.output


def test_flow_to_stdout_sends_the_report_to_stderr():
    result = run(CLRS, "--flow", "-", "--json")
    assert result.exit_code == 0
    assert result.stdout.startswith("s 23\nf 1 2 ")
    assert json.loads(result.stderr)["flow_value"] == 23
    assert run(CLRS, "--flow", "-", "--cut", "-").exit_code == 2


def test_flow_to_a_link_to_stdout_writes_into_the_pipe(tmp_path):
    import subprocess
    import sys

    link = tmp_path / "stdout"  # as /dev/stdout is, without touching /dev
    link.symlink_to("/proc/self/fd/1")
    done = subprocess.run([sys.executable, "-m", "maxflow_cli", "solve", CLRS, "--flow", str(link)],
                          capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)  # outside the checkout: the installed package
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("s 23\nf 1 2 ")
    assert "flow value 23" in done.stderr
    assert link.is_symlink()


@pytest.mark.parametrize("option", ["--flow", "--cut", "--trace"])
@pytest.mark.parametrize("name", ["net.max", "/dev/stdin", "link.max"])
def test_an_output_on_stdin_is_refused_before_any_work(tmp_path, option, name):
    source = tmp_path / "net.max"
    source.write_bytes((DATA / "clrs.max").read_bytes())
    (tmp_path / "link.max").symlink_to(source)
    with open(source, "rb") as stdin:
        done = subprocess.run([*MAXFLOW, "solve", "-", option, name], stdin=stdin,
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"maxflow: error: {option} {name} is the input (stdin): writing it " \
                          "would destroy the input\n"
    assert source.read_bytes() == (DATA / "clrs.max").read_bytes()


GPU_SOLVERS = [name for name, spec in solvers().items()
               if "gpu" in spec.devices and not spec.falls_back_to_cpu]


@pytest.mark.parametrize("name", GPU_SOLVERS)
def test_a_gpu_solver_without_a_gpu_fails_unless_asked_for_its_twin(monkeypatch, name):
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: "no NVIDIA driver: test")
    result = run(CLRS, "--solver", name)
    assert (result.exit_code, result.output) == (2, f"maxflow: error: solver '{name}' cannot run "
                                                    "here: no NVIDIA driver: test; --device cpu "
                                                    "runs its CPU twin\n")
    result = run(CLRS, "--solver", name, "--device", "cpu")
    assert result.exit_code == 0 and f"{name} on cpu" in result.output, result.output


@pytest.mark.parametrize("instance,share", [("washington:function=10,dim1=400", "100%"),
                                             ("washington:function=11,dim1=50,dim2=10,range=5",
                                              "87%")])
def test_auto_runs_hipr_alone_on_chains(monkeypatch, instance, share):
    """Without a GPU, on Goldberg's bad case and Cheriyan's graph (most vertices links of
    chains), hipr runs alone on the chains contracted, and its answer is certified."""
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: "no NVIDIA driver: test")
    report = json.loads(run(instance, "--json", "--check").output)
    assert report["why"].startswith(f"no GPU is used: hipr ran on the CPU, since {share} of "
                                    "the vertices are links of chains (one arc in, one out), "
                                    "each chain contracted into one arc (")
    assert report["winner"] == "hipr" and report["check"]["ok"] is True


def test_auto_calls_hipr_in_where_hpf_calls_for_help(monkeypatch):
    """Goldberg's bad case with the chain rule off: hpf's pushes pass the bound (n/8 an
    arc), hipr takes over, and its answer is certified."""
    from maxflow_cli import chains

    monkeypatch.setattr(devices, "gpu_unavailable", lambda: "no NVIDIA driver: test")
    monkeypatch.setattr(chains, "CHAIN_SHARE", 2.0)
    report = json.loads(run("washington:function=10,dim1=400", "--json", "--check").output)
    assert report["why"] == ("no GPU is used: hpf ran on the CPU and called for help (the shape "
                             "is bad for it), and hipr took over")
    assert report["winner"] == "hipr" and report["check"]["ok"] is True


def test_auto_runs_on_the_cpu_without_a_gpu_and_says_what_answered(monkeypatch):
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: "no NVIDIA driver: test")
    genrmf = "genrmf:a=4,b=6,seed=1"
    report = json.loads(run(genrmf, "--json").output)
    assert (report["solver"], report["device"], report["winner"]) == ("auto", "cpu", "hpf")
    assert report["why"] == ("no GPU is used: hpf ran on the CPU (hipr would take over if it "
                             "called for help; it did not)")
    assert "answered by hpf: no GPU is used" in run(genrmf).output
    report = json.loads(run(CLRS, "--json", "--rivals", "hipr").output)
    assert report["winner"] == "hipr" and report["params"] == {"rivals": "hipr"}
    assert report["why"] == "no GPU is used: hipr ran on the CPU"
    for rivals, message in (("none", "name one at least"), ("hipr+nope", "'nope' cannot race"),
                            ("hipr+cuda", "'cuda' cannot race")):
        result = run(CLRS, "--rivals", rivals)
        assert result.exit_code == 2 and message in result.output, result.output


def test_an_output_on_the_input_or_on_another_output_is_refused_before_any_work(tmp_path):
    source = tmp_path / "net.max"
    source.write_bytes((DATA / "clrs.max").read_bytes())
    result = run(str(source), "--flow", str(source))
    assert result.exit_code == 2 and "is the input file" in result.output
    assert source.read_bytes() == (DATA / "clrs.max").read_bytes()
    result = run(str(source), "--flow", str(tmp_path / "x"), "--cut", str(tmp_path / "x"))
    assert result.exit_code == 2 and "--flow and --cut both write to one file" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.max"]
    result = run(str(source), "--cut", "")
    assert result.exit_code == 2 and "--cut: the file name is empty" in result.output


def test_a_network_with_no_arcs_has_flow_zero_with_every_cpu_solver(tmp_path):
    from maxflow_cli.registry import solvers

    empty = tmp_path / "empty.max"
    empty.write_text("p max 2 0\nn 1 s\nn 2 t\n")
    for name in solvers():
        result = run(str(empty), "--solver", name, "--device", "cpu", "--json", "--check",
                     "--flow", str(tmp_path / f"{name}.flow"))
        assert result.exit_code == 0, (name, result.output)
        assert json.loads(result.stdout)["flow_value"] == 0, name
        assert (tmp_path / f"{name}.flow").read_text() == "s 0\n"


def test_a_build_error_names_the_file(tmp_path):
    path = tmp_path / "overflow.max"
    path.write_text("p max 2 3\nn 1 s\nn 2 t\n" + "a 1 2 4611686018427387904\n" * 3)
    result = run(str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"maxflow: error: {path}: the capacities leaving the source "
                                    "sum past 2^63-1")


def test_only_the_phases_that_ran_are_shown(tmp_path):
    result = run(CLRS, "--solver", "hipr")
    lines = [line for line in result.stdout.splitlines() if not line.startswith("answered by")]
    last = [line.startswith("peak memory host ") for line in lines].index(True)
    phases = [line.split()[0] for line in lines[2:last] if line[:10].strip()]
    assert phases == ["read", "compile", "build", "setup", "stage1"]
    result = run(CLRS, "--solver", "hipr", "--json", "--flow", str(tmp_path / "f"), "--check")
    assert list(json.loads(result.stdout)["times"]) == ["read", "compile", "build", "setup",
                                                        "stage1", "stage2", "check"]
    result = run(CLRS, "--solver", "bk", "--json")  # no set-up of its own
    assert list(json.loads(result.stdout)["times"]) == ["read", "compile", "build", "stage1"]


@pytest.mark.parametrize("solver", ["hpf", "eibfs"])
def test_the_set_up_and_the_settling_are_shown_beside_stage1(solver, tmp_path):
    """hpf and eibfs time stage 1 as the authors' codes do: what these build before their
    clock and what ends the search into a preflow are phases of their own, in order."""
    result = run(CLRS, "--solver", solver, "--json", "--flow", str(tmp_path / "f"))
    times = json.loads(result.stdout)["times"]
    assert list(times) == ["read", "compile", "build", "setup", "stage1", "settle", "stage2"]
    assert all(seconds > 0 for seconds in times.values())


def test_bad_input_is_refused_before_the_solver_compiles(tmp_path, monkeypatch):
    import dataclasses

    from maxflow_cli.registry import solvers

    prepared = []
    spec = solvers()[DEFAULT_SOLVER]
    monkeypatch.setitem(solvers(), DEFAULT_SOLVER, dataclasses.replace(
        spec, prepare=lambda options: prepared.append(options) or spec.prepare(options)))
    bad = tmp_path / "bad.max"
    bad.write_text("p max 4 1\nn 1 s\nn 4 t\na 1 9 3\n")
    assert run(str(bad)).exit_code == 2 and prepared == []
    assert run(CLRS).exit_code == 0 and len(prepared) == 1


def test_running_out_of_memory_names_the_file(monkeypatch):
    import dataclasses

    from maxflow_cli.registry import solvers

    def exhausted(graph, options):
        raise MemoryError

    spec = solvers()[DEFAULT_SOLVER]
    monkeypatch.setitem(solvers(), DEFAULT_SOLVER, dataclasses.replace(spec, solve=exhausted))
    result = run(CLRS)
    assert result.exit_code == 2
    assert result.stderr == (f"maxflow: error: {CLRS}: out of memory while solving the network "
                             "(6 vertices, 9 arcs): the solver needs more than this machine has\n")


def test_a_preset_or_a_generator_spec_is_generated_in_memory(tmp_path):
    """The same network as the file `maxflow gen` writes; each phase's own peaks in --json."""
    from maxflow_cli.generators import PRESETS, make

    written = tmp_path / "rlg.max"
    preset = PRESETS["washington-rlg-long-64x128"]
    assert CliRunner().invoke(main, ["gen", "--preset", preset.name, "--seed", "3", "-o",
                                     str(written)]).exit_code == 0
    reports = [json.loads(run(source, "--solver", "gpu-sync", "--device", "cpu", "--rivals",
                              "none", "--json", "--check").output)
               for source in (str(written), f"{preset.name}:seed=3",
                              "washington-rlg:rows=64,levels=128,seed=3")]
    network = make(preset.family, **preset.params, seed=3)
    for report in reports:
        assert (report["n"], report["m"]) == (network.n, network.m)
        assert report["flow_value"] == reports[0]["flow_value"] and report["check"]["ok"]
        phases = [entry["phase"] for entry in report["memory"]["by_phase"]]
        assert phases == ["compile", "read", "compile", "build", "solve", "check", "output"]
        assert report["memory"]["peak_host_bytes"] == \
            max(entry["host_bytes"] for entry in report["memory"]["by_phase"])


@pytest.mark.parametrize("source,message", [
    ("washington-rlg:rows=800000,levels=2000", "4,799,200,000 arcs is too large .*4,294,967,295"),
    ("genrmf-wide-36:seed=1..3", "3 instances; solve takes one"),
    ("genrmf:a=0,b=4", "--a"),
])
def test_a_generated_instance_out_of_bounds_is_one_line_and_exit_2(source, message):
    result = run(source, "--solver", "hipr")
    assert result.exit_code == 2
    assert re.search(message, result.output) and len(result.output.strip().splitlines()) == 1


def test_gpu_sync_alone_says_when_hipr_finished_on_the_cpu():
    """Goldberg's bad case: the engine hands its preflow to hipr, and the text says so."""
    output = run("washington:function=10,dim1=3000,dim2=0", "--solver", "gpu-sync", "--device",
                 "cpu", "--rivals", "none").output
    assert "answered by gpu-sync: hipr finished stage 1 on the CPU after global relabel" in output
    never = run("washington:function=10,dim1=300,dim2=0", "--solver", "gpu-sync", "--device",
                "cpu", "--rivals", "none", "--hand-over", "never").output
    assert "flow value 300" in never and "answered by" not in never


@pytest.mark.parametrize("instance,first", [
    ("grid:shape=32x32,connectivity=8,seed=2", "eibfs"),
    ("washington:function=4,dim1=600,dim2=5", "eibfs"),  # matching
    ("grid:shape=30x30,connectivity=4,seed=1", "hpf"),  # 900 pixels
    ("washington:function=9,dim1=300", "hpf"),  # a path, all into the sink
    ("acyclic-dense:n=200,seed=1", "hpf"),  # terminal arcs at all, dense
    ("genrmf:a=4,b=6,seed=1", "hpf"),
])
def test_auto_runs_eibfs_first_where_terminal_arcs_reach_most_vertices(monkeypatch, instance,
                                                                          first):
    """Without a GPU: eibfs first on grids and matchings (source and sink arcs at most
    vertices, few arcs a vertex, a thousand vertices at least), and says so; hpf on a
    smaller grid, on a path that drains into the sink at every vertex, on a complete acyclic
    network, and on a genrmf."""
    monkeypatch.setattr(devices, "gpu_unavailable", lambda: "no NVIDIA driver: test")
    report = json.loads(run(instance, "--json", "--check").output)
    assert report["winner"] == first and report["check"]["ok"] is True
    assert report["why"].startswith(f"no GPU is used: {first} ran on the CPU")
    assert ("as on vision grids (hpf and hipr would take over" in report["why"]) == (
        first == "eibfs")


def test_auto_on_a_grid_goes_on_with_hpf_where_eibfs_calls_for_help(monkeypatch):
    """The relay after eibfs: told that its work passed the bound at once, eibfs stops and
    hpf answers."""
    from maxflow_cli.solvers import eibfs

    monkeypatch.setattr(devices, "gpu_unavailable", lambda: "no NVIDIA driver: test")
    monkeypatch.setattr(eibfs, "help_bound", lambda m: -1)
    report = json.loads(run(GRID_40, "--json", "--check", "--rivals", "hpf+hipr").output)
    assert report["winner"] == "hpf" and report["check"]["ok"] is True
    assert report["why"].startswith("no GPU is used: eibfs ran on the CPU, since the source's")
    assert report["why"].endswith("vision grids and called for help (the shape is bad for it), "
                                  "and hpf took over")


def test_auto_compiles_eibfs_only_where_it_runs_first(monkeypatch):
    """auto's compile step leaves eibfs out; the first solve that runs it first compiles it,
    outside stage 1, and reports that as its compile time; later solves do not."""
    from maxflow_cli import registry
    from maxflow_cli.bench.instances import parse_instance
    from maxflow_cli.registry import SolveOptions, get_solver
    from maxflow_cli.residual import build_residual
    from maxflow_cli.solvers import auto

    compiled = []
    monkeypatch.setattr(registry, "_COMPILED_ONCE", set())
    monkeypatch.setattr(auto, "prepare_rivals", lambda rivals, relay: compiled.append(
        [spec.name for spec, _ in rivals]) or 0.5)
    spec = get_solver("auto")
    options = spec.resolve(SolveOptions(device="cpu"))
    spec.prepare(options)
    assert compiled == [["hpf", "hipr"]]
    genrmf = build_residual(parse_instance("genrmf:a=4,b=6,seed=1")[0].load()[0])
    assert "compile" not in spec.solve(genrmf, options).times and len(compiled) == 1
    grid = build_residual(parse_instance(GRID_40)[0].load()[0])
    first, again = (spec.solve(grid, options) for _ in range(2))
    assert compiled[1:] == [["eibfs"]] and first.winner == again.winner == "eibfs"
    assert first.times["compile"] >= 0.5 and "compile" not in again.times  # and eibfs's own


def test_solve_adds_the_compile_of_the_solver_auto_chose(monkeypatch):
    """maxflow solve's compile phase: its own (the reader's and auto's rivals'), plus what
    auto compiled when it chose eibfs."""
    from maxflow_cli import registry
    from maxflow_cli.solvers import auto

    monkeypatch.setattr(devices, "gpu_unavailable", lambda: "no NVIDIA driver: test")
    monkeypatch.setattr(registry, "_COMPILED_ONCE", set())
    monkeypatch.setattr(auto, "prepare_rivals",  # eibfs's compile "takes" 100 s
                        lambda rivals, relay: 100.0 * (rivals[0][0].name == "eibfs"))
    report = json.loads(run(GRID_40, "--json").output)
    assert report["winner"] == "eibfs" and report["times"]["compile"] >= 100
    report = json.loads(run(GRID_40, "--json").output)
    assert report["winner"] == "eibfs" and report["times"]["compile"] < 100
