"""ksp.cu's kernel: its Numba twin, as MPS and as Yen, against the reference Yen
(the same keys, pair by pair, for any group count), the groups a share gives; on a GPU
(marked gpu), the kernel, as each, against its twin on the same pairs: the same paths, vertex for
vertex, for every share of Table 1."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maxflow_cli import kernels
from maxflow_cli.errors import ParameterError
from maxflow_cli.kernels.ksp import BLOCK, KspKernels, groups_for
from maxflow_cli.paths.graph import PathGraph, sndlib_graph
from maxflow_cli.paths.search import SHARES, all_pairs, rank_paths


def _search(kind, graph, k, algorithm, share, sources, targets):
    if kind == "gpu" and kernels.gpu_unavailable():
        pytest.skip(kernels.gpu_unavailable())
    device = KspKernels(kind, graph, k, algorithm, share)
    try:
        return device.search(sources, targets)
    finally:
        device.close()


def _found(outputs, pair):
    """The pair's paths as (key, vertices), what the kernels must agree on."""
    return [(int(outputs["out_key"][pair, r]),
             outputs["out_path"][pair, r, :outputs["out_len"][pair, r]].tolist())
            for r in range(outputs["out_count"][pair])]


def test_groups_take_their_share_of_the_block():
    assert [groups_for(share) for share in SHARES] == [1, 2, 3, 4, 5, 10, 20]
    for share in (0.7, 0.45, 0.3, 0.15, 0.07):  # as many groups of `share` as fit the block
        assert groups_for(share) * share <= 1 < (groups_for(share) + 1) * share
    assert groups_for(1e-6) == BLOCK


@st.composite
def graphs(draw):
    n = draw(st.integers(2, 8))
    arcs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                   st.integers(0, 4)), max_size=30))
    tails, heads, lengths = zip(*arcs) if arcs else ((), (), ())
    return PathGraph.from_arcs(n, tails, heads, lengths)


@pytest.mark.parametrize("algorithm", ["mps", "yen"])
@settings(max_examples=40, deadline=None)
@given(graphs(), st.integers(1, 15), st.sampled_from(SHARES))
def test_twins_rank_the_keys_of_the_reference_yen(algorithm, graph, k, share):
    sources, targets = all_pairs(graph.n)
    twin = _search("cpu", graph, k, algorithm, share, sources, targets)
    reference = rank_paths(graph, sources, targets, k, "yen", "cpu")
    assert np.array_equal(twin["out_count"], reference.out_count)
    for pair in range(sources.shape[0]):
        count = reference.out_count[pair]
        assert np.array_equal(twin["out_key"][pair, :count], reference.out_key[pair, :count])


def test_a_pool_larger_than_the_scratch_is_refused_with_a_way_out():
    graph = PathGraph.from_arcs(3000, range(2999), range(1, 3000), [1] * 2999)
    with pytest.raises(ParameterError, match="--algorithm yen --device cpu"):
        KspKernels("cpu", graph, 100, "mps", 1.0)


def test_twin_batches_give_what_one_batch_gives(monkeypatch):
    graph = sndlib_graph("abilene")
    sources, targets = all_pairs(graph.n)
    whole = _search("cpu", graph, 30, "mps", 1.0, sources, targets)
    one_pair = KspKernels("cpu", graph, 30, "mps", 1.0).pair_bytes
    monkeypatch.setattr(kernels.ksp, "TWIN_SCRATCH_BYTES", one_pair)  # a pair per batch
    for pair in (0, 7, sources.shape[0] - 1):
        one = _search("cpu", graph, 30, "mps", 1.0, sources[pair:pair + 1],
                      targets[pair:pair + 1])
        assert _found(one, 0) == _found(whole, pair)


def _random_graph(seed, n, arcs):
    rng = np.random.default_rng(seed)
    return PathGraph.from_arcs(n, rng.integers(0, n, arcs), rng.integers(0, n, arcs),
                               rng.integers(0, 5, arcs))


GPU_GRAPHS = [("random-8", lambda: _random_graph(1, 8, 30)),
              ("random-30", lambda: _random_graph(2, 30, 120)),
              ("abilene", lambda: sndlib_graph("abilene")),
              ("germany50", lambda: sndlib_graph("germany50"))]


_twin_results = {}


@pytest.mark.gpu
@pytest.mark.parametrize("algorithm", ["mps", "yen"])
@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize("name, make", GPU_GRAPHS, ids=[name for name, _ in GPU_GRAPHS])
def test_kernels_find_the_twins_paths(name, make, share, algorithm):
    graph = make()
    sources, targets = all_pairs(graph.n)
    if sources.shape[0] > 300:
        chosen = np.random.default_rng(0).choice(sources.shape[0], 300, replace=False)
        sources, targets = sources[chosen], targets[chosen]
    k = 100
    kernel = _search("gpu", graph, k, algorithm, share, sources, targets)
    if (name, algorithm) not in _twin_results:  # the twin's result has no share in it
        _twin_results[name, algorithm] = _search("cpu", graph, k, algorithm, share, sources,
                                                 targets)
    twin = _twin_results[name, algorithm]
    for pair in range(sources.shape[0]):
        assert _found(kernel, pair) == _found(twin, pair), (name, pair)
