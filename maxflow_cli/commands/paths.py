"""`maxflow paths GRAPH`: the K shortest loopless paths of one source-target pair or of every
ordered pair, by MPS or Yen, on the GPU or the CPU (Reis, Espíndola, Souza & Milanés)."""

import json
import sys

import click
from rich.console import Console

from maxflow_cli.commands import FiniteFloat
from maxflow_cli.errors import ParameterError
from maxflow_cli.jit import compile_notice
from maxflow_cli.kernels import gpu_unavailable
from maxflow_cli.paths.graph import load_graph
from maxflow_cli.paths.search import ALGORITHMS, all_pairs, rank_paths, warm_up


@click.command()
@click.argument("graph", metavar="GRAPH", required=False)
@click.option("--k", "k", type=click.IntRange(min=1), default=None,
              help="Paths per pair [default: 10; 100 with --bench, as Reis et al.'s Table 1].")
@click.option("--source", metavar="V", help="Source vertex: a 1-based id, or an SNDlib node name.")
@click.option("--target", metavar="V", help="Target vertex; without --source and --target, every "
                                            "ordered pair.")
@click.option("--algorithm", type=click.Choice(ALGORITHMS), default="mps", show_default=True)
@click.option("--device", type=click.Choice(["cpu", "gpu"]), default="cpu", show_default=True,
              help="gpu: kernels/ksp.cu; cpu: MPS's Numba twin, or the reference Yen.")
@click.option("--threads-share", "share", type=FiniteFloat(min=0, max=1, min_open=True),
              default=0.25, show_default=True,
              help="Minimum share of a block's threads per candidate path (GPU; Table 1's "
                   "columns, 1.0 ... 0.05; 0.2-0.25 ran fastest on an H100).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: every path, with "
                                                      "its cost and vertices.")
@click.option("--bench", "bench", is_flag=True,
              help="Reproduce Table 1 (K shortest paths of every ordered pair, each network of "
                   "the table or GRAPH alone) beside the published times.")
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True,
              help="With --bench: timed runs per cell (after a warm-up); the median is shown.")
def paths(graph, k, source, target, algorithm, device, share, as_json, bench, repeat):
    """K shortest loopless paths in GRAPH: a DIMACS shortest-path file ('p sp N M', 'a U V W';
    .gz/.bz2/.xz; '-' for stdin) or an SNDlib network, 'sndlib:germany50' (topohub's link
    lengths, in units of 10 m)."""
    if bench:
        from maxflow_cli.paths.table1 import run_table1

        run_table1([graph] if graph else None, k or 100, repeat, as_json)
        return
    k = k or 10
    if graph is None:
        raise click.UsageError("Missing argument 'GRAPH'.")
    if (source is None) != (target is None):
        raise click.UsageError("give both --source and --target, or neither (every pair)")
    if device == "gpu":
        missing = gpu_unavailable()
        if missing:
            raise ParameterError(f"--device gpu: {missing}")
    loaded = load_graph(graph)
    if source is not None:
        sources, targets = [loaded.vertex(source)], [loaded.vertex(target)]
        if sources == targets:
            raise ParameterError("--source and --target are the same vertex")
    else:
        sources, targets = all_pairs(loaded.n)
    with compile_notice(f"{algorithm} on the {device}"):
        compile_seconds = warm_up(algorithm, device)
    ranking = rank_paths(loaded, sources, targets, k, algorithm, device, share)
    names = loaded.names
    pairs = [{"source": names[s], "target": names[t],
              "paths": [{"cost": cost, "vertices": [names[v] for v in vertices]}
                        for cost, vertices in ranking.paths(pair)]}
             for pair, (s, t) in enumerate(zip(ranking.sources, ranking.targets))]
    if as_json:
        click.echo(json.dumps({"graph": graph, "algorithm": algorithm, "device": device, "k": k,
                               "threads_share": share, "n": loaded.n, "m": loaded.m,
                               "times": {"compile": compile_seconds, **ranking.seconds},
                               "pairs": pairs}))
        return
    console = Console(file=sys.stdout, highlight=False)
    for pair in pairs:
        console.print(f"[bold]{pair['source']} -> {pair['target']}[/bold]: "
                      f"{len(pair['paths'])} path(s)")
        if pair["paths"]:
            console.print(f"  {'rank':>4}  {'cost':>12}  vertices")
        for rank, path in enumerate(pair["paths"], 1):
            console.print(f"  {rank:>4}  {path['cost']:>12}  {' '.join(path['vertices'])}")
    console.print(f"{algorithm} on the {device}, k={k}, n={loaded.n}, m={loaded.m}: "
                  f"{ranking.seconds['search']:.4f} s")
