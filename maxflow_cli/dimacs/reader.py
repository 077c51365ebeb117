"""Read DIMACS `max` files fast: the raw bytes are parsed by one Numba pass, not a Python loop.

Format (DIMACS 1991 implementation challenge; Gutiérrez Mota 2012, ch. 2):
``c`` comment lines, one ``p max N M`` line, ``n ID s`` and ``n ID t``, then ``a U V CAP``
per arc. Anything else is refused with the file, the line and what was expected, except the
``s <seed>`` line written by the original acyclic-dense generator, skipped with a warning.
"""

import bz2
import gzip
import lzma
import sys

import numba
import numpy as np

from maxflow_cli.errors import InputError
from maxflow_cli.limits import MAX_ARCS, MAX_VERTICES
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


@numba.njit(cache=True, inline="always")
def _is_space(byte):
    return byte == 32 or byte == 9 or byte == 13 or byte == 11 or byte == 12


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
        digit = buf[k] - 48
        if digit < 0 or digit > 9:
            return _NOT_DIGITS
        if value > cutoff or (value == cutoff and digit > last_digit):
            too_big = True
        elif not too_big:
            value = value * 10 + digit
    return _TOO_BIG if too_big else value


@numba.njit(cache=True)
def _grown(array, size):
    bigger = np.empty(size, array.dtype)
    bigger[: array.shape[0]] = array
    return bigger


@numba.njit(cache=True)
def _parse(buf, info):
    """Parse the whole buffer: (status, tails, heads, caps), 0-based ids; details in `info`."""
    size = buf.shape[0]
    tails = np.empty(0, np.int32)
    heads = np.empty(0, np.int32)
    caps = np.empty(0, np.int64)
    starts = np.empty(5, np.int64)
    ends = np.empty(5, np.int64)
    n = -1
    declared_m = -1
    arc_room = 0
    source = -1
    sink = -1
    arcs = 0
    line = 0
    pos = 0
    while pos < size:
        line += 1
        info[I_LINE] = line
        line_end = pos
        while line_end < size and buf[line_end] != 10:
            line_end += 1
        info[I_LAST_UNTERMINATED] = 1 if line_end == size else 0
        # Split the line into at most 5 tokens (counting any further ones).
        fields = 0
        k = pos
        while k < line_end:
            while k < line_end and _is_space(buf[k]):
                k += 1
            if k == line_end:
                break
            token_start = k
            while k < line_end and not _is_space(buf[k]):
                k += 1
            if fields < 5:
                starts[fields] = token_start
                ends[fields] = k
            fields += 1
        pos = line_end + 1
        if fields == 0:
            continue
        info[I_FIELDS] = fields
        info[I_TOKEN_START] = starts[0]
        info[I_TOKEN_END] = ends[0]
        kind = buf[starts[0]]
        single = ends[0] - starts[0] == 1
        if kind == 99:  # 'c': comment, anywhere
            continue
        if not single:
            return UNKNOWN_LINE, tails, heads, caps
        if kind == 97:  # 'a'
            if n < 0:
                return BEFORE_PROBLEM_LINE, tails, heads, caps
            if fields != 4:
                return FIELD_COUNT, tails, heads, caps
            for f in range(1, 3):
                info[I_TOKEN_START] = starts[f]
                info[I_TOKEN_END] = ends[f]
                vertex = _parse_unsigned(buf, starts[f], ends[f], n)
                if vertex == _NOT_DIGITS:
                    return NOT_AN_INTEGER, tails, heads, caps
                if vertex == _TOO_BIG or vertex == 0:
                    return VERTEX_RANGE, tails, heads, caps
                if f == 1:
                    tail = vertex
                else:
                    head = vertex
            info[I_TOKEN_START] = starts[3]
            info[I_TOKEN_END] = ends[3]
            if buf[starts[3]] == 45:  # '-'
                if _parse_unsigned(buf, starts[3] + 1, ends[3], 2**62) == _NOT_DIGITS:
                    return NOT_AN_INTEGER, tails, heads, caps
                return NEGATIVE_CAPACITY, tails, heads, caps
            capacity = _parse_unsigned(buf, starts[3], ends[3], 2**62)
            if capacity == _NOT_DIGITS:
                return NOT_AN_INTEGER, tails, heads, caps
            if capacity == _TOO_BIG:
                return CAPACITY_TOO_LARGE, tails, heads, caps
            if arcs == tails.shape[0]:  # more `a` lines than the `p` line said
                if arcs == MAX_ARCS:
                    return TOO_LARGE, tails, heads, caps
                room = min(max(2 * arcs, 1024), arc_room, MAX_ARCS)
                tails = _grown(tails, room)
                heads = _grown(heads, room)
                caps = _grown(caps, room)
            tails[arcs] = tail - 1
            heads[arcs] = head - 1
            caps[arcs] = capacity
            arcs += 1
        elif kind == 112:  # 'p'
            if n >= 0:
                info[I_OTHER_LINE] = info[I_P_LINE]
                return SECOND_PROBLEM_LINE, tails, heads, caps
            if fields != 4:
                return FIELD_COUNT, tails, heads, caps
            info[I_TOKEN_START] = starts[1]
            info[I_TOKEN_END] = ends[1]
            if ends[1] - starts[1] != 3 or buf[starts[1]] != 109 or buf[starts[1] + 1] != 97 \
                    or buf[starts[1] + 2] != 120:
                return NOT_MAX, tails, heads, caps
            for f in range(2, 4):
                info[I_TOKEN_START] = starts[f]
                info[I_TOKEN_END] = ends[f]
                value = _parse_unsigned(buf, starts[f], ends[f], 2**62)
                if value == _NOT_DIGITS or value == 0:
                    return BAD_SIZE, tails, heads, caps
                if value == _TOO_BIG or value > (MAX_VERTICES if f == 2 else MAX_ARCS):
                    return TOO_LARGE, tails, heads, caps
                if f == 2:
                    n = value
                else:
                    declared_m = value
            info[I_P_LINE] = line
            info[I_N] = n
            info[I_M] = declared_m
            # An arc line takes at least 7 bytes: never allocate beyond what the file holds.
            arc_room = (size - pos) // 7 + 1
            room = min(declared_m, arc_room)
            tails = np.empty(room, np.int32)
            heads = np.empty(room, np.int32)
            caps = np.empty(room, np.int64)
        elif kind == 110:  # 'n'
            if n < 0:
                return BEFORE_PROBLEM_LINE, tails, heads, caps
            if fields != 3:
                return FIELD_COUNT, tails, heads, caps
            info[I_TOKEN_START] = starts[1]
            info[I_TOKEN_END] = ends[1]
            vertex = _parse_unsigned(buf, starts[1], ends[1], n)
            if vertex == _NOT_DIGITS:
                return NOT_AN_INTEGER, tails, heads, caps
            if vertex == _TOO_BIG or vertex == 0:
                return VERTEX_RANGE, tails, heads, caps
            info[I_TOKEN_START] = starts[2]
            info[I_TOKEN_END] = ends[2]
            if ends[2] - starts[2] != 1 or (buf[starts[2]] != 115 and buf[starts[2]] != 116):
                return BAD_DESIGNATION, tails, heads, caps
            if buf[starts[2]] == 115:  # 's'
                if source >= 0:
                    info[I_OTHER_LINE] = info[I_SOURCE_LINE]
                    return REPEATED_TERMINAL, tails, heads, caps
                source = vertex - 1
                info[I_SOURCE_LINE] = line
            else:
                if sink >= 0:
                    info[I_OTHER_LINE] = info[I_SINK_LINE]
                    return REPEATED_TERMINAL, tails, heads, caps
                sink = vertex - 1
                info[I_SINK_LINE] = line
            if source >= 0 and source == sink:
                return SOURCE_IS_SINK, tails, heads, caps
        elif kind == 115 and info[I_SEED_LINE] == 0:  # 's <seed>' of the acyclic-dense generator
            info[I_SEED_LINE] = line
        else:
            return UNKNOWN_LINE, tails, heads, caps
    info[I_ARCS] = arcs
    if n < 0:
        return NO_PROBLEM_LINE, tails, heads, caps
    info[I_SOURCE] = source
    info[I_SINK] = sink
    if source < 0 or sink < 0:
        return MISSING_TERMINAL, tails, heads, caps
    if arcs != declared_m:
        return ARC_COUNT, tails, heads, caps
    return OK, tails, heads, caps


def read_bytes(path: str) -> bytes:
    """The file's bytes, decompressed by magic number (gzip, bzip2, xz); '-' reads stdin."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as stream:
                data = stream.read()
    except OSError as error:
        raise InputError(path, None, f"cannot read: {error.strerror}") from None
    try:
        if data[:2] == b"\x1f\x8b":
            return gzip.decompress(data)
        if data[:3] == b"BZh":
            return bz2.decompress(data)
        if data[:6] == b"\xfd7zXZ\x00":
            return lzma.decompress(data)
    except (OSError, EOFError, lzma.LZMAError, ValueError) as error:
        raise InputError(path, None, f"corrupt compressed file: {error}") from None
    return data


def read_network(path: str, lenient: bool = False) -> tuple[Network, list[str]]:
    """Read a DIMACS max file (see the module docstring); return the network and warnings.

    With ``lenient``, a number of `a` lines different from the `p` line's M is a warning.
    Raises InputError naming the file, the line and what was expected.
    """
    name = "<stdin>" if path == "-" else path
    return parse_network(read_bytes(path), name, lenient)


def parse_network(data: bytes, name: str = "<input>", lenient: bool = False):
    """Parse DIMACS max text already in memory; see read_network."""
    buf = np.frombuffer(data, dtype=np.uint8)
    info = np.zeros(INFO_SIZE, dtype=np.int64)
    status, tails, heads, caps = _parse(buf, info)
    warnings = []
    if status == ARC_COUNT and lenient:
        warnings.append(
            f"{name}:{info[I_P_LINE]}: the 'p' line declares {info[I_M]} arcs, "
            f"the file has {info[I_ARCS]}; using the {info[I_ARCS]} read (--lenient)"
        )
        status = OK
    if status != OK:
        raise _error(status, info, data, name)
    if info[I_SEED_LINE]:
        warnings.insert(0, f"{name}:{info[I_SEED_LINE]}: skipped the 's' (seed) line "
                           "written by the original acyclic-dense generator")
    arcs = int(info[I_ARCS])
    network = Network(
        n=int(info[I_N]),
        source=int(info[I_SOURCE]),
        sink=int(info[I_SINK]),
        tails=tails[:arcs].copy() if arcs < tails.shape[0] else tails,
        heads=heads[:arcs].copy() if arcs < heads.shape[0] else heads,
        caps=caps[:arcs].copy() if arcs < caps.shape[0] else caps,
    )
    return network, warnings


def _error(status: int, info: np.ndarray, data: bytes, name: str) -> InputError:
    """The InputError for a parser status: the line, and what was expected there."""
    token = data[info[I_TOKEN_START]:info[I_TOKEN_END]].decode("utf-8", "replace")
    line = int(info[I_LINE])
    n = int(info[I_N])
    messages = {
        BEFORE_PROBLEM_LINE: f"'{token}' line before the 'p max N M' line",
        SECOND_PROBLEM_LINE: f"a second 'p' line (the first is on line {info[I_OTHER_LINE]})",
        NOT_MAX: f"problem type '{token}', expected 'max'",
        BAD_SIZE: f"expected 'p max N M' with N and M positive integers, found '{token}'",
        TOO_LARGE: f"'{token}' is too large: at most {MAX_VERTICES} vertices and {MAX_ARCS} arcs",
        VERTEX_RANGE: f"vertex id '{token}' outside 1..{n}",
        REPEATED_TERMINAL: f"a second '{token}' line (the first is on line {info[I_OTHER_LINE]})",
        SOURCE_IS_SINK: "the source and the sink are the same vertex",
        NEGATIVE_CAPACITY: f"negative capacity '{token}', expected an integer >= 0",
        NOT_AN_INTEGER: f"expected an integer, found '{token}'",
        CAPACITY_TOO_LARGE: f"capacity '{token}' is above the largest accepted, 2^62",
        UNKNOWN_LINE: f"unknown line type '{token}', expected one of c, p, n, a",
        BAD_DESIGNATION: f"expected 'n ID s' or 'n ID t', found '{token}'",
    }
    if status == FIELD_COUNT:
        expected = {"a": "'a U V CAP' (4 fields)", "p": "'p max N M' (4 fields)",
                    "n": "'n ID s' or 'n ID t' (3 fields)"}[token]
        message = f"expected {expected}, found {info[I_FIELDS]} fields"
    elif status == NO_PROBLEM_LINE:
        return InputError(name, None, "no 'p max N M' line")
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
    if info[I_LAST_UNTERMINATED]:
        message += " (the file ends in the middle of this line: truncated?)"
    return InputError(name, line, message)
