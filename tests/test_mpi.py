"""The `mpi` solver on 1-4 MPI ranks (oversubscribed on small machines): every known instance
and random networks in one mpiexec launch per rank count, against the known values, the oracle,
hipr and the certificate; `mpiexec -n K maxflow solve`; failures end every rank with one line.

Every launch has a timeout: a hang fails the test instead of the run."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from fixtures import known_instances
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import max_flow_value

from maxflow_cli.check import check_answer
from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.distributed.launch import mpiexec, run_on_ranks
from maxflow_cli.distributed.partition import Splitter, vertex_owners
from maxflow_cli.errors import RanksFailed
from maxflow_cli.network import Network
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.result import SolveResult

pytest.importorskip("mpi4py", reason="the mpi extra is not installed")

LAUNCH_TIMEOUT = 600
INSTANCES = known_instances()
PARAMS = {"global_update_frequency": 0.5, "alpha": 6, "beta": 12}
MAXFLOW = [str(Path(sys.executable).with_name("maxflow"))]  # the installed command


def params(ranks, partition, blocks=1):
    return PARAMS | {"ranks": ranks, "partition": partition, "blocks": blocks}


def assert_solved(network, outcome, expected):
    res, excess, _, counters, _ = outcome
    graph = build_residual(network)
    result = SolveResult("mpi", int(excess[graph.sink]), res, False)
    assert result.flow_value == expected
    certificate = check_answer(graph, result)
    assert certificate.ok, certificate.problems
    return counters


@pytest.mark.parametrize("ranks,partition,blocks", [(1, "ranges", 1), (2, "regions", 1),
                                                    (3, "ranges", 3), (4, "regions", 2),
                                                    (4, "ranges", 1)])
def test_every_known_instance_on_ranks(ranks, partition, blocks):
    networks = [read_network(str(path))[0] for path, _ in INSTANCES]
    outcomes = run_on_ranks(networks, params(ranks, partition, blocks), ranks, LAUNCH_TIMEOUT)
    for network, (path, expected), outcome in zip(networks, INSTANCES, outcomes):
        counters = assert_solved(network, outcome, expected)
        assert counters["ranks"] == ranks, path.name
    if ranks > 1:  # the parts did talk: border values went across
        assert sum(outcome[3]["bytes"] for outcome in outcomes) > 0


@st.composite
def layered_networks(draw):
    """Networks of up to 40 vertices, enough for 4 ranks to share borders: random arcs,
    parallel and anti-parallel ones, zero capacities, arcs into the source."""
    n = draw(st.integers(2, 40))
    vertex = st.integers(0, n - 1)
    capacity = st.one_of(st.just(0), st.integers(1, 20), st.integers(2**40, 2**41))
    arcs = draw(st.lists(st.tuples(vertex, vertex, capacity), max_size=4 * n))
    source, sink = draw(st.lists(vertex, min_size=2, max_size=2, unique=True))
    return Network.from_arcs(n, source, sink, arcs)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.data_too_large])
@given(networks=st.lists(layered_networks(), min_size=12, max_size=12),
       ranks=st.integers(2, 4), partition=st.sampled_from(["ranges", "regions"]),
       blocks=st.integers(1, 3))
def test_random_networks_against_the_oracle_and_hipr(networks, ranks, partition, blocks):
    outcomes = run_on_ranks(networks, params(ranks, partition, blocks), ranks, LAUNCH_TIMEOUT)
    hipr = get_solver("hipr")
    for network, outcome in zip(networks, outcomes):
        expected = max_flow_value(network.n, network.source, network.sink,
                                  zip(network.tails.tolist(), network.heads.tolist(),
                                      network.caps.tolist()))
        graph = build_residual(network)
        assert hipr.solve(graph, hipr.resolve(SolveOptions(False))).flow_value == expected
        assert_solved(network, outcome, expected)


@pytest.mark.parametrize("partition,blocks", [("ranges", 1), ("regions", 1), ("ranges", 4)])
def test_parts_cover_every_arc_once_and_agree_on_border_pairs(partition, blocks):
    path = next(path for path, _ in INSTANCES if "genrmf" in path.name)
    graph = build_residual(read_network(str(path))[0])
    ranks = 3
    splitter = Splitter(graph, ranks, partition, blocks)
    parts = [splitter.part(rank) for rank in range(ranks)]
    owned_arcs = np.concatenate([splitter.own_arcs(rank) for rank in range(ranks)])
    assert np.array_equal(np.sort(owned_arcs), np.arange(graph.head.shape[0]))
    assert sum(part.owned for part in parts) == graph.n
    counts = np.array([part.pair_counts for part in parts])
    assert np.array_equal(counts, counts.T)  # a pair is listed on both of its sides
    assert counts.trace() == 0 and counts.sum() > 0
    for part in parts:  # a part's arcs and their reverses pair up
        assert np.array_equal(part.rev[part.rev], np.arange(part.rev.shape[0]))


def test_regions_follow_the_distance_from_the_sink():
    path = next(path for path, _ in INSTANCES if "genrmf" in path.name)
    graph = build_residual(read_network(str(path))[0])
    owner = vertex_owners(graph, 4, "regions")
    assert owner[graph.sink] == 0
    assert set(owner.tolist()) == {0, 1, 2, 3}


def test_blocks_deal_the_pieces_to_the_ranks_in_turn():
    path = next(path for path, _ in INSTANCES if "genrmf" in path.name)
    graph = build_residual(read_network(str(path))[0])
    owner = vertex_owners(graph, 2, "ranges", blocks=3)
    pieces = owner[np.flatnonzero(np.diff(owner, prepend=-1))]  # the owner of each run of ids
    assert pieces.tolist() == [0, 1, 0, 1, 0, 1]


def _run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=LAUNCH_TIMEOUT,
                          **kwargs)


@pytest.mark.parametrize("ranks", [1, 4])
def test_mpiexec_solve_prints_one_answer(ranks):
    path, expected = next((p, v) for p, v in INSTANCES if "genrmf" in p.name)
    done = _run([mpiexec(), "-n", str(ranks), *MAXFLOW, "solve", str(path), "--solver", "mpi",
                 "--json", "--check", "--partition", "regions"])
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # one JSON object: only rank 0 reports
    assert report["flow_value"] == expected and report["check"]["ok"]
    assert report["counters"]["ranks"] == ranks


def test_ranks_without_mpiexec_are_launched():
    path, expected = next((p, v) for p, v in INSTANCES if "rlg" in p.name)
    done = _run([*MAXFLOW, "solve", str(path), "--solver", "mpi", "--ranks", "3", "--json"])
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["flow_value"] == expected and report["counters"]["ranks"] == 3


def test_an_unreadable_network_ends_every_rank_with_one_line(tmp_path):
    bad = tmp_path / "bad.max"
    bad.write_text("p max 3 1\nn 1 s\nn 3 t\na 1 x 3\n")
    done = _run([mpiexec(), "-n", "3", *MAXFLOW, "solve", str(bad), "--solver", "mpi"])
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"maxflow: error: {bad}:4: expected an integer, found 'x'"]


def _columns(output: str) -> tuple[dict, dict]:
    """The text report's (phase -> seconds, counter -> count) columns, split where the
    header's 'counter' column starts."""
    lines = output.splitlines()
    header = next(index for index, line in enumerate(lines) if line.split()[:1] == ["phase"])
    split = lines[header].index("counter")
    phases, counters = {}, {}
    for line in lines[header + 1:]:
        if line.startswith("peak memory"):
            break
        for words, table in ((line[:split].split(), phases), (line[split:].split(), counters)):
            if words:
                name, value = words
                table[name] = value
    return phases, counters


def test_the_text_report_keeps_seconds_out_of_the_counts():
    """Issue 27, item 18: discharge and relabel seconds were printed as raw floats among the
    counts."""
    done = _run([*MAXFLOW, "solve", str(INSTANCES[0][0]), "--solver", "mpi", "--ranks", "2"])
    assert done.returncode == 0, done.stderr
    phases, counters = _columns(done.stdout)
    assert {"stage1", "discharge_slowest", "discharge_mean", "global_relabel"} <= set(phases)
    assert all(re.fullmatch(r"\d+\.\d{4}", value) for value in phases.values()), phases
    assert {"pushes", "rounds", "ranks"} <= set(counters)
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*", value) for value in counters.values()), counters


def _rank_processes(marker):
    """The rank processes of the job whose environment holds `marker`, by PMI_RANK."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        ranks = [item[9:] for item in environment if item.startswith(b"PMI_RANK=")]
        if ranks and marker in environment:
            found[int(ranks[0])] = int(entry.name)
    return found


def test_a_rank_that_dies_ends_the_job_with_one_line(tmp_path):
    instance = tmp_path / "rlg.max"
    _run([*MAXFLOW, "gen", "--preset", "washington-rlg-long-128x192", "-o", str(instance)])
    marker = f"MAXFLOW_TEST_JOB={os.getpid()}-{time.monotonic_ns()}"
    job = subprocess.Popen([*MAXFLOW, "solve", str(instance), "--solver", "mpi", "--ranks", "3"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True,
                           env=os.environ | dict([marker.split("=")]))
    try:
        deadline = time.monotonic() + 120
        while 1 not in (ranks := _rank_processes(marker.encode())):
            assert job.poll() is None, "the job ended before a rank could be stopped"
            assert time.monotonic() < deadline, "the ranks never started"
            time.sleep(0.02)
        os.kill(ranks[1], signal.SIGKILL)
        _, errors = job.communicate(timeout=LAUNCH_TIMEOUT)
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
    assert job.returncode == 1
    lines = errors.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("maxflow: error: mpi: 3 ranks failed"), errors


def _marked_processes(marker):
    """The processes (mpiexec, its proxies and ranks) whose environment holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_mpiexec_and_its_ranks_before_we_exit(tmp_path, signum):
    """Issue 27, item 7: we exited at once while mpiexec and its ranks ran on for seconds."""
    instance = tmp_path / "rlg.max"
    _run([*MAXFLOW, "gen", "--preset", "washington-rlg-long-128x192", "-o", str(instance)])
    marker = f"MAXFLOW_TEST_JOB={os.getpid()}-{time.monotonic_ns()}"
    job = subprocess.Popen([*MAXFLOW, "solve", str(instance), "--solver", "mpi", "--ranks", "2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True, env=os.environ | dict([marker.split("=")]))
    try:
        deadline = time.monotonic() + 120
        while set(_rank_processes(marker.encode())) != {0, 1}:
            assert job.poll() is None, "the job ended before the ranks could be seen"
            assert time.monotonic() < deadline, "the ranks never started"
            time.sleep(0.02)
        job.send_signal(signum)
        _, errors = job.communicate(timeout=60)
        left = _marked_processes(marker.encode())
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    assert (job.returncode, errors) == (128 + signum, f"maxflow: error: {word}\n")
    assert left == [], f"still running after we exited: {left}"


def test_a_launch_that_outlasts_its_timeout_is_ended():
    network = read_network(str(INSTANCES[0][0]))[0]
    with pytest.raises(RanksFailed, match="did not finish within"):
        run_on_ranks([network], params(2, "ranges"), 2, timeout=0.01)
