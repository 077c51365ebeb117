"""The DIMACS reader: what it accepts, and a precise error (file, line, expectation) otherwise."""

import bz2
import gzip
import lzma
import sys
import types

import numpy as np
import pytest
from fixtures import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from maxflow_cli import memory
from maxflow_cli.dimacs import reader
from maxflow_cli.dimacs.reader import parse_network, read_lengths, read_network
from maxflow_cli.errors import InputError, MaxflowError

HEADER = "p max 4 2\nn 1 s\nn 4 t\n"


def parse(text: str, lenient: bool = False):
    return parse_network(text.encode(), "f.max", lenient)


def test_reads_arcs_in_input_order_with_zero_based_ids():
    network, warnings = parse(HEADER + "a 1 2 5\na 2 4 7\n")
    assert (network.n, network.source, network.sink) == (4, 0, 3)
    assert network.tails.tolist() == [0, 1]
    assert network.heads.tolist() == [1, 3]
    assert network.caps.tolist() == [5, 7]
    assert network.tails.dtype == np.int32 and network.caps.dtype == np.int64
    assert warnings == []


def test_accepts_the_edge_case_file():
    network, warnings = read_network(str(DATA / "edge-cases.max"))
    assert network.n == 7 and network.m == 13 and warnings == []
    assert (network.source, network.sink) == (0, 5)
    # self-loops, parallel and anti-parallel arcs and zero capacities are kept as given
    assert (1, 1, 100) in zip(network.tails.tolist(), network.heads.tolist(),
                              network.caps.tolist())
    assert network.caps.tolist().count(0) == 1
    assert network.tails[-1] == network.heads[-1] == 5  # last line, no final newline


def test_leading_zeros_are_fine():
    network, _ = parse("p max 4 2\nn 01 s\nn 4 t\na 1 2 00000000000000000005\na 2 4 07\n")
    assert network.caps.tolist() == [5, 7] and network.source == 0


def test_skips_the_acyclic_dense_seed_line_with_a_warning():
    network, warnings = parse("p max 4 2\nn 1 s\nn 4 t\ns 12345\na 1 2 5\na 2 4 7\n")
    assert network.m == 2
    assert len(warnings) == 1 and "f.max:4" in warnings[0] and "seed" in warnings[0]


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_reads_compressed_files(tmp_path, compress):
    text = (DATA / "clrs.max").read_bytes()
    path = tmp_path / "clrs.max.x"
    path.write_bytes(compress(text))
    network, _ = read_network(str(path))
    plain, _ = read_network(str(DATA / "clrs.max"))
    assert network.m == plain.m and np.array_equal(network.caps, plain.caps)


def test_reads_stdin(monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        (HEADER + "a 1 2 5\na 2 4 7\n").encode())))
    network, _ = read_network("-")
    assert network.m == 2


def test_lenient_accepts_a_wrong_arc_count_with_a_warning():
    network, warnings = parse(HEADER + "a 1 2 5\na 2 4 7\na 1 4 1\n", lenient=True)
    assert network.m == 3
    assert "declares 2 arcs" in warnings[0] and "3" in warnings[0]


ERRORS = [
    ("c only a comment\n", None, "no 'p max N M' line"),
    ("a 1 2 3\np max 4 1\n", 1, "'a' line before the 'p max N M' line"),
    ("c x\nn 1 s\np max 4 1\n", 2, "'n' line before"),
    ("p max 4 1\np max 4 1\n", 2, "a second 'p' line (the first is on line 1)"),
    ("p min 4 1\n", 1, "problem type 'min', expected 'max'"),
    ("p max 0 1\n", 1, "integers N >= 1 and M >= 0, found '0'"),
    ("p max 4 -1\n", 1, "integers N >= 1 and M >= 0, found '-1'"),
    ("p max 4 x\n", 1, "integers N >= 1 and M >= 0, found 'x'"),
    ("p max 4\n", 1, "'p max N M' (4 fields), found 3"),
    (HEADER + "a 1 5 3\n", 4, "vertex id '5' outside 1..4"),
    (HEADER + "a 0 2 3\n", 4, "vertex id '0' outside 1..4"),
    ("p max 4 1\nn 1 s\nn 9 t\n", 3, "vertex id '9' outside 1..4"),
    ("p max 4 1\nn 1 s\na 1 2 3\n", None, "no sink"),
    ("p max 4 1\nn 4 t\na 1 2 3\n", None, "no source"),
    ("p max 4 1\nn 1 s\nn 2 s\n", 3, "a second 's' line (the first is on line 2)"),
    ("p max 4 1\nn 1 t\nn 2 t\n", 3, "a second 't' line"),
    ("p max 4 1\nn 2 s\nn 2 t\n", 3, "the source and the sink are the same vertex"),
    ("p max 4 1\nn 2 x\n", 2, "expected 'n ID s' or 'n ID t'"),
    (HEADER + "a 1 2 -3\n", 4, "negative capacity '-3'"),
    (HEADER + "a 1 2 3.5\n", 4, "expected an integer, found '3.5'"),
    (HEADER + "a 1 2 1e3\n", 4, "expected an integer, found '1e3'"),
    (HEADER + "a one 2 3\n", 4, "expected an integer, found 'one'"),
    (HEADER + "a 1 2\n", 4, "'a U V CAP' (4 fields), found 3"),
    (HEADER + "a 1 2 3 4\n", 4, "'a U V CAP' (4 fields), found 5"),
    (HEADER + "a 1 2 4611686018427387905\n", 4, "above the largest accepted, 2^62"),
    (HEADER + "a 1 2 99999999999999999999999\n", 4, "above the largest accepted"),
    (HEADER + "a 1 2 9999999999999999999\n", 4, "above the largest accepted"),
    ("p max 3 9999999999999999999\n", 1, "'9999999999999999999' is too large"),
    ("p max 9999999999999999999 2\n", 1, "'9999999999999999999' is too large"),
    ("p max 4 1\nn 9999999999999999999 s\n", 2, "outside 1..4"),
    (HEADER + "a 1 9999999999999999999 3\n", 4, "outside 1..4"),
    (HEADER + "x 1 2 3\n", 4, "unknown line type 'x'"),
    (HEADER + "arc 1 2 3\n", 4, "unknown line type 'arc'"),
    (HEADER + "a 1 2 3\n", 1, "declares 2 arcs but the file has 1"),
    (HEADER + "a 1 2 3\na 2 4 7\na 1 3 1\n", 1, "declares 2 arcs but the file has 3"),
    (HEADER + "a 1 2 3\na 2 4", 5, "ends in the middle of this line"),
    ("p max 4 2\rn 1 s\rn 4 t\r", 1, "found 10 fields (the lines end in CR only: DIMACS"),
    (HEADER + "a 1 2 \x1b[31m\n", 4, "expected an integer, found '\\x1b[31m'"),
    (HEADER + "\x00\x07 1 2 3\n", 4, "unknown line type '\\x00\\x07'"),
    (HEADER + "a 1 2 " + "9" * 5_000_000 + "\n", 4,
     "capacity '" + "9" * 40 + "...' (5,000,000 bytes) is above"),
]


@pytest.mark.parametrize("text,line,message", ERRORS)
def test_bad_input_names_the_file_the_line_and_the_expectation(text, line, message):
    with pytest.raises(InputError) as caught:
        parse(text)
    assert caught.value.line == line
    assert caught.value.source == "f.max"
    assert message in caught.value.message
    assert str(caught.value).startswith("f.max:" if line is None else f"f.max:{line}: ")


def test_a_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_network(str(tmp_path / "nope.max"))


def test_a_corrupt_compressed_file_is_an_input_error(tmp_path):
    path = tmp_path / "bad.max.gz"
    path.write_bytes(gzip.compress(b"p max 2 0\n")[:-6])
    with pytest.raises(InputError, match="corrupt compressed file"):
        read_network(str(path))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**62)),
                min_size=1, max_size=30),
       st.sampled_from(["\n", "\r\n"]), st.sampled_from(["", " ", "\t "]))
def test_round_trips_random_arc_lists(arcs, newline, padding):
    lines = ["p max 9 %d" % len(arcs), "n 1 s", "n 9 t"]
    lines += [f"a {u} {v}{padding} {c}{padding}" for u, v, c in arcs]
    network, _ = parse_network(newline.join(lines).encode(), "r.max")
    assert list(zip(network.tails + 1, network.heads + 1, network.caps)) == arcs


def test_a_network_with_no_arcs_is_valid():
    network, warnings = parse("p max 2 0\nn 1 s\nn 2 t\n")
    assert (network.n, network.m, network.source, network.sink) == (2, 0, 0, 1)
    assert network.tails.dtype == np.int32 and warnings == []
    network, _ = parse("p max 3 0\nn 1 s\nn 3 t\na 1 3 5\n", lenient=True)
    assert network.caps.tolist() == [5]


class EndlessStdin:
    """A stdin that never ends, counting the bytes taken from it."""

    def __init__(self, head: bytes, filler: bytes):
        self.head, self.filler, self.taken = head, filler, 0

    def read(self, size=-1):
        assert size > 0, "an endless stream cannot be read whole"
        block = (self.head + self.filler * (size // len(self.filler) + 1))[:size]
        self.head = self.head[size:]
        self.taken += len(block)
        return block


def test_a_stream_with_no_problem_line_is_not_read_further(monkeypatch):
    stdin = EndlessStdin(b"", b"\x00")  # /dev/zero
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=stdin))
    with pytest.raises(InputError, match="^<stdin>: no 'p max N M' line in the first 4.2 MB: "
                                         "not a DIMACS max file$"):
        read_network("-")
    assert stdin.taken <= reader.PROBE_BYTES + reader.READ_CHUNK
    stdin = EndlessStdin(b"c binary\n", b"\x00\xff\n")
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=stdin))
    with pytest.raises(InputError, match="^<stdin>:2: unknown line type '\\\\x00"):
        read_network("-")


def test_a_network_too_large_for_the_memory_is_refused_after_the_problem_line(monkeypatch):
    stdin = EndlessStdin(b"c huge\np max 300000000 1000000\nn 1 s\nn 2 t\n", b"a 1 2 3\n")
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=stdin))
    monkeypatch.setattr(memory, "available", lambda: 2 * 10**9)
    with pytest.raises(MaxflowError, match="^<stdin>: a network of 300,000,000 vertices and "
                                           "1,000,000 arcs needs about 4.9 GB of memory; "
                                           "this machine has 2.0 GB available$"):
        read_network("-")
    assert stdin.taken <= reader.PROBE_BYTES + reader.READ_CHUNK


def test_a_multi_stream_compressed_file_is_read_whole(tmp_path):
    path = tmp_path / "two.max.gz"
    path.write_bytes(gzip.compress(HEADER.encode()) + gzip.compress(b"a 1 2 5\na 2 4 7\n"))
    network, _ = read_network(str(path))
    assert network.caps.tolist() == [5, 7]


def test_reads_a_dimacs_shortest_path_file(tmp_path):
    path = tmp_path / "g.gr"
    path.write_text("c 9th DIMACS challenge\np sp 3 3\na 1 2 7\na 2 3 0\na 3 1 5\n")
    network = read_lengths(str(path))
    assert (network.n, network.tails.tolist(), network.heads.tolist(), network.caps.tolist()) \
        == (3, [0, 1, 2], [1, 2, 0], [7, 0, 5])


@pytest.mark.parametrize("text, line, message", [
    ("p max 3 1\n", 1, "problem type 'max', expected 'sp'"),
    ("p sp 3 1\nn 1 s\n", 2, "unknown line type 'n', expected one of c, p, a"),
    ("p sp 3 1\na 1 2 -4\n", 2, "negative length '-4', expected an integer >= 0"),
    ("p sp 3 1\na 1 2\n", 2, "expected 'a U V W' (4 fields), found 3 fields"),
    ("a 1 2 3\n", 1, "'a' line before the 'p sp N M' line"),
    ("p sp 3 2\na 1 2 3\n", 1, "the 'p' line declares 2 arcs but the file has 1"),
])
def test_bad_shortest_path_input_names_the_line(tmp_path, text, line, message):
    path = tmp_path / "bad.gr"
    path.write_text(text)
    with pytest.raises(InputError) as error:
        read_lengths(str(path))
    assert (error.value.line, message in error.value.message) == (line, True), error.value
