"""The DIMACS writer: printf-exact rows, chunking, headers, and files the reader reads back."""

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maxflow_cli.dimacs.reader import parse_network
from maxflow_cli.dimacs.writer import format_rows, write_header, write_network, write_rows
from maxflow_cli.network import Network

values = st.integers(min_value=0, max_value=2**63 - 1)


def printf(prefix: bytes, rows, widths) -> bytes:
    """What C's printf (and Python's %) makes of the rows."""
    return b"".join(
        prefix + b"".join(b" %*d" % (w, v) for w, v in zip(widths, row)) + b"\n" for row in rows
    )


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda k: st.tuples(
            st.lists(st.tuples(*[values] * k), max_size=30),
            st.lists(st.integers(0, 25), min_size=k, max_size=k),
        )
    ),
    st.sampled_from([b"a", b"f", b"", b"xyz"]),
)
def test_format_rows_is_printf(rows_and_widths, prefix):
    rows, widths = rows_and_widths
    columns = [np.array([row[c] for row in rows], dtype=np.int64) for c in range(len(widths))]
    assert format_rows(prefix, columns, widths) == printf(prefix, rows, widths)


def test_digit_boundaries():
    numbers = sorted(
        {0, 2**63 - 1} | {10**d + e for d in range(19) for e in (-1, 0) if 10**d + e >= 0}
    )
    column = np.array(numbers, dtype=np.int64)
    assert format_rows(b"a", [column], [0]) == printf(b"a", [(v,) for v in numbers], [0])
    assert format_rows(b"a", [column], [10]) == printf(b"a", [(v,) for v in numbers], [10])


def test_mixed_dtypes_and_genrmf_widths():
    tails, heads, caps = (
        np.array([1, 9999999], np.int32),
        np.array([12, 2], np.uint32),
        np.array([900, 7], np.int64),
    )
    assert format_rows(b"a", [tails, heads, caps], [7, 7, 10]) == (
        b"a       1      12        900\na 9999999       2          7\n"
    )


def test_empty_columns_give_no_text():
    assert format_rows(b"a", [np.array([], np.int64)], [3]) == b""


@pytest.mark.parametrize(
    "columns, widths",
    [([np.array([3, -1])], [0]), ([np.array([1]), np.array([2])], [0]), ([np.array([1])], [-4])],
    ids=["negative value", "fewer widths than columns", "negative width"],
)
def test_refuses(columns, widths):
    with pytest.raises(ValueError):
        format_rows(b"a", columns, widths)


@given(st.lists(st.tuples(values, values), max_size=50), st.integers(1, 7))
def test_write_rows_chunks_and_add(rows, chunk):
    left = np.array([r[0] for r in rows], dtype=np.int64) // 2
    right = np.array([r[1] for r in rows], dtype=np.int64) // 2
    stream = io.BytesIO()
    write_rows(stream, b"f", [left, right], [0, 3], add=(1, 0), chunk=chunk)
    assert stream.getvalue() == printf(
        b"f", [(a + 1, b) for a, b in zip(left.tolist(), right.tolist())], [0, 3]
    )


def test_write_network_text():
    network = Network.from_arcs(4, 0, 3, [(0, 1, 5), (1, 3, 12), (0, 2, 0)])
    stream = io.BytesIO()
    write_network(stream, network, comments=["made by a test", ""])
    assert stream.getvalue() == (
        b"c made by a test\nc\np max 4 3\nn 1 s\nn 4 t\na 1 2 5\na 2 4 12\na 1 3 0\n"
    )


def test_header_widths_follow_arc_widths():
    """genrmf's header: p max %7d %10d, n %7d s (widths of the tail and capacity columns)."""
    stream = io.BytesIO()
    write_header(stream, Network.from_arcs(18, 0, 17, [(0, 11, 2)]), widths=(7, 7, 10))
    assert stream.getvalue() == b"p max      18          1\nn       1 s\nn      18 t\n"


arcs = st.integers(2, 40).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(0, 2**62)),
            min_size=1,
            max_size=60,
        ),
    )
)


@settings(deadline=None)
@given(arcs, st.sampled_from([(0, 0, 0), (7, 7, 10)]))
def test_reader_reads_back(instance, widths):
    n, arc_list = instance
    network = Network.from_arcs(n, 0, n - 1, arc_list)
    stream = io.BytesIO()
    write_network(stream, network, ["round trip"], widths)
    back, warnings = parse_network(stream.getvalue())
    assert warnings == []
    assert (back.n, back.source, back.sink) == (n, 0, n - 1)
    for name in ("tails", "heads", "caps"):
        assert np.array_equal(getattr(back, name), getattr(network, name))
