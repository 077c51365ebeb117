"""Stage 1 of the `mpi` solver on several rank counts of one host: the README's scaling table.

    python scripts/mpi_scaling.py --ranks 16,8,4,2 --partitions ranges,regions --blocks 1,4 \
        --seconds 250 genrmf-wide-128 washington-rlg-long-2048x4096

Generates each preset (seed 1) in memory, then for each partition, pieces per rank and rank
count starts the ranks once (maxflow_cli.distributed.launch.run_on_ranks) and prints one row:
stage-1 seconds as rank 0 sees it; of those, the discharges' share (each round's slowest part,
and the mean part's) and the global relabels'; pushes and relabels (hipr's, on its row);
rounds, global relabels and their BFS iterations (and those where a part took the last
relabel's distances without a BFS), bytes and messages sent across borders,
refused pushes, peak memory of rank 0 (which holds the whole graph) and of the largest other
rank. `--hipr` adds hipr's stage 1 for comparison. Rows whose start would fall
past `--seconds` are skipped (and say so). Flow values must agree across a preset's rows.
"""

import argparse
import time

from maxflow_cli import generators
from maxflow_cli.distributed.launch import run_on_ranks, warm_up
from maxflow_cli.errors import RanksFailed
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual

PARAMS = {"global_update_frequency": 0.5, "alpha": 6, "beta": 12}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("presets", nargs="+")
    parser.add_argument("--ranks", default="16,8,4,2,1")
    parser.add_argument("--partitions", default="ranges")
    parser.add_argument("--blocks", default="1", help="pieces per rank, comma-separated")
    parser.add_argument("--seconds", type=float, default=float("inf"))
    parser.add_argument("--hipr", action="store_true")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per launch")
    args = parser.parse_args()
    started = time.monotonic()
    hipr = get_solver("hipr")
    options = hipr.resolve(SolveOptions(False))
    hipr.prepare(options)
    warm_up(PARAMS | {"ranks": 1, "partition": "ranges", "blocks": 1})  # Numba's cache first
    print("instance | partition | blocks | ranks | stage 1 (s) | slowest discharges | mean "
          "discharges | relabels (s) | pushes | relabels | rounds | global relabels | BFS "
          "iterations | skipped | bytes | messages | refused | peak MB rank 0 | peak MB other",
          flush=True)
    for name in args.presets:
        preset = generators.preset(name)
        made = time.monotonic()
        network = generators.make(preset.family, **preset.params, seed=1)
        print(f"# {name}: n={network.n:,} m={network.m:,}, generated in "
              f"{time.monotonic() - made:.1f} s", flush=True)
        values = set()
        if args.hipr:
            result = hipr.solve(build_residual(network), options)
            values.add(result.flow_value)
            print(f"{name} | hipr | | 1 | {result.times['stage1']:.2f} | | | | "
                  f"{result.counters['pushes']:,} | {result.counters['relabels']:,}", flush=True)
        for partition in args.partitions.split(","):
            for blocks in map(int, args.blocks.split(",")):
                for ranks in map(int, args.ranks.split(",")):
                    row = f"{name} | {partition} | {blocks} | {ranks}"
                    if time.monotonic() - started > args.seconds:
                        print(f"{row} | skipped: out of time", flush=True)
                        continue
                    params = PARAMS | {"ranks": ranks, "partition": partition, "blocks": blocks}
                    try:
                        _, excess, times, counters, _ = run_on_ranks([network], params, ranks,
                                                                     args.timeout)[0]
                    except RanksFailed as error:
                        print(f"{row} | {error}", flush=True)
                        continue
                    values.add(int(excess[network.sink]))
                    print(f"{row} | {times['stage1']:.2f} | {times['discharge_slowest']:.2f} "
                          f"| {times['discharge_mean']:.2f} | "
                          f"{times['global_relabel']:.2f} | {counters['pushes']:,} | "
                          f"{counters['relabels']:,} | {counters['rounds']} | "
                          f"{counters['global_relabels']} | {counters['bfs_iterations']} | "
                          f"{counters['bfs_skipped']} | "
                          f"{counters['bytes']:,} | {counters['messages']:,} | "
                          f"{counters['refused']:,} | {counters['peak_memory_leader'] >> 20} | "
                          f"{counters['peak_memory_other'] >> 20}", flush=True)
        print(f"# {name}: flow values {sorted(values)}"
              f"{'' if len(values) <= 1 else ' DISAGREE'}", flush=True)


if __name__ == "__main__":
    main()
