"""Hochbaum's pseudoflow (HPF) as in github.com/niklasb/pbbs-maxflow benchmarks/maxFlow/pseudoSeq.

    python scripts/peers/hpf.py --program .peers/bin/hpf FILE

Converts the DIMACS file to the PBBS binary flow graph the program reads and runs it.
`c cut tm` is its `PBBS-time`: wall time of the simple initialisation and phase 1 (the
maximum pseudoflow, i.e. the minimum cut), without building its structures and without
phase 2 (flow recovery). 32-bit build: refuses instances whose capacity out of s or into t
passes 2^31-1.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peerlib  # noqa: E402

PBBS_TIME = r"^PBBS-time:\s*(\S+)\s*$"
PBBS_FLOW = r"^flow=(-?\d+)\s*$"


def run_pbbs(args, workdir, flows_too: bool, env=None) -> None:
    """Convert, check the 32-bit range, run a PBBS max-flow program and report."""
    def convert(graph, path):
        peerlib.check_int32(graph, flows_too=flows_too)
        peerlib.write_pbbs_flow_graph(graph, path)

    name = "checked-flows.flow" if flows_too else "checked-capacities.flow"
    path, converted = peerlib.converted(args.file, workdir, name, convert)
    output = peerlib.run_program([args.program, path], env=env, timeout=args.timeout)
    flow = int(peerlib.last_match(PBBS_FLOW, output, "'flow=' line"))
    seconds = float(peerlib.last_match(PBBS_TIME, output, "'PBBS-time:' line"))
    peerlib.report(flow, seconds, converted)


def main() -> None:
    args = peerlib.parser(__doc__.splitlines()[0]).parse_args()
    peerlib.main(lambda workdir: run_pbbs(args, workdir, flows_too=True))


if __name__ == "__main__":
    main()
