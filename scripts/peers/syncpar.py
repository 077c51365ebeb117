"""Baumstark, Blelloch & Shun's synchronous parallel push-relabel, github.com/niklasb/pbbs-maxflow
benchmarks/maxFlow/syncPar (OpenMP build).

    python scripts/peers/syncpar.py --program .peers/bin/syncpar [--threads 16] FILE

Converts the DIMACS file to the PBBS binary flow graph the program reads and runs it with
OMP_NUM_THREADS=--threads (default: as inherited). `c cut tm` is its `PBBS-time`: wall time
of the parallel solve (global relabels included; building its graph, printed by the program
as `init time`, left out); it computes a maximum preflow, as hi_pr's cut tm. Capacities are
read as 32-bit integers (excesses and the flow are 64-bit): refuses a capacity over 2^31-1.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hpf  # noqa: E402
import peerlib  # noqa: E402


def main() -> None:
    p = peerlib.parser(__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=None, help="OMP_NUM_THREADS for the solve")
    args = p.parse_args()
    env = dict(os.environ)
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
    peerlib.main(lambda workdir: hpf.run_pbbs(args, workdir, flows_too=False, env=env))


if __name__ == "__main__":
    main()
