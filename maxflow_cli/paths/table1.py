"""`maxflow paths --bench`: Reis et al.'s Table 1 as a suite. For each SNDlib network, the K
(100) shortest loopless paths of every ordered pair, timed by MPS on the device at each of the
table's thread shares, by Yen on the device, by our CPU Yen and by networkx's Yen, beside the
published times (CUDA-Yen and CUDA-MPS on a GeForce GTX 1060).

The paper does not say which pairs it ranks, which link lengths it uses, nor the unit of its
times (they are printed as below; milliseconds fit their size). We rank every ordered pair with
topohub's link lengths and print milliseconds for the whole network: the kernel's time (CUDA
events), and for the best share also the whole search (the pairs copied in, the paths copied
out). Each device time and the CPU Yen's is the median of `repeat` runs after a warm-up
(compilation outside), and networkx's time is estimated from a sample of
pairs (NETWORKX_SAMPLE) times the number of pairs. Every device ranking is checked against
the CPU Yen's keys.
"""

import itertools
import json
import statistics
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from maxflow_cli.errors import BenchFailed
from maxflow_cli.kernels.devices import default_device
from maxflow_cli.paths.graph import SNDLIB_PREFIX, TABLE1_NETWORKS, load_graph
from maxflow_cli.paths.search import SHARES, all_pairs, rank_paths

PUBLISHED = {
    "abilene": (41.91, (35.06, 29.06, 20.02, 15.03, 14.09, 13.95, 14.85)),
    "cost266": (312.87, (285.593, 207.593, 195.513, 174.073, 159.713, 152.813, 153.003)),
    "france": (189.98, (150.14, 121.14, 116.08, 92.96, 79.54, 79.4, 80.39)),
    "germany50": (714.24, (517.66, 443.66, 434.62, 429.63, 428.69, 421.79, 421.6)),
    "india35": (617.98, (508.12, 400.12, 388.04, 366.6, 352.24, 352.1, 351.12)),
    "newyork": (417.24, (339.81, 276.81, 271.75, 248.63, 235.21, 228.31, 228.42)),
    "norway": (542.78, (343.4, 256.4, 247.36, 242.37, 241.43, 241.29, 240.31)),
    "pioro40": (611.37, (600.61, 496.61, 484.53, 463.09, 448.73, 441.83, 449.02)),
    "polska": (578.32, (482.13, 384.13, 379.07, 355.95, 342.53, 342.39, 342.2)),
    "ta1": (478.45, (329.85, 245.85, 236.81, 231.82, 230.88, 223.98, 216.0)),
    "zib54": (649.56, (461.261, 390.261, 378.181, 356.741, 342.381, 342.241, 328.541)),
}
"""Reis et al., Table 1 (K = 100): CUDA-Yen, then CUDA-MPS at each share of SHARES."""

NETWORKX_SAMPLE = 10
YEN_SHARE = 0.1
"""The thread share of our device Yen (its groups work as MPS's do)."""


def _median_search(graph, sources, targets, k, algorithm, device, share, repeat):
    """The median kernel and search seconds of `repeat` runs, and the last ranking."""
    kernels, searches = [], []
    for _ in range(repeat):
        ranking = rank_paths(graph, sources, targets, k, algorithm, device, share)
        kernels.append(ranking.seconds.get("kernels", ranking.seconds["search"]))
        searches.append(ranking.seconds["search"])
    return statistics.median(kernels), statistics.median(searches), ranking


def _networkx_seconds(graph, sources, targets, k) -> float:
    """networkx's Yen on a sample of the pairs, scaled to all of them."""
    import networkx as nx

    digraph = nx.DiGraph()
    digraph.add_nodes_from(range(graph.n))
    for a in range(graph.m):
        digraph.add_edge(int(graph.tail[a]), int(graph.head[a]), length=int(graph.length[a]))
    sample = np.random.default_rng(0).choice(sources.shape[0],
                                             min(NETWORKX_SAMPLE, sources.shape[0]),
                                             replace=False)
    started = time.perf_counter()
    for pair in sample:
        list(itertools.islice(nx.shortest_simple_paths(
            digraph, int(sources[pair]), int(targets[pair]), "length"), k))
    return (time.perf_counter() - started) / sample.shape[0] * sources.shape[0]


def _same_keys(ranking, reference) -> bool:
    if not np.array_equal(ranking.out_count, reference.out_count):
        return False
    return all(np.array_equal(ranking.out_key[p, :c], reference.out_key[p, :c])
               for p, c in enumerate(reference.out_count))


def measure(name: str, k: int, repeat: int, device: str) -> dict:
    """One row: our times (ms) for network `name` (an SNDlib name or a graph argument)."""
    graph = load_graph(name if ":" in name or "/" in name else SNDLIB_PREFIX + name)
    sources, targets = all_pairs(graph.n)
    reference = rank_paths(graph, sources, targets, k, "yen", "cpu")  # also the warm-up
    _, cpu_yen, _ = _median_search(graph, sources, targets, k, "yen", "cpu", 1.0, repeat)
    row = {"network": name, "n": graph.n, "arcs": graph.m, "pairs": int(sources.shape[0]),
           "paths": int(reference.out_count.sum()), "device": device, "mps": {},
           "mps_search": {}}
    runs = [("mps", share) for share in SHARES] + [("yen", YEN_SHARE)]
    for algorithm, share in runs:
        rank_paths(graph, sources, targets, k, algorithm, device, share)  # warm-up
        kernel, search, ranking = _median_search(graph, sources, targets, k, algorithm, device,
                                                 share, repeat)
        if not _same_keys(ranking, reference):
            raise BenchFailed(f"{name}: {algorithm} on the {device} (share {share}) ranks "
                              "other paths than the CPU Yen")
        if algorithm == "mps":
            row["mps"][str(share)] = 1000 * kernel
            row["mps_search"][str(share)] = 1000 * search
        else:
            row["yen"] = 1000 * kernel
    row["cpu_yen"] = 1000 * cpu_yen
    row["networkx_yen"] = 1000 * _networkx_seconds(graph, sources, targets, k)
    return row


def run_table1(networks, k: int, repeat: int, as_json: bool) -> list[dict]:
    """Measure `networks` (default: Table 1's) and print them beside the published rows."""
    device = default_device()  # measure() warms each search up before timing it
    rows = [measure(name, k, repeat, device) for name in networks or TABLE1_NETWORKS]
    if as_json:
        print(json.dumps({"k": k, "repeat": repeat, "published": PUBLISHED, "rows": rows}))
    else:
        _print(rows, k)
    return rows


def _print(rows: list[dict], k: int) -> None:
    console = Console(width=220)
    table = Table(title=f"Reis et al. Table 1, K = {k}: every ordered pair, milliseconds "
                        f"(published: GTX 1060, unit not stated; ours: {rows[0]['device']})",
                  header_style="bold", box=None)
    for column in ("network", "pairs", "who", "Yen", *(f"MPS {s:g}" for s in SHARES),
                   "MPS search", "CPU Yen", "nx Yen", "MPS best vs Yen"):
        table.add_column(column, justify="left" if column in ("network", "who") else "right")
    for row in rows:
        name = row["network"].removeprefix(SNDLIB_PREFIX)
        best = min(row["mps"].values())
        if name in PUBLISHED:
            yen, mps = PUBLISHED[name]
            table.add_row(name, "", "published", f"{yen:g}", *(f"{t:g}" for t in mps), "", "",
                          "", f"{yen / min(mps):.2f}x")
        table.add_row("" if name in PUBLISHED else name, f"{row['pairs']:,}", "ours",
                      f"{row['yen']:.2f}", *(f"{row['mps'][str(s)]:.2f}" for s in SHARES),
                      f"{_best_search(row):.2f}", f"{row['cpu_yen']:.2f}",
                      f"~{row['networkx_yen']:.0f}",
                      f"{row['yen'] / best:.2f}x")
    console.print(table)
    console.print("MPS best share, whole search, against the CPU Yen / networkx's Yen: " +
                  ", ".join(f"{row['network'].removeprefix(SNDLIB_PREFIX)} "
                            f"{row['cpu_yen'] / _best_search(row):.1f}x / "
                            f"{row['networkx_yen'] / _best_search(row):.0f}x" for row in rows))


def _best_search(row: dict) -> float:
    """The whole search's time at the share whose kernel was fastest."""
    best = min(row["mps"], key=row["mps"].get)
    return row["mps_search"][best]
