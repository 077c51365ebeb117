"""Read DIMACS `max` files fast: the raw bytes are parsed by one Numba pass, not a Python loop.

Format (DIMACS 1991 implementation challenge; Gutiérrez Mota 2012, ch. 2):
``c`` comment lines, one ``p max N M`` line, ``n ID s`` and ``n ID t``, then ``a U V CAP``
per arc. Anything else is refused with the file, the line and what was expected, except the
``s <seed>`` line written by the original acyclic-dense generator, skipped with a warning.
M may be 0: a network with no arcs is valid, its maximum flow 0. `_parse` reads line by line,
one function per line kind.

The same parser reads the shortest-path graphs of the 9th DIMACS challenge (``p sp N M``, then
``a U V W`` per arc with an integer length W >= 0, no ``n`` lines) for `maxflow paths`:
read_lengths.
"""

import bz2
import contextlib
import itertools
import lzma
import os
import sys
import zlib
from dataclasses import dataclass
from typing import Iterator

import numba
import numpy as np

from maxflow_cli import memory
from maxflow_cli.dimacs import bbk
from maxflow_cli.errors import InputError
from maxflow_cli.limits import MAX_ARCS, MAX_CAPACITY, MAX_VERTICES
from maxflow_cli.memory import NETWORK_BYTES_PER_ARC, human_bytes, residual_bytes
from maxflow_cli.network import Network

# Status codes of the parser; _error() turns each into a message.
OK = 0
NO_PROBLEM_LINE = 1
BEFORE_PROBLEM_LINE = 2
SECOND_PROBLEM_LINE = 3
NOT_MAX = 4
BAD_SIZE = 5
VERTEX_RANGE = 6
MISSING_TERMINAL = 7
REPEATED_TERMINAL = 8
SOURCE_IS_SINK = 9
NEGATIVE_CAPACITY = 10
NOT_AN_INTEGER = 11
FIELD_COUNT = 12
CAPACITY_TOO_LARGE = 13
UNKNOWN_LINE = 14
ARC_COUNT = 15
BAD_DESIGNATION = 16
TOO_LARGE = 17

# Slots of the parser's `info` array.
I_LINE, I_TOKEN_START, I_TOKEN_END, I_N, I_M, I_SOURCE, I_SINK = range(7)  # ids: at the end
I_ARCS, I_P_LINE, I_FIELDS, I_SEED_LINE, I_LAST_UNTERMINATED, I_OTHER_LINE = range(7, 13)
I_SOURCE_LINE, I_SINK_LINE = range(13, 15)  # where the 'n' lines are
INFO_SIZE = 15

_NOT_DIGITS = -1
_TOO_BIG = -2

# The bytes the grammar names (Numba folds these globals into constants).
NEWLINE, SPACE, TAB, CARRIAGE_RETURN, VERTICAL_TAB, FORM_FEED = b"\n \t\r\v\f"
DIGIT_ZERO, MINUS = b"0-"
COMMENT, PROBLEM, NODE, ARC, SEED = b"cpnas"  # the first token of a line
SOURCE, SINK = b"st"  # an 'n' line's designation


@numba.njit(cache=True, inline="always")
def _is_space(byte):
    return (byte == SPACE or byte == TAB or byte == CARRIAGE_RETURN or byte == VERTICAL_TAB
            or byte == FORM_FEED)


@numba.njit(cache=True, inline="always")
def _parse_unsigned(buf, start, end, limit):
    """Decimal digits in buf[start:end] as an int64 (leading zeros allowed); _NOT_DIGITS, or
    _TOO_BIG above `limit` (checked before each step, so nothing can overflow)."""
    if start == end:
        return _NOT_DIGITS
    cutoff = limit // 10
    last_digit = limit % 10
    value = 0
    too_big = False
    for k in range(start, end):
        digit = buf[k] - DIGIT_ZERO
        if digit < 0 or digit > 9:
            return _NOT_DIGITS
        if value > cutoff or (value == cutoff and digit > last_digit):
            too_big = True
        elif not too_big:
            value = value * 10 + digit
    return _TOO_BIG if too_big else value


@numba.njit(cache=True)
def _arc_arrays(size, tails, heads, caps):
    """Arrays for `size` arcs (tails, heads, capacities), the given arcs copied in."""
    arrays = np.empty(size, np.int32), np.empty(size, np.int32), np.empty(size, np.int64)
    arrays[0][: tails.shape[0]] = tails
    arrays[1][: heads.shape[0]] = heads
    arrays[2][: caps.shape[0]] = caps
    return arrays


@numba.njit(cache=True, inline="always")
def _line_end(buf, pos):
    """Where the line from pos ends: its newline, or the end of the buffer."""
    while pos < buf.shape[0] and buf[pos] != NEWLINE:
        pos += 1
    return pos


@numba.njit(cache=True, inline="always")
def _split(buf, start, end, starts, ends):
    """Bounds of the whitespace-separated tokens of buf[start:end] in `starts` and `ends`
    (the first 5); returns how many tokens the line has."""
    fields = 0
    k = start
    while k < end:
        while k < end and _is_space(buf[k]):
            k += 1
        if k == end:
            break
        token_start = k
        while k < end and not _is_space(buf[k]):
            k += 1
        if fields < 5:
            starts[fields] = token_start
            ends[fields] = k
        fields += 1
    return fields


@numba.njit(cache=True, inline="always")
def _point_at(info, starts, ends, field):
    """Remember which token is being read: an error message quotes it."""
    info[I_TOKEN_START] = starts[field]
    info[I_TOKEN_END] = ends[field]


@numba.njit(cache=True, inline="always")
def _vertex(buf, starts, ends, field, n, info):
    """(status, vertex id 1..n) of token `field`."""
    _point_at(info, starts, ends, field)
    vertex = _parse_unsigned(buf, starts[field], ends[field], n)
    if vertex == _NOT_DIGITS:
        return NOT_AN_INTEGER, 0
    if vertex == _TOO_BIG or vertex == 0:
        return VERTEX_RANGE, 0
    return OK, vertex


@numba.njit(cache=True)
def _problem_line(buf, starts, ends, fields, line, info, shortest_path):
    """'p max N M' ('p sp N M' with `shortest_path`), the first: N into info[I_N], M into
    info[I_M], the line into info[I_P_LINE]; or the status of what is wrong (info[I_N] -1)."""
    if info[I_N] >= 0:
        info[I_OTHER_LINE] = info[I_P_LINE]
        return SECOND_PROBLEM_LINE
    if fields != 4:
        return FIELD_COUNT
    _point_at(info, starts, ends, 1)
    kind, length = starts[1], ends[1] - starts[1]
    if shortest_path:
        if length != 2 or buf[kind] != ord("s") or buf[kind + 1] != ord("p"):
            return NOT_MAX
    elif length != 3 or buf[kind] != ord("m") or buf[kind + 1] != ord("a") or \
            buf[kind + 2] != ord("x"):
        return NOT_MAX
    for field, slot, smallest, largest in ((2, I_N, 1, MAX_VERTICES), (3, I_M, 0, MAX_ARCS)):
        _point_at(info, starts, ends, field)
        value = _parse_unsigned(buf, starts[field], ends[field], 2**62)
        status = TOO_LARGE if value == _TOO_BIG or value > largest else \
            BAD_SIZE if value < smallest else OK  # _NOT_DIGITS is below every smallest
        if status != OK:
            info[I_N] = -1
            return status
        info[slot] = value
    info[I_P_LINE] = line
    return OK


@numba.njit(cache=True)
def _node_line(buf, starts, ends, fields, line, info):
    """'n ID s' or 'n ID t': the 0-based source or sink into info; or what is wrong."""
    if fields != 3:
        return FIELD_COUNT
    status, vertex = _vertex(buf, starts, ends, 1, info[I_N], info)
    if status != OK:
        return status
    _point_at(info, starts, ends, 2)
    designation = buf[starts[2]]
    if ends[2] - starts[2] != 1 or (designation != SOURCE and designation != SINK):
        return BAD_DESIGNATION
    slot, line_slot = (I_SOURCE, I_SOURCE_LINE) if designation == SOURCE else \
        (I_SINK, I_SINK_LINE)
    if info[slot] >= 0:
        info[I_OTHER_LINE] = info[line_slot]
        return REPEATED_TERMINAL
    info[slot] = vertex - 1
    info[line_slot] = line
    if info[I_SOURCE] == info[I_SINK]:
        return SOURCE_IS_SINK
    return OK


@numba.njit(cache=True, inline="always")
def _arc_line(buf, starts, ends, fields, info):
    """'a U V CAP': (status, 0-based tail, 0-based head, capacity)."""
    if fields != 4:
        return FIELD_COUNT, 0, 0, 0
    status, tail = _vertex(buf, starts, ends, 1, info[I_N], info)
    if status != OK:
        return status, 0, 0, 0
    status, head = _vertex(buf, starts, ends, 2, info[I_N], info)
    if status != OK:
        return status, 0, 0, 0
    _point_at(info, starts, ends, 3)
    if buf[starts[3]] == MINUS:
        if _parse_unsigned(buf, starts[3] + 1, ends[3], MAX_CAPACITY) == _NOT_DIGITS:
            return NOT_AN_INTEGER, 0, 0, 0
        return NEGATIVE_CAPACITY, 0, 0, 0
    capacity = _parse_unsigned(buf, starts[3], ends[3], MAX_CAPACITY)
    if capacity == _NOT_DIGITS:
        return NOT_AN_INTEGER, 0, 0, 0
    if capacity == _TOO_BIG:
        return CAPACITY_TOO_LARGE, 0, 0, 0
    return OK, tail - 1, head - 1, capacity


@numba.njit(cache=True)
def _end_status(info, shortest_path):
    """What the whole file lacks, once every line is read: OK where nothing."""
    if info[I_N] < 0:
        return NO_PROBLEM_LINE
    if not shortest_path and (info[I_SOURCE] < 0 or info[I_SINK] < 0):
        return MISSING_TERMINAL
    if info[I_ARCS] != info[I_M]:
        return ARC_COUNT
    return OK


@numba.njit(cache=True)
def _parse(buf, info, only_to_problem_line, shortest_path):
    """Parse the buffer line by line: (status, tails, heads, caps), 0-based ids; details in
    `info`. With `only_to_problem_line`, stop with OK once the 'p' line is read. With
    `shortest_path`, the file is 'p sp N M' with lengths in the capacities' place and no 'n'
    lines."""
    size = buf.shape[0]
    tails, heads, caps = _arc_arrays(0, np.empty(0, np.int32), np.empty(0, np.int32),
                                     np.empty(0, np.int64))
    starts = np.empty(5, np.int64)
    ends = np.empty(5, np.int64)
    info[I_N] = info[I_M] = info[I_SOURCE] = info[I_SINK] = -1
    arc_room = 0
    arcs = 0
    line = 0
    pos = 0
    while pos < size:
        line += 1
        info[I_LINE] = line
        line_end = _line_end(buf, pos)
        info[I_LAST_UNTERMINATED] = 1 if line_end == size else 0
        fields = _split(buf, pos, line_end, starts, ends)
        pos = line_end + 1
        if fields == 0:
            continue
        info[I_FIELDS] = fields
        _point_at(info, starts, ends, 0)
        kind = buf[starts[0]]
        if kind == COMMENT:  # anywhere
            continue
        if ends[0] - starts[0] != 1:
            return UNKNOWN_LINE, tails, heads, caps
        if kind != PROBLEM and kind != SEED and info[I_N] < 0:
            return (BEFORE_PROBLEM_LINE if kind == ARC or kind == NODE else UNKNOWN_LINE,
                    tails, heads, caps)
        if kind == NODE and shortest_path:
            return UNKNOWN_LINE, tails, heads, caps
        if kind == ARC:
            status, tail, head, capacity = _arc_line(buf, starts, ends, fields, info)
            if status != OK:
                return status, tails, heads, caps
            if arcs == tails.shape[0]:  # more `a` lines than the `p` line said
                if arcs == MAX_ARCS:
                    return TOO_LARGE, tails, heads, caps
                tails, heads, caps = _arc_arrays(min(max(2 * arcs, 1024), arc_room, MAX_ARCS),
                                                 tails, heads, caps)
            tails[arcs], heads[arcs], caps[arcs] = tail, head, capacity
            arcs += 1
        elif kind == PROBLEM:
            status = _problem_line(buf, starts, ends, fields, line, info, shortest_path)
            if status != OK or only_to_problem_line:
                return status, tails, heads, caps
            # An arc line takes at least 7 bytes: never allocate beyond what the file holds.
            arc_room = (size - pos) // 7 + 1
            tails, heads, caps = _arc_arrays(min(info[I_M], arc_room), tails, heads, caps)
        elif kind == NODE:
            status = _node_line(buf, starts, ends, fields, line, info)
            if status != OK:
                return status, tails, heads, caps
        elif kind == SEED and info[I_SEED_LINE] == 0:  # 's <seed>' of the acyclic-dense generator
            info[I_SEED_LINE] = line
        else:
            return UNKNOWN_LINE, tails, heads, caps
    info[I_ARCS] = arcs
    return _end_status(info, shortest_path), tails, heads, caps


@dataclass(frozen=True)
class Format:
    """What error messages call the lines of one DIMACS problem type."""

    problem: str  # the 'p' line's type
    arc_line: str
    value: str  # what an arc line's last field is
    line_kinds: str
    shortest_path: bool  # the parser's flag

    @property
    def problem_line(self) -> str:
        return f"'p {self.problem} N M'"


MAX = Format("max", "'a U V CAP'", "capacity", "c, p, n, a", False)
SHORTEST_PATH = Format("sp", "'a U V W'", "length", "c, p, a", True)

PROBE_BYTES = 4 * 2**20
"""The 'p' line must come within this many bytes: a stream without one (a binary file, /dev/zero)
is not read further."""

READ_CHUNK = 64 * 2**20
_DECOMPRESSORS = {b"\x1f\x8b": lambda: zlib.decompressobj(wbits=31), b"BZh": bz2.BZ2Decompressor,
                  b"\xfd7zXZ\x00": lzma.LZMADecompressor}
SHOWN_TOKEN = 40
"""Characters of a bad token an error message quotes; the rest is counted, not printed."""


def _raw_chunks(path: str, name: str, size: int = READ_CHUNK) -> Iterator[bytes]:
    """The input's bytes as they are stored, `size` bytes at a time; '-' reads stdin."""
    try:
        stream = sys.stdin.buffer if path == "-" else open(path, "rb")
        with contextlib.nullcontext(stream) if path == "-" else stream:
            while chunk := stream.read(size):
                yield chunk
    except OSError as error:
        raise InputError(name, None, f"cannot read: {error.strerror}") from None


def _chunks(path: str, name: str) -> Iterator[bytes]:
    """The input's text a chunk at a time, decompressed by magic number (gzip, bzip2, xz;
    concatenated streams too)."""
    raw = _raw_chunks(path, name)
    first = next(raw, b"")
    make = next((make for magic, make in _DECOMPRESSORS.items() if first.startswith(magic)), None)
    if make is None:
        yield first
        yield from raw
        return
    decompressor = make()
    try:
        for chunk in itertools.chain([first], raw):
            while chunk:
                yield decompressor.decompress(chunk)
                chunk = decompressor.unused_data if decompressor.eof else b""
                if chunk:
                    decompressor = make()
        if not decompressor.eof:
            raise EOFError("the compressed data ends early")
    except (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError) as error:
        raise InputError(name, None, f"corrupt compressed file: {error}") from None


def is_compressed(path: str) -> bool:
    """Whether the file starts with the magic number of gzip, bzip2 or xz (only those bytes
    are read)."""
    head = next(_raw_chunks(path, path, max(map(len, _DECOMPRESSORS))), b"")
    return any(head.startswith(magic) for magic in _DECOMPRESSORS)


def text_chunks(path: str) -> Iterator[bytes]:
    """The file's text a chunk at a time, decompressed where it is compressed."""
    return _chunks(path, path)


def input_name(path: str) -> str:
    """How messages name an input: its path, or '<stdin>' for '-'."""
    return "<stdin>" if path == "-" else path


def read_network(path: str, lenient: bool = False) -> tuple[Network, list[str]]:
    """Read a DIMACS max file (see the module docstring), or a binary BK file (.bbk; bbk.py,
    told by its magic or name); return the network and warnings.

    The 'p' line is read first, from at most PROBE_BYTES: an input without one is refused
    there, and a network this machine has no memory to solve is refused before the rest is
    read. With ``lenient``, a number of `a` lines different from the `p` line's M is a
    warning. Raises InputError naming the file, the line and what was expected.
    """
    return _read(path, lenient, MAX)


def read_lengths(path: str) -> Network:
    """Read a DIMACS shortest-path file ('p sp N M', 'a U V W'), as read_network reads a max
    file: a Network whose `caps` are the arc lengths (source and sink -1: none is named)."""
    return _read(path, False, SHORTEST_PATH)[0]


def _read(path: str, lenient: bool, form: Format) -> tuple[Network, list[str]]:
    name = input_name(path)
    chunks = _chunks(path, name)
    parts = []
    for chunk in chunks:
        parts.append(chunk)
        if sum(map(len, parts)) >= PROBE_BYTES:
            break
    head = b"".join(parts)
    whole = len(head) < PROBE_BYTES
    if form is MAX and bbk.claims(head, path):
        return bbk.read_bbk(head, chunks, name), []
    n, m = _problem_size(head, name, whole, form)
    # The text is let go once parsed, before the residual graph is built.
    memory.require(NETWORK_BYTES_PER_ARC * m + max(_stored_size(path, len(head)),
                                                   residual_bytes(n, m)),
                   f"{name}: a network of {n:,} vertices and {m:,} arcs")
    if whole:
        return parse_network(head, name, lenient, form)
    parts = [head]
    try:
        parts += chunks
        data = b"".join(parts)
    except MemoryError:
        raise InputError(name, None, "out of memory while reading it") from None
    del parts
    return parse_network(data, name, lenient, form)


def _stored_size(path: str, read: int) -> int:
    """The input's size where it can be known before reading it (a regular file), else what
    has been read so far."""
    try:
        return max(read, os.stat(path).st_size) if path != "-" else read
    except OSError:
        return read


def _problem_size(head: bytes, name: str, whole: bool, form: Format) -> tuple[int, int]:
    """N and M of the 'p' line in the input's first bytes, `head` (all of it when `whole`);
    an InputError for what comes wrong before it."""
    if not whole:  # only complete lines: a line cut at the end of the probe is no error
        head = head[:head.rfind(b"\n") + 1]
    info = np.zeros(INFO_SIZE, dtype=np.int64)
    status, _, _, _ = _parse(np.frombuffer(head, dtype=np.uint8), info, True,
                             form.shortest_path)
    if status == NO_PROBLEM_LINE and not whole:
        raise InputError(name, None, f"no {form.problem_line} line in the first "
                                     f"{human_bytes(PROBE_BYTES)}: not a DIMACS {form.problem} "
                                     "file")
    if status != OK:
        raise _error(status, info, head, name, form)
    return int(info[I_N]), int(info[I_M])


def parse_network(data: bytes | bytearray, name: str = "<input>", lenient: bool = False,
                  form: Format = MAX):
    """Parse DIMACS max (or `form`) text already in memory; see read_network."""
    buf = np.frombuffer(data, dtype=np.uint8)
    info = np.zeros(INFO_SIZE, dtype=np.int64)
    status, tails, heads, caps = _parse(buf, info, False, form.shortest_path)
    warnings = []
    if status == ARC_COUNT and lenient:
        warnings.append(
            f"{name}:{info[I_P_LINE]}: the 'p' line declares {info[I_M]} arcs, "
            f"the file has {info[I_ARCS]}; using the {info[I_ARCS]} read (--lenient)"
        )
        status = OK
    if status != OK:
        raise _error(status, info, data, name, form)
    if info[I_SEED_LINE]:
        warnings.insert(0, f"{name}:{info[I_SEED_LINE]}: skipped the 's' (seed) line "
                           "written by the original acyclic-dense generator")
    arcs = int(info[I_ARCS])
    # Arrays allocated for more arcs than were read are cut to size (a copy frees the rest).
    tails, heads, caps = (column[:arcs].copy() if arcs < column.shape[0] else column
                          for column in (tails, heads, caps))
    network = Network(n=int(info[I_N]), source=int(info[I_SOURCE]), sink=int(info[I_SINK]),
                      tails=tails, heads=heads, caps=caps)
    return network, warnings


def _quoted(token: bytes) -> str:
    """A token as an error message quotes it: control bytes escaped, at most SHOWN_TOKEN
    characters (a binary file's 'token' can be megabytes long)."""
    text = token[:SHOWN_TOKEN].decode("utf-8", "backslashreplace")
    text = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
    return f"'{text}'" if len(token) <= SHOWN_TOKEN else f"'{text}...' ({len(token):,} bytes)"


def _error(status: int, info: np.ndarray, data: bytes | bytearray, name: str,
           form: Format) -> InputError:
    """The InputError for a parser status: the line, and what was expected there."""
    start, end = int(info[I_TOKEN_START]), int(info[I_TOKEN_END])
    raw = bytes(data[start:end])
    token = _quoted(raw)
    line = int(info[I_LINE])
    n = int(info[I_N])
    messages = {
        BEFORE_PROBLEM_LINE: f"{token} line before the {form.problem_line} line",
        SECOND_PROBLEM_LINE: f"a second 'p' line (the first is on line {info[I_OTHER_LINE]})",
        NOT_MAX: f"problem type {token}, expected '{form.problem}'",
        BAD_SIZE: f"expected {form.problem_line} with integers N >= 1 and M >= 0, found {token}",
        TOO_LARGE: f"{token} is too large: at most {MAX_VERTICES} vertices and {MAX_ARCS} arcs",
        VERTEX_RANGE: f"vertex id {token} outside 1..{n}",
        REPEATED_TERMINAL: f"a second {token} line (the first is on line {info[I_OTHER_LINE]})",
        SOURCE_IS_SINK: "the source and the sink are the same vertex",
        NEGATIVE_CAPACITY: f"negative {form.value} {token}, expected an integer >= 0",
        NOT_AN_INTEGER: f"expected an integer, found {token}",
        CAPACITY_TOO_LARGE: f"{form.value} {token} is above the largest accepted, 2^62",
        UNKNOWN_LINE: f"unknown line type {token}, expected one of {form.line_kinds}",
        BAD_DESIGNATION: f"expected 'n ID s' or 'n ID t', found {token}",
    }
    if status == FIELD_COUNT:
        expected = {"a": f"{form.arc_line} (4 fields)", "p": f"{form.problem_line} (4 fields)",
                    "n": "'n ID s' or 'n ID t' (3 fields)"}[raw.decode()]
        message = f"expected {expected}, found {info[I_FIELDS]} fields"
    elif status == NO_PROBLEM_LINE:
        return InputError(name, None, f"no {form.problem_line} line")
    elif status == MISSING_TERMINAL:
        missing = "source ('n ID s')" if info[I_SOURCE] < 0 else "sink ('n ID t')"
        return InputError(name, None, f"no {missing} line")
    elif status == ARC_COUNT:
        return InputError(
            name, int(info[I_P_LINE]),
            f"the 'p' line declares {info[I_M]} arcs but the file has {info[I_ARCS]} 'a' lines "
            "(--lenient accepts this with a warning)")
    else:
        message = messages[status]
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", start)
    if b"\r" in data[line_start:len(data) if line_end < 0 else line_end].rstrip(b"\r"):
        message += " (the lines end in CR only: DIMACS files need LF or CR LF line endings)"
    elif info[I_LAST_UNTERMINATED]:
        message += " (the file ends in the middle of this line: truncated?)"
    return InputError(name, line, message)
