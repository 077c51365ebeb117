"""Read the binary BK files (``.bbk``) of Jensen et al.'s benchmark (TPAMI 2023), plain or
snappy-compressed, into a Network; `read_network` hands them here by their magic or extension.

Format, from patmjen/maxflow_algorithms (graph_io.h, "Binary BK": read_bbk_to_bk and
write_bk_to_bbk; README "Binary File Formats"; graph_io.py read_bbk), little-endian::

    magic          3 bytes       'BBQ' plain, 'bbq' compressed
    type codes     2 x uint8     captype (neighbour arcs), tcaptype (terminal arcs):
                                 0 uint8, 1 int8, 2 uint16, 3 int16, 4 uint32, 5 int32,
                                 6 uint64, 7 int64, 8 float, 9 double
    sizes          3 x uint64    num_nodes, num_terminal_arcs, num_neighbor_arcs
    terminal arcs  {uint64 node; tcaptype source_cap, sink_cap} each
    neighbour arcs {uint64 i, j; captype cap, rev_cap} each

Compressed, each of the two arrays is a uint64 byte count and a raw snappy block
(snappy::Compress in C++, python-snappy's compress in Python: the same block format).
The C++ writer writes whole structs, padded to 8 bytes; graph_io.py writes packed records.
The two differ only for 1- and 2-byte types, and are told apart by the length of the data.

Floating-point capacities are refused rather than scaled: the solvers need integers, and any
scale would change the flow value that the authors' solvers report for the file.

The network is what the authors' bbk_to_dimacs (bench_io.cpp) writes: source 0, sink 1, node
i is vertex i + 2; per terminal arc, in file order, s -> i (source_cap) and i -> t (sink_cap);
per neighbour arc i -> j (cap) and j -> i (rev_cap); a zero capacity gives no arc, except that
an entry whose two capacities are 0 keeps its first arc, with capacity 0.
"""

import numpy as np

from maxflow_cli import memory
from maxflow_cli.errors import InputError
from maxflow_cli.limits import MAX_ARCS, MAX_CAPACITY, MAX_VERTICES
from maxflow_cli.memory import NETWORK_BYTES_PER_ARC, residual_bytes
from maxflow_cli.network import Network

MAGICS = {b"BBQ": False, b"bbq": True}  # magic -> compressed
SUFFIXES = (".bbk", ".bbkc")  # bench_io writes .bbk, and .bbkc for a compressed copy
HEADER = np.dtype([("magic", "S3"), ("captype", "u1"), ("tcaptype", "u1"),
                   ("nodes", "<u8"), ("terminals", "<u8"), ("neighbours", "<u8")])
TYPES = ("uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32",
         "float64")  # by type code (graph_io.h TypeCode; code 8 is C++ float)
EXTRA = "pip install 'maxflow-dimacs[snappy]'"


def claims(head: bytes, name: str) -> bool:
    """Whether the input is for this reader: a binary BK magic, or a .bbk/.bbkc name."""
    return head[:3] in MAGICS or name.lower().endswith(SUFFIXES)


TERMINAL = ("node", "source_cap", "sink_cap")  # graph_io.h BkTermArc
NEIGHBOUR = ("i", "j", "cap", "rev_cap")  # graph_io.h BkNborArc


def records(tcaptype: int, captype: int, aligned: bool = False) -> tuple[np.dtype, np.dtype]:
    """The terminal and neighbour arc records of these type codes (TYPES), packed
    (graph_io.py) or padded (C++ structs)."""
    def record(code: int, fields: tuple[str, ...]) -> np.dtype:
        kind = np.dtype(TYPES[code]).newbyteorder("<")
        return np.dtype([(field, "<u8" if field in ("node", "i", "j") else kind)
                         for field in fields], align=aligned)
    return record(tcaptype, TERMINAL), record(captype, NEIGHBOUR)


def _records(header: np.void, aligned: bool) -> tuple[np.dtype, np.dtype]:
    """The records a header's type codes name."""
    return records(int(header["tcaptype"]), int(header["captype"]), aligned)


def _header(head: bytes, name: str) -> np.void:
    """The header, its magic and type codes checked."""
    if head[:3] not in MAGICS:
        raise InputError(name, None, f"not a binary BK file: it starts with {bytes(head[:3])!r}, "
                                     "expected 'BBQ' or 'bbq'")
    if len(head) < HEADER.itemsize:
        raise InputError(name, None, f"the file ends after {len(head)} bytes, inside the "
                                     f"{HEADER.itemsize}-byte binary BK header (truncated?)")
    header = np.frombuffer(head, HEADER, count=1)[0]
    for field, arcs in (("captype", "neighbour"), ("tcaptype", "terminal")):
        code = int(header[field])
        if code >= len(TYPES):
            raise InputError(name, None, f"unknown capacity type code {code} of the {arcs} "
                                         f"arcs, expected 0-{len(TYPES) - 1}")
        if TYPES[code].startswith("float"):
            raise InputError(name, None, f"the {arcs} arcs have floating-point capacities "
                                         f"({TYPES[code]}); the solvers need integers")
    return header


def _sizes(header: np.void, name: str) -> tuple[int, int]:
    """(vertices, least arcs) the header stands for; refuses what is too large."""
    n = int(header["nodes"]) + 2
    least = int(header["terminals"]) + int(header["neighbours"])
    if n > MAX_VERTICES or least > MAX_ARCS:
        raise InputError(name, None, f"{n - 2} nodes and {least} terminal and neighbour arcs is "
                                     f"too large: at most {MAX_VERTICES} vertices and "
                                     f"{MAX_ARCS} arcs")
    return n, least


def _decompress(block: memoryview, most: int, what: str, name: str) -> memoryview:
    """A raw snappy block, at most ``most`` bytes once decompressed (cramjam, the snappy
    extra: python-snappy's own compress and uncompress are cramjam's raw ones)."""
    try:
        import cramjam
    except ImportError:
        raise InputError(name, None, "a snappy-compressed binary BK file ('bbq'): reading it "
                                     f"needs the snappy extra: {EXTRA}") from None
    out = np.empty(most, np.uint8)
    try:
        size = cramjam.snappy.decompress_raw_into(bytes(block), out)
    except cramjam.DecompressionError as error:
        raise InputError(name, None, f"corrupt snappy data in the {what} arcs: {error}") from None
    return memoryview(out[:size])


def _compressed_blocks(body: memoryview, header: np.void, name: str) -> list[memoryview]:
    """The terminal and neighbour arcs' bytes of a compressed body: two (uint64 byte count,
    snappy block) pairs, each at most as long as padded records once decompressed."""
    blocks, at = [], 0
    padded = _records(header, aligned=True)
    for what, count, record in zip(("terminal", "neighbour"), _counts(header), padded):
        if len(body) < at + 8:
            raise InputError(name, None, f"the file ends before the byte count of the "
                                         f"compressed {what} arcs (truncated?)")
        size = int(np.frombuffer(body[at:at + 8], "<u8")[0])
        if len(body) < at + 8 + size:
            raise InputError(name, None, f"the compressed {what} arcs need {size} bytes, the "
                                         f"file has {len(body) - at - 8} (truncated?)")
        blocks.append(_decompress(body[at + 8:at + 8 + size], count * record.itemsize, what,
                                  name))
        at += 8 + size
    if at != len(body):
        raise InputError(name, None, f"{len(body) - at} bytes after the compressed arcs")
    return blocks


def _counts(header: np.void) -> tuple[int, int]:
    """The header's numbers of terminal and neighbour arcs."""
    return int(header["terminals"]), int(header["neighbours"])


def _arrays(data: memoryview, header: np.void, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The terminal and neighbour arc records, in whichever layout the data's length fits."""
    body = data[HEADER.itemsize:]
    terminals, neighbours = _counts(header)
    blocks = _compressed_blocks(body, header, name) if MAGICS[bytes(header["magic"])] else None
    for aligned in (False, True):
        term, nbor = _records(header, aligned)
        split = terminals * term.itemsize
        if blocks is None and len(body) == split + neighbours * nbor.itemsize:
            return np.frombuffer(body[:split], term), np.frombuffer(body[split:], nbor)
        if blocks is not None and [len(block) for block in blocks] == [
                split, neighbours * nbor.itemsize]:
            return np.frombuffer(blocks[0], term), np.frombuffer(blocks[1], nbor)
    term, nbor = _records(header, aligned=False)
    need = terminals * term.itemsize + neighbours * nbor.itemsize
    have = len(body) if blocks is None else sum(map(len, blocks))
    problem = "truncated?" if have < need else "more than the header declares"
    raise InputError(name, None, f"{have} bytes of arcs where the header's {terminals} terminal "
                                 f"and {neighbours} neighbour arcs need {need} ({problem})")


def _checked(arcs: np.ndarray, nodes: int, what: str, name: str) -> None:
    """Refuse node ids outside 0..nodes-1 and capacities below 0 or above 2^62."""
    ids, capacities = arcs.dtype.names[:-2], arcs.dtype.names[-2:]
    for field in ids:
        _refuse(arcs[field] >= nodes, arcs[field], f"node id {{}} outside 0..{nodes - 1}", what,
                name)
    for field in capacities:
        values = arcs[field]
        if values.dtype == np.uint64:
            bad = values > np.uint64(MAX_CAPACITY)
        else:
            wide = values.astype(np.int64)
            bad = (wide < 0) | (wide > MAX_CAPACITY)
        _refuse(bad, values, "capacity {} outside 0..2^62", what, name)


def _refuse(bad: np.ndarray, values: np.ndarray, message: str, what: str, name: str) -> None:
    """An InputError naming the first arc marked ``bad``, if any."""
    if bad.any():
        k = int(np.argmax(bad))
        raise InputError(name, None, f"{what} arc {k}: " + message.format(values[k]))


def _interleaved(first: tuple, second: tuple) -> list[np.ndarray]:
    """Per entry, the arc ``first`` (tails, heads, capacities) then ``second``, each kept if
    its capacity is not 0, the first also if both are 0 (bbk_to_dimacs's order)."""
    keep = np.stack([(first[2] != 0) | (second[2] == 0), second[2] != 0], 1).ravel()
    return [np.stack(pair, 1).ravel()[keep] for pair in zip(first, second)]


def _network(n: int, terminals: np.ndarray, neighbours: np.ndarray) -> Network:
    """The arcs as bbk_to_dimacs writes them (module docstring): source 0, sink 1."""
    wide = {field: terminals[field].astype(np.int64) for field in TERMINAL}
    wide |= {field: neighbours[field].astype(np.int64) for field in NEIGHBOUR}
    node, i, j = wide["node"] + 2, wide["i"] + 2, wide["j"] + 2
    source, sink = np.zeros_like(node), np.ones_like(node)
    term = _interleaved((source, node, wide["source_cap"]), (node, sink, wide["sink_cap"]))
    nbor = _interleaved((i, j, wide["cap"]), (j, i, wide["rev_cap"]))
    tails, heads, caps = (np.concatenate(parts) for parts in zip(term, nbor))
    return Network(n, 0, 1, tails.astype(np.int32), heads.astype(np.int32), caps)


def read_bbk(head: bytes, rest, name: str) -> Network:
    """The network of a binary BK input whose first bytes are ``head`` and the others come
    from the iterable ``rest``; the memory it needs is checked from the header first."""
    header = _header(head, name)
    n, least = _sizes(header, name)
    memory.require(NETWORK_BYTES_PER_ARC * least + max(residual_bytes(n, least), len(head)),
                   f"{name}: a network of {n:,} vertices and at least {least:,} arcs")
    terminals, neighbours = _arrays(memoryview(b"".join([head, *rest])), header, name)
    _checked(terminals, n - 2, "terminal", name)
    _checked(neighbours, n - 2, "neighbour", name)
    return _network(n, terminals, neighbours)
