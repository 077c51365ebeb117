"""Atomic outputs: the file appears whole or not at all; write failures are one-line errors."""

import gzip

import pytest

from maxflow_cli.errors import MaxflowError, ParameterError
from maxflow_cli.outputs import atomic_output, check_outputs, check_writable


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
