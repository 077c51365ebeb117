"""WBPR, the workload-balanced GPU push-relabel of github.com/NTUDDSNLab/WBPR (branch bcsr,
folder maxflow-bcsr).

    python scripts/peers/wbpr.py --program .peers/bin/wbpr FILE

The program reads the DIMACS file itself (`-v 2 -f FILE`); the adapter only checks the range
(an instance on stdin or compressed is first written to a plain temporary file, by the
project's DIMACS writer). `c cut tm` is its `Total kernel time` (CUDA events around the
push-relabel kernel launches), which leaves out its global relabels, its host preflow,
reading and the copies to the GPU. All 32-bit: refuses instances whose capacity out of s or
into t passes 2^31-1.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peerlib  # noqa: E402

FLOW = r"calculated by the parallel implementation is (-?\d+), -?\d+\s*$"
KERNEL_MS = r"^Total kernel time:\s*(\S+) ms\s*$"


def solve(args, workdir) -> None:
    started = peerlib.clock()
    graph = peerlib.load(args.file)
    peerlib.check_int32(graph, flows_too=True)
    path = args.file
    if path == "-" or peerlib.is_compressed(path):  # the program reads plain files only
        path = os.path.join(workdir, "instance.max")
        peerlib.write_dimacs(graph, path)
    converted = peerlib.clock() - started
    output = peerlib.run_program([args.program, "-v", "2", "-f", path], timeout=args.timeout)
    flow = int(peerlib.last_match(FLOW, output, "maximum flow value line"))
    seconds = float(peerlib.last_match(KERNEL_MS, output, "'Total kernel time' line")) / 1000
    peerlib.report(flow, seconds, converted)


def main() -> None:
    args = peerlib.parser(__doc__.splitlines()[0]).parse_args()
    peerlib.main(lambda workdir: solve(args, workdir))


if __name__ == "__main__":
    main()
