"""EIBFS (Goldberg, Hed, Kaplan, Kohli, Tarjan, Werneck, ESA 2015) and its re-implementations
from github.com/patmjen/maxflow_algorithms (ibfs/ibfs.h; reimpls/eibfs_i.h, eibfs_i_nr.h),
run by a small driver that reads that repository's uncompressed binary BK (.bbk) format.

    python scripts/peers/eibfs.py --program .peers/bin/eibfs [--algo eibfs] FILE

Converts the DIMACS file to terminal form (peerlib.terminal_form: arcs out of s and into t
become terminal capacities, arcs into s, out of t and self-loops are dropped, an s->t arc
becomes an extra node) written as .bbk. `c cut tm` is computeMaxFlow alone (wall clock);
initGraph (arc reordering) is printed as `c init tm`. The capacities of the arcs between
inner nodes are 32-bit, the terminal capacities and the flow 64-bit: refuses an inner arc's
capacity over 2^31-1 (peerlib.write_bbk), not a terminal arc's.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peerlib  # noqa: E402

ALGORITHMS = ("eibfs", "eibfs_i", "eibfs_i_nr")


def solve(args, workdir) -> None:
    path, converted = peerlib.converted(
        args.file, workdir, "terminal-form.bbk",
        lambda graph, path: peerlib.write_bbk(peerlib.terminal_form(graph), path))
    output = peerlib.run_program([args.program, args.algo, path], timeout=args.timeout)
    flow = int(peerlib.last_match(r"^c flow:\s*(-?\d+)\s*$", output, "'c flow:' line"))
    seconds = float(peerlib.last_match(r"^c cut tm:\s*(\S+)\s*$", output, "'c cut tm:' line"))
    init = float(peerlib.last_match(r"^c init tm:\s*(\S+)\s*$", output, "'c init tm:' line"))
    peerlib.report(flow, seconds, converted, extra={"init tm": init})


def main() -> None:
    p = peerlib.parser(__doc__.splitlines()[0])
    p.add_argument("--algo", choices=ALGORITHMS, default="eibfs")
    args = p.parse_args()
    peerlib.main(lambda workdir: solve(args, workdir))


if __name__ == "__main__":
    main()
