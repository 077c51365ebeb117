"""Binary BK files (.bbk, Jensen et al.): values, every integer type in both record layouts,
snappy compression, and one-line errors for what is wrong with a file."""

import gzip
import struct
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from oracle import max_flow_value

from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.cli import main
from maxflow_cli.dimacs.reader import parse_network, read_network
from maxflow_cli.errors import InputError

FORMATS = "BbHhIiQqfd"  # struct codes by graph_io.h TypeCode 0..9

# Three nodes: terminal arcs (node, source_cap, sink_cap), neighbour arcs (i, j, cap, rev_cap).
TERMINALS = [(0, 5, 0), (2, 0, 7), (1, 3, 4), (1, 0, 0)]
NEIGHBOURS = [(0, 1, 2, 3), (1, 2, 0, 6), (0, 2, 0, 0), (2, 0, 9, 0)]
# What bench_io's bbk_to_dimacs writes for them: source 1, sink 2, node i is i + 3.
DIMACS = b"""p max 5 10
n 1 s
n 2 t
a 1 3 5
a 5 2 7
a 1 4 3
a 4 2 4
a 1 4 0
a 3 4 2
a 4 3 3
a 5 4 6
a 3 5 0
a 5 3 9
"""


def records(rows, code, ids, padded):
    """Little-endian records: uint64 ids, then two capacities of type ``code``, padded to 8
    bytes as C++ structs are (write_bk_to_bbk) or packed as graph_io.py writes them."""
    out = b""
    for row in rows:
        record = struct.pack(f"<{ids}Q2{FORMATS[code]}", *row)
        out += record + b"\0" * (-len(record) % 8 if padded else 0)
    return out


def snappy(data):
    import cramjam
    return bytes(cramjam.snappy.compress_raw(data))


def bbk_bytes(terminals=TERMINALS, neighbours=NEIGHBOURS, nodes=3, captype=5, tcaptype=5,
              padded=False, compress=False, magic=None):
    """A binary BK file as graph_io.h describes it."""
    header = (magic or (b"bbq" if compress else b"BBQ")) + bytes([captype, tcaptype])
    header += struct.pack("<3Q", nodes, len(terminals), len(neighbours))
    blocks = [records(terminals, tcaptype, 1, padded), records(neighbours, captype, 2, padded)]
    if compress:
        blocks = [struct.pack("<Q", len(c)) + c for c in map(snappy, blocks)]
    return header + b"".join(blocks)


def retyped(captype, tcaptype):
    """The default file with other type codes in its header (its records are int32)."""
    data = bbk_bytes()
    return data[:3] + bytes([captype, tcaptype]) + data[5:]


def read(tmp_path, data, name="g.bbk"):
    path = tmp_path / name
    path.write_bytes(data)
    network, warnings = read_network(str(path))
    assert warnings == []
    return network


def arcs(network):
    return list(zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist()))


def test_the_network_is_the_authors_dimacs_conversion(tmp_path):
    network = read(tmp_path, bbk_bytes())
    expected, _ = parse_network(DIMACS)
    assert (network.n, network.source, network.sink) == (5, 0, 1)
    assert arcs(network) == arcs(expected)
    for array in ("tails", "heads", "caps"):
        assert getattr(network, array).dtype == getattr(expected, array).dtype
    assert max_flow_value(5, 0, 1, arcs(network)) == 4


@pytest.mark.parametrize("padded", [False, True], ids=["packed", "padded"])
@pytest.mark.parametrize("code", range(8), ids=[f"type{c}" for c in range(8)])
def test_every_integer_type_in_both_layouts(tmp_path, code, padded):
    top = {0: 255, 1: 127, 2: 65535, 3: 32767, 4: 2**32 - 1, 5: 2**31 - 1, 6: 2**62,
           7: 2**62}[code]
    terminals = [(0, top, 0), (1, 0, 1)]
    neighbours = [(0, 1, top, 1), (1, 0, 0, top)]
    network = read(tmp_path, bbk_bytes(terminals, neighbours, 2, code, code, padded))
    assert arcs(network) == [(0, 2, top), (3, 1, 1), (2, 3, top), (3, 2, 1), (2, 3, top)]


def test_types_may_differ_between_the_two_arrays(tmp_path):
    data = bbk_bytes(captype=7, tcaptype=0, padded=True)
    assert arcs(read(tmp_path, data)) == arcs(parse_network(DIMACS)[0])


def test_empty_graph(tmp_path):
    network = read(tmp_path, bbk_bytes([], [], nodes=0))
    assert (network.n, network.m) == (2, 0)


def test_solve_and_bench_read_it(tmp_path):
    path = tmp_path / "g.bbk"
    path.write_bytes(bbk_bytes())
    result = CliRunner().invoke(main, ["solve", str(path), "--check"])
    assert result.exit_code == 0, result.output
    assert "flow value 4 " in result.output
    (instance,) = parse_instance(str(path))
    assert arcs(instance.load()[0]) == arcs(read(tmp_path, bbk_bytes()))


def test_told_by_magic_whatever_the_name_and_through_gzip(tmp_path):
    expected = arcs(read(tmp_path, bbk_bytes()))
    assert arcs(read(tmp_path, bbk_bytes(), name="graph.bin")) == expected
    assert arcs(read(tmp_path, gzip.compress(bbk_bytes()), name="graph.bbk.gz")) == expected


BAD = [
    (b"BBX" + bbk_bytes()[3:], "not a binary BK file: it starts with b'BBX', expected 'BBQ'"),
    (b"p max 2 0\n", "not a binary BK file: it starts with b'p m'"),
    (bbk_bytes()[:20], "the file ends after 20 bytes, inside the 29-byte binary BK header"),
    (retyped(10, 5), "unknown capacity type code 10 of the neighbour arcs, expected 0-9"),
    (retyped(5, 255), "unknown capacity type code 255 of the terminal arcs"),
    (bbk_bytes(captype=8), "the neighbour arcs have floating-point capacities (float32); "
                           "the solvers need integers"),
    (bbk_bytes(tcaptype=9), "the terminal arcs have floating-point capacities (float64)"),
    (bbk_bytes()[:-1], "need 160 (truncated?)"),
    (bbk_bytes() + b"\0" * 8, "168 bytes of arcs where the header's 4 terminal and 4 "
                              "neighbour arcs need 160 (more than the header declares)"),
    (bbk_bytes(nodes=2), "terminal arc 1: node id 2 outside 0..1"),
    (bbk_bytes(neighbours=[(0, 5, 1, 1)]), "neighbour arc 0: node id 5 outside 0..2"),
    (bbk_bytes([(0, -3, 0)], [], tcaptype=1), "terminal arc 0: capacity -3 outside 0..2^62"),
    (bbk_bytes([], [(0, 1, 1, 2**62 + 1)], captype=6), "neighbour arc 0: capacity "
                                                       f"{2**62 + 1} outside 0..2^62"),
    (bbk_bytes(nodes=2**31), "is too large: at most"),
]


@pytest.mark.parametrize("data, message", BAD, ids=range(len(BAD)))
def test_malformed_files_are_one_line_errors(tmp_path, data, message):
    path = tmp_path / "bad.bbk"
    path.write_bytes(data)
    with pytest.raises(InputError, match=None) as error:
        read_network(str(path))
    assert message in str(error.value) and str(error.value).startswith(f"{path}: ")
    result = CliRunner().invoke(main, ["solve", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.count("\n") == 1 and message in result.output


def test_snappy_compressed_files(tmp_path):
    pytest.importorskip("cramjam")
    for padded in (False, True):
        data = bbk_bytes(compress=True, padded=padded, captype=3, tcaptype=0)
        assert arcs(read(tmp_path, data, "g.bbkc")) == arcs(parse_network(DIMACS)[0])
    whole = bbk_bytes(compress=True)
    for data, message in [
        (whole[:-3], "the compressed neighbour arcs need"),
        (whole[:33], "the file ends before the byte count of the compressed terminal arcs"),
        (whole + b"x", "1 bytes after the compressed arcs"),
        (whole[:37] + b"\xff" * (len(whole) - 37), "corrupt snappy data in the terminal arcs"),
        (bbk_bytes(compress=True, terminals=TERMINALS + [(0, 1, 1)], nodes=3)[:29]
         + whole[29:], "arcs need 176 (truncated?)"),
    ]:
        with pytest.raises(InputError) as error:
            read(tmp_path, data)
        assert message in str(error.value)


def test_without_the_snappy_extra_a_compressed_file_says_what_to_install(tmp_path,
                                                                         monkeypatch):
    monkeypatch.setitem(sys.modules, "cramjam", None)  # import cramjam raises ImportError
    header = bbk_bytes([], [])[:29].replace(b"BBQ", b"bbq")
    path = tmp_path / "g.bbk"
    path.write_bytes(header + struct.pack("<Q", 1) + b"\0" + struct.pack("<Q", 1) + b"\0")
    result = CliRunner().invoke(main, ["solve", str(path)])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert ("a snappy-compressed binary BK file ('bbq'): reading it needs the snappy extra: "
            "pip install 'maxflow-dimacs[snappy]'") in result.output


def test_records_match_numpy_aligned_layout():
    """The test's writer pads as C does (and as numpy's align=True lays records out)."""
    for code in range(8):
        size = len(records([(0, 1, 1)], code, 1, padded=True))
        kind = np.dtype(FORMATS[code])
        assert size == np.dtype([("n", "<u8"), ("a", kind), ("b", kind)], align=True).itemsize
