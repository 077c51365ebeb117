"""Alvino 2015, Algorithms 13 and 14, and He & Hong's Program 4 on them, against the
sequential pieces of pushrelabel/relabel.py."""

import os
import re
import subprocess
import sys

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_solvers import networks

from maxflow_cli import generators
from maxflow_cli.errors import ParameterError
from maxflow_cli.network import Network
from maxflow_cli.pushrelabel import parallel_relabel
from maxflow_cli.pushrelabel.parallel_relabel import (
    ABORTED,
    LONG_LIST,
    OWNER_CYCLE,
    OWNER_SHIFT,
    Workspace,
    _bfs_levels,
    block_of,
    chunk,
    label_skew,
    mark_open_arcs,
    owned,
    parallel_gap_relabel,
    parallel_global_relabel,
    parallel_reverse_bfs,
    threads_in_use,
    unlabel_owned,
)
from maxflow_cli.pushrelabel.relabel import global_relabel_cpu
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
from maxflow_cli.steps import reverse_bfs

THREADS = numba.config.NUMBA_NUM_THREADS


def _graph(family="washington-rlg", **params):
    params = params or dict(rows=16, levels=12, cap=50)
    return build_residual(generators.make(family, seed=3, **params))


def _scrambled_state(graph, seed):
    """Residuals with about a third of the arcs closed, and labels not valid for them."""
    rng = np.random.default_rng(seed)
    res = graph.initial_residuals()
    res[rng.random(res.shape[0]) < 0.35] = 0
    excess = rng.integers(0, 5, graph.n).astype(np.int64)
    label = rng.integers(0, graph.n // 2, graph.n).astype(np.int32)
    return res, excess, label


BLOCK = 1 << OWNER_SHIFT  # labels a block


def _labels_at(n, skew):
    """n zero labels whose label[0] is at place `skew` of its block (see label_skew)."""
    storage = np.zeros(n + BLOCK, np.int32)
    offset = (skew - label_skew(storage)) % BLOCK
    return storage[offset:offset + n]


def _assert_like_reverse_bfs(graph, res, threads, skew=0):
    """parallel_reverse_bfs gives reverse_bfs's labels and count, and lists the reached
    vertices level by level; on several threads, from the parallel levels (not from the
    sequential fallback). `skew`: where the labels begin in a block."""
    expected = np.empty(graph.n, np.int32)
    reached = reverse_bfs(graph.first, graph.head, graph.rev, res, graph.sink, expected,
                          np.empty(graph.n, np.int32))
    space = Workspace(graph)
    space.order[:] = -1
    label = _labels_at(graph.n, skew)
    assert label_skew(label) == skew
    bfs = _bfs_levels if threads > 1 else parallel_reverse_bfs
    assert bfs(graph.first, graph.head, graph.rev, res, graph.sink, label, space.order,
               space.claimed, space.buffer, threads) == reached != ABORTED
    assert (label == expected).all()
    order = space.order[:reached]
    assert sorted(order.tolist()) == sorted(np.flatnonzero(expected < graph.n).tolist())
    assert (np.diff(label[order]) >= 0).all()  # level by level


def _star(leaves):
    """Every vertex but the source has an arc into the sink: one level holds them all."""
    sink = leaves + 1
    arcs = [(0, v, 3) for v in range(1, leaves + 1)] + [(v, sink, 1) for v in
                                                         range(1, leaves + 1)]
    return build_residual(Network.from_arcs(leaves + 2, 0, sink, arcs))


@pytest.mark.parametrize("threads", sorted({1, 2, min(3, THREADS), THREADS}))
@pytest.mark.parametrize("family,params", [
    ("washington-rlg", dict(rows=16, levels=12, cap=50)),
    ("washington-rlg", dict(rows=70, levels=9, cap=50)),
    ("genrmf", dict(a=4, b=6, c1=1, c2=100)),
    ("genrmf", dict(a=9, b=3, c1=1, c2=100)),
    ("acyclic-dense", dict(n=40)),
    ("acyclic-dense", dict(n=LONG_LIST + 30)),  # lists the scan tests itself
])
def test_parallel_bfs_gives_the_sequential_distances(threads, family, params):
    graph = _graph(family, **params)
    _assert_like_reverse_bfs(graph, graph.initial_residuals(), threads)
    for seed in range(3):
        res, _, _ = _scrambled_state(graph, seed)
        _assert_like_reverse_bfs(graph, res, threads)


@pytest.mark.parametrize("threads", sorted({1, 2, THREADS}))
def test_parallel_bfs_on_a_level_of_every_vertex(threads):
    graph = _star(300)
    _assert_like_reverse_bfs(graph, graph.initial_residuals(), threads)


def _owners(n, skew, threads):
    return (((np.arange(n) + skew) >> OWNER_SHIFT) % OWNER_CYCLE) % threads


@pytest.mark.parametrize("n", [1, BLOCK - 1, BLOCK, BLOCK + 1, 1000, BLOCK * OWNER_CYCLE + 3,
                               40 * OWNER_CYCLE])
@pytest.mark.parametrize("threads", [1, 3, 16, 100])
@pytest.mark.parametrize("skew", [0, 1, BLOCK - 1])
def test_owned_counts_each_threads_vertices(n, threads, skew):
    expected = np.bincount(_owners(n, skew, threads), minlength=threads)
    assert [owned(n, skew, threads, t) for t in range(threads)] == expected.tolist()


@pytest.mark.parametrize("offset", range(0, BLOCK + 1, 3))
def test_label_skew_is_label_0s_place_in_its_block(offset):
    storage = np.empty(1000, np.int32)
    label = storage[offset:]
    assert label_skew(label) == (label.ctypes.data % (4 * BLOCK)) // 4
    blocks = (label.ctypes.data + 4 * np.arange(label.shape[0])) // (4 * BLOCK)
    assert (blocks - blocks[0] == block_of(np.arange(label.shape[0]), label_skew(label))).all()


def test_parallel_bfs_falls_back_when_its_threads_cannot_meet():
    """Two BFS threads on a layer of one: the second never starts while the first waits, so
    both give up (about a second) and the sequential BFS answers."""
    graph = _graph()
    res = graph.initial_residuals()
    space = Workspace(graph)
    with threads_in_use(1):
        assert _bfs_levels(graph.first, graph.head, graph.rev, res, graph.sink,
                           np.empty(graph.n, np.int32), space.order, space.claimed,
                           space.buffer, 2) == ABORTED
        label, expected = np.empty(graph.n, np.int32), np.empty(graph.n, np.int32)
        reached = reverse_bfs(graph.first, graph.head, graph.rev, res, graph.sink, expected,
                              np.empty(graph.n, np.int32))
        assert parallel_reverse_bfs(graph.first, graph.head, graph.rev, res, graph.sink, label,
                                    space.order, space.claimed, space.buffer, 2) == reached
        assert (label == expected).all()


@pytest.mark.parametrize("n", [1, BLOCK + 1, BLOCK * OWNER_CYCLE + 3, 40 * OWNER_CYCLE])
@pytest.mark.parametrize("threads", [1, 3, 16])
@pytest.mark.parametrize("skew", [0, 7])
def test_unlabel_owned_covers_every_vertex_once(n, threads, skew):
    degree = np.random.default_rng(n).integers(0, 5, n)
    first = np.concatenate([[0], np.cumsum(degree)])
    label = np.zeros(n, np.int32)
    owners = _owners(n, skew, threads)
    for t in range(threads):
        assert unlabel_owned(first, label, skew, threads, t) == degree[owners == t].sum()
        assert (label[owners <= t] == n).all() and (label[owners > t] == 0).all()


@pytest.mark.parametrize("arcs", [1, 63, 64, 65, 1000])
def test_open_arcs_bitmap_has_one_bit_per_residual_arc(arcs):
    res = np.random.default_rng(arcs).integers(0, 2, arcs) * 5
    res[-1] = 7  # the last arc of a partial word, and bit 63 of a full one
    bits = np.full((arcs + 63) // 64, -1, np.int64)
    for part in range(3):
        mark_open_arcs(res, bits, *chunk(0, bits.shape[0], 3, part))
    opened = [(int(bits[a // 64]) >> (a % 64)) & 1 for a in range(arcs)]
    assert opened == (res > 0).astype(int).tolist()


def test_parallel_bfs_on_more_threads_than_cores(tmp_path):
    """CI has two cores: the BFS tests run again with six threads, in a fresh process (from
    elsewhere than the checkout, whose sources would hide the installed package)."""
    environment = dict(os.environ, NUMBA_NUM_THREADS="6")
    outcome = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", __file__, "-k",
         "parallel_bfs and not more_threads"], env=environment, capture_output=True, text=True,
        cwd=tmp_path)
    assert outcome.returncode == 0, outcome.stdout[-3000:]
    assert re.search(r"distances\[.*-6\] PASSED", outcome.stdout), outcome.stdout[-3000:]


@pytest.mark.parametrize("threads", sorted({2, min(3, THREADS), THREADS}))
@pytest.mark.parametrize("skew", [1, BLOCK // 2, BLOCK - 1])
def test_parallel_bfs_on_labels_anywhere_in_a_block(threads, skew):
    graph = _graph(rows=40, levels=7)
    _assert_like_reverse_bfs(graph, graph.initial_residuals(), threads, skew)


@pytest.mark.parametrize("threads", sorted({2, THREADS}))
def test_parallel_bfs_past_one_ownership_cycle(threads):
    graph = _graph(rows=64, levels=300)  # 19202 vertices: more than OWNER_CYCLE blocks
    _assert_like_reverse_bfs(graph, graph.initial_residuals(), threads)


@pytest.mark.parametrize("threads", sorted({2, THREADS}))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(network=networks(), closed=st.lists(st.booleans(), max_size=80))
def test_parallel_bfs_on_random_networks(threads, network, closed):
    try:
        graph = build_residual(network)
    except ParameterError:  # source capacities summing past 2^63-1 are refused
        assume(False)
    res = graph.initial_residuals()
    shut = np.zeros(res.shape[0], np.bool_)
    shut[:len(closed)] = closed[:res.shape[0]]
    res[shut] = 0
    _assert_like_reverse_bfs(graph, res, threads)


@pytest.mark.parametrize("threads", sorted({1, THREADS}))
def test_parallel_global_relabel_matches_program_4(threads):
    graph = _graph()
    for seed in range(3):
        res, excess, label = _scrambled_state(graph, seed)
        state = (res.copy(), excess.copy(), label.copy(), np.zeros(graph.n, np.bool_))
        expected = global_relabel_cpu(graph.first, graph.head, graph.rev, *state[:3],
                                      graph.source, graph.sink, state[3],
                                      np.empty(graph.n, np.int32))
        space = Workspace(graph)
        got = parallel_global_relabel(graph.first, graph.head, graph.rev, res, excess, label,
                                      graph.source, graph.sink, space.marked, space.order,
                                      space.claimed, space.buffer, space.active, threads)
        assert got == expected
        assert (res == state[0]).all() and (excess == state[1]).all()
        assert (label == state[2]).all() and (space.marked == state[3]).all()
        active = space.active[:got[2]]
        assert len(set(active.tolist())) == got[2]
        assert (excess[active] > 0).all() and (label[active] < graph.n).all()


def test_parallel_gap_lifts_every_bucket_above_the_empty_one():
    n = 10
    label = np.array([0, 1, 3, 3, 4, 6, 1, 5, 1, 9], np.int32)  # bucket 2 is empty
    first_inactive = np.full(n + 1, n, np.int32)
    b_next = np.full(n + 1, n, np.int32)
    for vertex in range(n):  # hi_pr's inactive lists, one per label below n
        if label[vertex] < n:
            b_next[vertex] = first_inactive[label[vertex]]
            first_inactive[label[vertex]] = vertex
    lifted = parallel_gap_relabel(first_inactive, b_next, label, 2, 6)
    assert lifted == 5
    assert label.tolist() == [0, 1, 10, 10, 10, 10, 1, 10, 1, 9]  # 9 is above d_max
    assert (first_inactive[3:7] == n).all() and first_inactive[1] == 8


@pytest.mark.parametrize("solver", ["lockfree", "openmp-cuda"])
@pytest.mark.parametrize("threads", [-1, THREADS + 1])
def test_threads_out_of_range_are_refused(solver, threads):
    with pytest.raises(ParameterError, match=f"--threads {threads}: must be in 0..{THREADS}"):
        get_solver(solver).resolve(SolveOptions(device="cpu", params={"threads": threads}))


def test_threads_in_use_sets_and_restores_the_count():
    with threads_in_use(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == THREADS


def test_the_default_team_is_the_cores_free_now(monkeypatch):
    allowed = min(numba.config.NUMBA_NUM_THREADS, parallel_relabel.ALLOWED_CPUS)
    for elsewhere, expected in ((0, allowed), (allowed - 1, 1), (10**6, 1)):
        monkeypatch.setattr(parallel_relabel, "runnable_elsewhere", lambda: elsewhere)
        with threads_in_use(0) as threads:
            assert threads == numba.get_num_threads() == expected
    with threads_in_use(1) as threads:  # asked for: kept, however busy the machine
        assert threads == 1
