"""Atomic outputs: the file appears whole or not at all; write failures are one-line errors."""

import gzip
import os
import stat
import threading

import pytest

from maxflow_cli.errors import MaxflowError, ParameterError
from maxflow_cli.outputs import atomic_output, check_not_inputs, check_outputs, check_writable


def test_the_file_appears_only_on_success(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with atomic_output(str(target)) as stream:
            stream.write(b"half")
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
    with atomic_output(str(target)) as stream:
        stream.write(b"whole")
    assert target.read_bytes() == b"whole"


def test_compresses_by_suffix(tmp_path):
    with atomic_output(str(tmp_path / "out.gz")) as stream:
        stream.write(b"text")
    assert gzip.decompress((tmp_path / "out.gz").read_bytes()) == b"text"


@pytest.mark.parametrize("make_path,message", [
    (lambda tmp: tmp, "it is a directory"),
    (lambda tmp: tmp / "missing" / "out.txt", "no directory"),
])
def test_unwritable_paths_are_refused_up_front(tmp_path, make_path, message):
    with pytest.raises(MaxflowError, match=message):
        check_writable(str(make_path(tmp_path)))
    with pytest.raises(MaxflowError, match=message):
        with atomic_output(str(make_path(tmp_path))):
            pass


def test_check_outputs_says_whether_stdout_is_taken(tmp_path):
    file = str(tmp_path / "out.json")
    assert check_outputs({"--json": file, "--csv": None}) is False
    assert check_outputs({"--json": file, "--csv": "-"}) is True
    with pytest.raises(ParameterError, match="only one of --json, --csv, --plot can be '-'"):
        check_outputs({"--json": "-", "--csv": None, "--plot": "-"})
    with pytest.raises(MaxflowError, match="no directory"):
        check_outputs({"--json": "-", "--csv": str(tmp_path / "missing" / "out.csv")})


def test_a_failing_write_is_a_one_line_error_and_leaves_nothing(tmp_path, monkeypatch):
    import os

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(MaxflowError, match="out.txt: cannot write: No space left on device"):
        with atomic_output(str(tmp_path / "out.txt")) as stream:
            stream.write(b"data")
    assert list(tmp_path.iterdir()) == []


def test_a_symlink_is_followed_and_the_file_keeps_its_mode(tmp_path):
    target = tmp_path / "target.txt"
    target.write_bytes(b"old")
    target.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with atomic_output(str(link)) as stream:
        stream.write(b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "target.txt"]


def test_a_read_only_file_is_refused_not_replaced(tmp_path, monkeypatch):
    target = tmp_path / "kept.txt"
    target.write_bytes(b"old")
    writable = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: writable(path, mode) and
                        os.fspath(path) != str(target))  # as for a 0444 file, even for root
    with pytest.raises(MaxflowError, match="permission denied"):
        check_writable(str(target))
    assert target.read_bytes() == b"old"


def test_a_fifo_is_written_into_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    with atomic_output(str(fifo)) as stream:
        stream.write(b"through the pipe")
    reader.join(timeout=10)
    assert received == [b"through the pipe"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_two_outputs_on_one_file_are_refused(tmp_path):
    out = tmp_path / "out.txt"
    link = tmp_path / "link.txt"
    link.symlink_to(out)
    for second in (out, link):
        with pytest.raises(ParameterError, match="--flow and --cut both write to one file"):
            check_outputs({"--flow": str(out), "--cut": str(second)})
    out.write_text("exists")
    with pytest.raises(ParameterError, match="both write to one file"):
        check_outputs({"--flow": str(out), "--cut": str(link)})


def test_an_output_that_is_the_input_is_refused(tmp_path):
    source = tmp_path / "net.max"
    source.write_text("p max 2 0\n")
    link = tmp_path / "link.max"
    link.symlink_to(source)
    for output in (source, link):
        with pytest.raises(ParameterError, match="is the input file"):
            check_outputs({"--flow": str(output)}, inputs=[str(source)])
    assert check_outputs({"--flow": str(tmp_path / "other")}, inputs=[str(source), "-"]) is False


def test_an_empty_file_name_is_refused():
    with pytest.raises(ParameterError, match="--cut: the file name is empty"):
        check_outputs({"--cut": "", "--flow": None})


@pytest.fixture
def stdin_from(tmp_path):
    """Point descriptor 0 at a file for the test (as `< file` does), then back."""
    saved = os.dup(0)

    def redirect(path):
        with open(path, "rb") as source:
            os.dup2(source.fileno(), 0)

    yield redirect
    os.dup2(saved, 0)
    os.close(saved)


def test_an_output_that_is_stdin_is_refused_however_named(tmp_path, stdin_from):
    source = tmp_path / "net.max"
    source.write_text("p max 2 0\n")
    (tmp_path / "link.max").symlink_to(source)
    os.link(source, tmp_path / "hard.max")
    stdin_from(source)
    for output in (source, tmp_path / "link.max", tmp_path / "hard.max", "/dev/stdin"):
        with pytest.raises(ParameterError, match=f"--cut {output} is the input \\(stdin\\)"):
            check_not_inputs(["-"], {"--flow": None, "--cut": str(output)})
    check_not_inputs(["-"], {"--cut": str(tmp_path / "new.max"), "--flow": "-"})


def test_writing_the_device_that_is_stdin_destroys_nothing(stdin_from):
    stdin_from(os.devnull)
    check_not_inputs(["-", os.devnull], {"--flow": os.devnull})
