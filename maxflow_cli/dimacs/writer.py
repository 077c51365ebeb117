"""Write DIMACS text fast: rows of integers formatted by one Numba pass, in bounded chunks.

Each row is ``prefix`` then, per column, a space and the value in decimal, right-aligned
and space-padded to the column's width like C ``printf("%7d")`` (width 0: no padding).
That covers every line format of the original generators (genrmf's ``a %7d %7d %10d``,
washington's and ac's ``a %d %d %d``) and flow lines (``f u v x``). Only the few header
lines go through Python formatting.
"""

from typing import BinaryIO, Iterable, Sequence

import numba
import numpy as np

from maxflow_cli.network import Network

CHUNK_ROWS = 1 << 20
"""Rows formatted at a time: about 30 MB of text for three columns, whatever the file size."""

_SPACE = 32
_NEWLINE = 10
_ZERO = 48


_PAIRS = np.frombuffer(b"".join(b"%02d" % i for i in range(100)), dtype=np.uint8)
"""The two digits of 0..99 side by side: the formatter writes two digits per division."""


@numba.njit(cache=True)
def _format(prefix, table, widths, out, pairs):
    """Write the rows of ``table`` (columns x rows, non-negative) as text into ``out``."""
    pos = 0
    for row in range(table.shape[1]):
        for byte in prefix:
            out[pos] = byte
            pos += 1
        for col in range(table.shape[0]):
            value = np.uint64(table[col, row])
            digits = 1
            rest = value
            while rest >= 100:
                digits += 2
                rest //= np.uint64(100)
            if rest >= 10:
                digits += 1
            out[pos] = _SPACE
            pos += 1
            for _ in range(widths[col] - digits):
                out[pos] = _SPACE
                pos += 1
            pos += digits
            end = pos
            while value >= 100:
                pair = np.uint64(2) * (value % np.uint64(100))
                value //= np.uint64(100)
                end -= 2
                out[end] = pairs[pair]
                out[end + 1] = pairs[pair + np.uint64(1)]
            if value >= 10:
                out[end - 2] = pairs[np.uint64(2) * value]
                out[end - 1] = pairs[np.uint64(2) * value + np.uint64(1)]
            else:
                out[end - 1] = np.uint64(_ZERO) + value
        out[pos] = _NEWLINE
        pos += 1
    return pos


def _format_chunk(
    prefix: bytes, columns: Sequence[np.ndarray], widths: Sequence[int]
) -> np.ndarray:
    """Format equal-length integer columns; returns the text as a uint8 array."""
    table = np.stack([np.asarray(column, dtype=np.int64) for column in columns])
    if len(widths) != table.shape[0] or min(widths, default=0) < 0:
        raise ValueError(f"{table.shape[0]} columns need as many widths >= 0, not {list(widths)}")
    if table.size == 0:
        return np.empty(0, np.uint8)
    if table.min() < 0:
        raise ValueError("the DIMACS writer formats non-negative integers only")
    longest = [max(int(width), len(str(int(top)))) for width, top in zip(widths, table.max(axis=1))]
    out = np.empty(table.shape[1] * (len(prefix) + len(longest) + sum(longest) + 1), np.uint8)
    prefix_bytes = np.frombuffer(prefix, dtype=np.uint8)
    size = _format(prefix_bytes, table, np.asarray(widths, dtype=np.int64), out, _PAIRS)
    return out[:size]


def format_rows(prefix: bytes, columns: Sequence[np.ndarray], widths: Sequence[int]) -> bytes:
    """The text of rows ``prefix`` + `` %*d`` per column + newline, as ``bytes``.

    ``columns`` are equal-length integer arrays; negative values raise ``ValueError``.
    """
    return _format_chunk(prefix, columns, widths).tobytes()


def write_rows(
    stream: BinaryIO,
    prefix: bytes,
    columns: Sequence[np.ndarray],
    widths: Sequence[int],
    add: Sequence[int] | None = None,
    chunk: int = CHUNK_ROWS,
) -> None:
    """Write :func:`format_rows` text to ``stream``, ``chunk`` rows at a time.

    ``add`` is a constant added to each column before formatting (1 turns 0-based vertex
    ids into the file's 1-based ones without copying whole arrays).
    """
    add = [0] * len(columns) if add is None else add
    rows = len(columns[0]) if columns else 0
    for start in range(0, rows, chunk):
        part = [
            np.asarray(column[start : start + chunk], np.int64) + extra
            for column, extra in zip(columns, add)
        ]
        stream.write(memoryview(_format_chunk(prefix, part, widths)))


def write_header(
    stream: BinaryIO,
    network: Network,
    comments: Iterable[str] = (),
    widths: Sequence[int] = (0, 0, 0),
) -> None:
    """Write ``c`` lines, ``p max n m`` and the ``n`` lines (1-based ids).

    ``widths`` are those of the arc lines: ``p`` pads n like a tail and m like a capacity,
    ``n`` lines pad the id like a tail (genrmf's ``p max %7d %10d``, ``n %7d s``).
    """
    id_width, _, number_width = widths
    lines = [f"c {comment}" if comment else "c" for comment in comments]  # as written
    lines.append("p max %*d %*d" % (id_width, network.n, number_width, network.m))
    lines.append("n %*d s" % (id_width, network.source + 1))
    lines.append("n %*d t" % (id_width, network.sink + 1))
    stream.write(("\n".join(lines) + "\n").encode("ascii"))


def write_arcs(
    stream: BinaryIO, network: Network, widths: Sequence[int] = (0, 0, 0), chunk: int = CHUNK_ROWS
) -> None:
    """Write one ``a tail head capacity`` line per arc, in the network's order, 1-based ids."""
    write_rows(
        stream,
        b"a",
        [network.tails, network.heads, network.caps],
        widths,
        add=(1, 1, 0),
        chunk=chunk,
    )


def write_network(
    stream: BinaryIO,
    network: Network,
    comments: Iterable[str] = (),
    widths: Sequence[int] = (0, 0, 0),
) -> None:
    """Write ``network`` as a DIMACS ``max`` file: comments, problem line, terminals, arcs."""
    write_header(stream, network, comments, widths)
    write_arcs(stream, network, widths)
