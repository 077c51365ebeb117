"""bench.external: programs that read DIMACS on stdin, timed and checked; every way they can fail.

The programs are small Python scripts written here; most read the `c expected flow:` line of
the instance they are given and print it the way a solver would.
"""

import gzip
import os
import shutil
import sys
import time

import pytest
from fixtures import DATA

from maxflow_cli import processes
from maxflow_cli.bench.external import External, InstanceFiles, RunFailed, parse_externals
from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.errors import ParameterError

CLRS = DATA / "clrs.max"  # maximum flow 23

READ_EXPECTED = """
import re, sys
text = sys.stdin.read()
expected = int(re.search(r"^c expected flow: (\\d+)", text, re.MULTILINE).group(1))
"""
HI_PR = READ_EXPECTED + """
print("c\\nc hi_pr version 3.6\\nc\\nc nodes: 6\\nc arcs: 9\\nc")
print("c flow:       %12.01f" % expected)
print("c time:             0.02\\nc cut tm:           0.01\\nc pushes: 17\\nc gaps:   2")
"""
S_LINE = READ_EXPECTED + 'print("c some comment\\ns", expected)\n'
OWN_WORDS = READ_EXPECTED + 'print(f"max flow value = {expected} (found in 3 ms)")\n'
WRONG = READ_EXPECTED + 'print("s", expected + 1)\n'


def program(tmp_path, name: str, body: str) -> str:
    """An executable Python script in tmp_path; its path."""
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    return str(path)


def run_once(command: str, pattern: str | None = None, timeout: float = 30.0, path=CLRS):
    (external,) = parse_externals([f"x={command}"], [f"x={pattern}"] if pattern else [], timeout,
                                  set())
    network, _ = read_network(str(path))
    dimacs = InstanceFiles(str(path), network)
    try:
        return external.run(None, dimacs)
    finally:
        dimacs.close()


def test_hi_pr_output_gives_the_flow_its_cut_time_and_counters(tmp_path):
    result = run_once(program(tmp_path, "hi_pr", HI_PR))
    assert result.flow_value == 23
    assert result.times["stage1"] == 0.01 and result.times["wall"] > 0
    assert result.counters == {"pushes": 17, "gaps": 2}


def test_an_s_line_gives_the_flow_and_only_the_wall_and_cpu_times(tmp_path):
    result = run_once(program(tmp_path, "s_line", S_LINE))
    assert result.flow_value == 23 and set(result.times) == {"wall", "cpu"}
    assert 0 <= result.times["cpu"] <= result.times["wall"]


def test_a_pattern_reads_the_programs_own_words(tmp_path):
    assert run_once(program(tmp_path, "own", OWN_WORDS), r"flow value = (\d+)").flow_value == 23
    # no group: the match
    assert run_once(program(tmp_path, "own", OWN_WORDS), r"(?<== )\d+").flow_value == 23


@pytest.mark.parametrize("body, message", [
    ("print('hello')", "printed no flow value (no 'c flow:' or 's' line): hello"),
    ("print('s twelve')", "printed a flow value that is not an integer: 'twelve'"),
    ("print('c flow: 12.5')", "printed a flow value that is not an integer: '12.5'"),
    ("print('s 23'); print('c cut tm: soon')",
     "printed a cut time that is not a finite number >= 0: 'soon'"),
    ("import sys; sys.exit('boom')", "exited with status 1: boom"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "crashed (SIGSEGV)"),
])
def test_a_program_that_fails_says_how(tmp_path, body, message):
    with pytest.raises(RunFailed) as error:
        run_once(program(tmp_path, "bad", body))
    assert message in str(error.value)


def test_a_pattern_that_never_matches_is_named(tmp_path):
    with pytest.raises(RunFailed, match=r"nothing matches the pattern flow=\(\\d\+\)\): s 23"):
        run_once(program(tmp_path, "s_line", S_LINE), r"flow=(\d+)")


def test_a_program_past_the_timeout_is_killed_with_its_children(tmp_path):
    sleeper = program(tmp_path, "sleeper",
                      "import subprocess, time\nsubprocess.Popen(['sleep', '60'])\ntime.sleep(60)")
    started = time.perf_counter()
    with pytest.raises(RunFailed, match="ran past --external-timeout 1 s and was killed"):
        run_once(sleeper, timeout=1.0)
    assert time.perf_counter() - started < 20  # the child holding the pipes was killed too


@pytest.mark.parametrize("commands, patterns, message", [
    (["x"], [], "expected NAME=VALUE"),
    (["=./a.out"], [], "expected NAME=VALUE"),
    (["x="], [], "expected NAME=VALUE"),
    (["a b=true"], [], "a NAME is made of letters, digits and '_.+-'"),
    (["x=true", "x=false"], [], "'x' is given twice"),
    (["hipr=true"], [], "'hipr' is already a solver's name"),
    (["x=./no/such/program"], [], "no program './no/such/program'"),
    (["x=true 'unclosed"], [], "No closing quotation"),
    (["x=true"], ["x=("], "not a regular expression"),
    (["x=true"], ["y=\\d+"], "--external-pattern y=...: no --external y=COMMAND"),
])
def test_bad_options_are_refused_before_anything_runs(commands, patterns, message):
    with pytest.raises(ParameterError) as error:
        parse_externals(commands, patterns, 1.0, {"hipr"})
    assert message in str(error.value)


def test_a_program_on_path_is_found():
    (external,) = parse_externals([f"t={shutil.which('true')}"], [], 1.0, set())
    assert isinstance(external, External) and external.label == "t"


def test_a_plain_file_is_given_as_it_is_and_others_are_written_once(tmp_path):
    network, _ = read_network(str(CLRS))
    plain = InstanceFiles(str(CLRS), network)
    assert plain.path() == str(CLRS)
    plain.close()
    packed = tmp_path / "clrs.max.gz"
    packed.write_bytes(gzip.compress(CLRS.read_bytes()))
    unpacked = InstanceFiles(str(packed), network)
    assert unpacked.path() == unpacked.path() != str(packed)
    assert open(unpacked.path(), "rb").read() == CLRS.read_bytes()
    (instance,) = parse_instance("genrmf:a=3,b=4,seed=1")
    generated = InstanceFiles(None, instance.load()[0])
    written = generated.path()
    assert (read_network(written)[0].m, generated.path()) == (instance.load()[0].m, written)
    for dimacs in (unpacked, generated):
        temporary = dimacs.path()
        dimacs.close()
        assert not os.path.exists(temporary)


KEEPS_A_FILE = """
import os, sys
folder = os.environ["MAXFLOW_INSTANCE_CACHE"]
runs = len(os.listdir(folder))
open(os.path.join(folder, f"run{runs}"), "w").close()
print("s", runs)
"""


def test_each_instance_gives_its_programs_a_folder_of_its_own_while_it_runs(tmp_path):
    """External programs find MAXFLOW_INSTANCE_CACHE, the same folder from one run of an
    instance to the next (here each run counts the files of the runs before it), empty
    for another instance and removed with the instance's files."""
    (external,) = parse_externals([f"x={program(tmp_path, 'keeps', KEEPS_A_FILE)}"], [], 30.0,
                                  set())
    network, _ = read_network(str(CLRS))
    first, second = InstanceFiles(str(CLRS), network), InstanceFiles(str(CLRS), network)
    try:
        assert [external.run(None, first).flow_value for _ in range(3)] == [0, 1, 2]
        assert external.run(None, second).flow_value == 0
        folder = first.cache()
    finally:
        first.close()
        second.close()
    assert not os.path.exists(folder)


READ_FILE = """
import re, sys
assert sys.stdin.read() == "", "stdin is not /dev/null"
path = sys.argv[1].removeprefix("--input=")
text = open(path).read()
print("s", re.search(r"^c expected flow: (\\d+)", text, re.MULTILINE).group(1))
"""


@pytest.mark.parametrize("argument", ["{file}", "--input={file}"])
def test_file_names_the_instance_and_stdin_is_empty(tmp_path, argument):
    reader = program(tmp_path, "reader", READ_FILE)
    assert run_once(f"{reader} {argument}").flow_value == 23
    (external,) = parse_externals([f"x={reader} {argument}"], [], 1.0, set())
    assert external.reads_file and external.describe()["input"] == "file"
    assert external.arguments("/d/i.max") == [reader, argument.replace("{file}", "/d/i.max")]


def test_without_file_the_instance_is_on_stdin(tmp_path):
    (external,) = parse_externals([f"x={program(tmp_path, 'p', S_LINE)}"], [], 1.0, set())
    assert not external.reads_file and external.describe()["input"] == "stdin"
    with pytest.raises(RunFailed, match="stdin is not /dev/null"):  # READ_FILE given stdin
        run_once(f"{program(tmp_path, 'reader', READ_FILE)} --input={CLRS}")


@pytest.mark.parametrize("command, message", [
    ("true {foo}", "--external x=true {foo}: unknown placeholder {foo}; the only one is {file}"),
    ("true --in={file} {File}", "unknown placeholder {File}"),
])
def test_an_unknown_placeholder_is_refused(command, message):
    with pytest.raises(ParameterError) as error:
        parse_externals([f"x={command}"], [], 1.0, set())
    assert message in str(error.value) and "\n" not in str(error.value)


def test_other_braces_are_left_as_they_are():
    (external,) = parse_externals(["x=true '{print $1}' {} {{file}}"], [], 1.0, set())
    assert external.arguments("p") == ["true", "{print $1}", "{}", "{p}"]


def test_the_peak_memory_is_the_programs_own(tmp_path):
    small = run_once(program(tmp_path, "small", S_LINE))
    large = run_once(program(tmp_path, "large", "block = bytearray(200 * 2**20)\n" + S_LINE))
    assert 0 < small.peak_host_bytes < 100 * 2**20  # not this process's (pytest's) peak
    assert large.peak_host_bytes >= small.peak_host_bytes + 190 * 2**20


def test_output_larger_than_a_pipe_is_read_whole(tmp_path):
    chatty = program(tmp_path, "chatty", "print('c ' + 'x' * 100)\n" * 1 + (
        "import sys\nsys.stdout.write(('c ' + 'x' * 98 + '\\n') * 20000)\n" + S_LINE))
    assert run_once(chatty).flow_value == 23


def test_a_file_that_cannot_be_run_says_why(tmp_path):
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"\x00\x01 not a program")
    garbage.chmod(0o755)
    with pytest.raises(RunFailed, match=f"cannot start '{garbage}': Exec format error"):
        run_once(str(garbage))


def test_a_launcher_that_reports_nothing_is_a_failed_run(tmp_path, monkeypatch):
    monkeypatch.setattr(processes, "GUARDIAN", "raise SystemExit(5)")
    with pytest.raises(RunFailed, match="its launcher ended with status 5 and no report"):
        run_once(program(tmp_path, "s_line", S_LINE))


def test_the_wall_time_is_the_programs_not_the_launchers(tmp_path):
    result = run_once(program(tmp_path, "sleepy", "import time; time.sleep(0.3)\n" + S_LINE))
    assert 0.3 <= result.times["wall"] < 2


def test_a_binary_bk_file_reaches_programs_as_dimacs_text(tmp_path):
    from test_bbk import bbk_bytes

    path = tmp_path / "g.bbk"
    path.write_bytes(bbk_bytes())
    network, _ = read_network(str(path))
    dimacs = InstanceFiles(str(path), network)
    text, _ = read_network(dimacs.path())
    assert dimacs.path() != str(path) and open(dimacs.path(), "rb").read(2) in (b"c ", b"p ")
    assert (text.n, text.m, text.caps.tolist()) == (network.n, network.m, network.caps.tolist())
    dimacs.close()
