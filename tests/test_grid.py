"""The vision-grid generator: counts against a direct count, n-links both ways, one t-link per
pixel, determinism, in-memory equals file, flow values against the oracle, a minimum cut that
follows the image's objects, presets, and refused parameters."""

import hashlib
import io
import itertools
import math

import numpy as np
import pytest
from click.testing import CliRunner
from oracle import max_flow_value

from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.check import check_answer, min_cut_source_side
from maxflow_cli.cli import main
from maxflow_cli.dimacs.reader import parse_network
from maxflow_cli.errors import ParameterError
from maxflow_cli.generators import FAMILIES, PRESETS, grid, make
from maxflow_cli.registry import SolveOptions, solvers
from maxflow_cli.residual import build_residual

SMALL = [((7, 5), 4), ((7, 5), 8), ((4, 5, 3), 6), ((4, 5, 3), 26), ((1, 1), 4), ((9, 1), 8),
         ((2, 1, 3), 26)]


def written(**params) -> bytes:
    stream = io.BytesIO()
    FAMILIES["grid"].write(stream, **FAMILIES["grid"].complete(params))
    return stream.getvalue()


def pixels(shape):
    """(pixel (x, y[, z]), its 0-based vertex id) in raster order, x fastest."""
    axes = [range(length) for length in reversed(shape)]
    return [(tuple(reversed(point)), index + 1)
            for index, point in enumerate(itertools.product(*axes))]


def neighbour_pairs(shape, connectivity):
    """Every ordered pair of neighbouring pixels, counted directly from the definitions."""
    ids = dict(pixels(shape))
    face = connectivity in (4, 6)
    pairs = set()
    for p, q in itertools.product(ids, repeat=2):
        steps = [abs(a - b) for a, b in zip(p, q)]
        if max(steps) == 1 and (not face or sum(steps) == 1):
            pairs.add((ids[p], ids[q]))
    return pairs


@pytest.mark.parametrize("shape, connectivity", SMALL)
def test_counts_and_structure(shape, connectivity):
    network = make("grid", shape=shape, connectivity=connectivity, seed=3)
    pixel_count = math.prod(shape)
    sink = pixel_count + 1
    pairs = neighbour_pairs(shape, connectivity)
    assert (network.n, network.source, network.sink) == (pixel_count + 2, 0, sink)
    assert network.m == pixel_count + len(pairs)
    assert grid.size(shape, connectivity, 32)[:2] == (network.n, network.m)
    tails, heads, caps = network.tails.tolist(), network.heads.tolist(), network.caps.tolist()
    links = {(t, h): c for t, h, c in zip(tails, heads, caps) if t != 0 and h != sink}
    assert set(links) == pairs and len(links) == len(pairs)  # each n-link once each way
    assert all(links[q, p] == c for (p, q), c in links.items())  # Boykov-Jolly: symmetric
    terminal = sorted(h if t == 0 else t for t, h in zip(tails, heads) if t == 0 or h == sink)
    assert terminal == list(range(1, pixel_count + 1))  # exactly one t-link per pixel
    assert min(caps) >= 1 and max(caps) <= max(75, 32)
    assert _grouped_per_pixel(tails, heads, sink)


def _grouped_per_pixel(tails, heads, sink):
    """Each pixel's arcs (its t-link, then its n-links by head) come together, in raster order."""
    owners = [h if t == 0 else t for t, h in zip(tails, heads)]
    if owners != sorted(owners):
        return False
    groups = itertools.groupby(zip(owners, tails, heads), key=lambda arc: arc[0])
    return all([h for _, t, h in arcs][1:] == sorted(h for _, t, h in arcs[1:])
               for arcs in (list(group) for _, group in groups))


def test_t_links_follow_the_intensity():
    shape = (20, 15)
    network = make("grid", shape=shape, connectivity=4, seed=9)
    _, intensity = grid.scene(shape, 9)
    raster = intensity.T.ravel().astype(np.int64)
    t_links = (network.tails == 0) | (network.heads == network.sink)
    from_source = network.tails[t_links] == 0
    assert np.array_equal(from_source, raster >= 128)
    expected = np.maximum(1, (2 * 16 * 85 * np.abs(2 * raster - 255) + 4608) // 9216)
    assert np.array_equal(network.caps[t_links], expected)


def test_splitmix64_matches_its_definition():
    def reference(seed, k):
        z = (seed + (k + 1) * 0x9E3779B97F4A7C15) % 2**64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        return z ^ (z >> 31)

    assert reference(0, 0) == 0xE220A8397B1DCDAF  # splitmix64.c's first output from 0
    for seed, k in ((0, 0), (1, 5), (2**64 - 1, 1000), (123456789, 2**40)):
        assert int(grid._draw(np.uint64(seed), k)) == reference(seed, k)


def test_own_exponential_is_close_to_the_library_one():
    for x in (0.0, 1e-9, 0.3, 1.0, 7.5, 14.11):
        assert grid._exp_minus(x) == pytest.approx(math.exp(-x), rel=1e-12)


def test_the_smooth_image_interpolates_the_coarse_field():
    smooth, intensity = grid.scene((40, 24), 5)
    assert smooth.shape == intensity.shape == (40, 24)
    steps = np.abs(np.diff(smooth.astype(int), axis=0))
    assert steps.max() <= 255 // 5 + 1  # spacing 5: a lattice step spread over 5 pixels
    assert 0.2 < (smooth >= 128).mean() < 0.8


def test_determinism_and_seeds():
    params = dict(shape=(12, 9), connectivity=8)
    first = written(**params, seed=5)
    assert first == written(**params, seed=5)
    assert first != written(**params, seed=6)
    assert written(**params, seed=-5) not in (first, written(**params, seed=0))


def test_the_same_seed_gives_the_same_file_everywhere():
    """Pinned digests: a change of platform, numpy or numba must not change a byte."""
    digests = {
        ((10, 7), 8, 7): "dfae428d2d23893260444317da15c4407597d9c7374fa114dd4f0901e2963c75",
        ((5, 4, 3), 26, 11): "4d148128aca55ece64bc3f32e4014c3a980a38590b2da3dba2fa6dd7f4ef290c",
    }
    for (shape, connectivity, seed), digest in digests.items():
        text = written(shape=shape, connectivity=connectivity, seed=seed)
        assert hashlib.sha256(text).hexdigest() == digest


@pytest.mark.parametrize("shape, connectivity", SMALL[:4])
def test_in_memory_equals_the_file(shape, connectivity):
    network = make("grid", shape=shape, connectivity=connectivity, smoothness=50, seed=2)
    text = written(shape=shape, connectivity=connectivity, smoothness=50, seed=2)
    back, warnings = parse_network(text)
    assert warnings == [] and text.startswith(b"c vision grid ")
    assert (network.n, network.source, network.sink) == (back.n, back.source, back.sink)
    for array in ("tails", "heads", "caps"):
        assert np.array_equal(getattr(network, array), getattr(back, array))


def solve(network):
    """hipr's result and its residual graph, checked by the certificate."""
    spec = solvers()["hipr"]
    graph = build_residual(network)
    result = spec.solve(graph, spec.resolve(SolveOptions(want_flow=False, device="cpu")))
    assert check_answer(graph, result).ok
    return graph, result


@pytest.mark.parametrize("shape, connectivity, smoothness", [
    ((12, 10), 4, 32), ((12, 10), 8, 5), ((6, 5, 4), 6, 32), ((5, 4, 4), 26, 100)])
def test_flow_values_agree_with_the_oracle(shape, connectivity, smoothness):
    network = make("grid", shape=shape, connectivity=connectivity, smoothness=smoothness, seed=4)
    arcs = zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist())
    expected = max_flow_value(network.n, network.source, network.sink, arcs)
    assert expected > 0
    assert solve(network)[1].flow_value == expected


@pytest.mark.parametrize("shape, connectivity", [((64, 64), 4), ((64, 64), 8),
                                                 ((32, 32, 32), 6), ((32, 32, 32), 26)])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_minimum_cut_follows_the_objects_not_the_noise(shape, connectivity, seed):
    """The source side agrees with the object (smooth >= 128) far better than thresholding the
    noisy intensities does: the n-links smooth the noise away, as in segmentation."""
    graph, result = solve(make("grid", shape=shape, connectivity=connectivity, seed=seed))
    source_side = min_cut_source_side(graph, result.res)[1:-1]
    smooth, intensity = grid.scene(shape, seed)
    raster = tuple(reversed(range(len(shape))))
    objects = np.transpose(smooth >= 128, raster).ravel()
    threshold = np.transpose(intensity >= 128, raster).ravel()
    cut_agrees, threshold_agrees = (source_side == objects).mean(), (threshold == objects).mean()
    assert threshold_agrees < 0.9  # the noise is real
    assert cut_agrees > 0.88 and cut_agrees > threshold_agrees + 0.02


def test_presets_small_medium_large():
    names = [name for name in PRESETS if name.startswith("grid-")]
    assert len(names) == sum(map(len, grid.PRESET_SHAPES.values()))
    bounds = {"small": (10_000, 100_000), "medium": (1_000_000, 25_000_000),
              "large": (25_000_000, 500_000_000)}
    for group, shapes in grid.PRESET_SHAPES.items():
        for connectivity, shape in shapes:
            preset = PRESETS[f"grid-c{connectivity}-{'x'.join(map(str, shape))}"]
            FAMILIES["grid"].check(**preset.params, seed=1)
            low, high = bounds[group]
            assert low <= preset.size()[1] <= high
    assert {c for shapes in grid.PRESET_SHAPES.values() for c, _ in shapes} == {4, 8, 6, 26}
    assert PRESETS["grid-c4-4096x4096"].size()[:2] == (4096**2 + 2, 4096**2 + 4 * 4096 * 4095)


def test_cli_and_bench_specs():
    result = CliRunner().invoke(main, ["gen", "grid", "--shape", "6x5", "--connectivity", "8",
                                       "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == written(shape=(6, 5), connectivity=8, seed=3)
    instances = parse_instance("grid:shape=16x8x4,connectivity=26,seed=1..3")
    assert [i.params for i in instances] == [
        dict(shape=(16, 8, 4), connectivity=26, smoothness=32, seed=s) for s in (1, 2, 3)]
    assert instances[0].name == "grid:shape=16x8x4,connectivity=26,seed=1"
    (preset,) = parse_instance("grid-c6-16x16x16:seed=4")
    assert preset.load()[0].m == PRESETS["grid-c6-16x16x16"].size()[1]


@pytest.mark.parametrize("params, message", [
    (dict(shape=(8, 8), connectivity=6), "a 2-D shape takes --connectivity 4 or 8, not 6"),
    (dict(shape=(8, 8, 8), connectivity=8), "a 3-D shape takes --connectivity 6 or 26, not 8"),
    (dict(shape=(8, 8), connectivity=5), "takes --connectivity 4 or 8, not 5"),
    (dict(shape=(8, 8), connectivity=27), r"--connectivity must be in \[4, 26\]"),
    (dict(shape=(0, 8), connectivity=4), r"each size of --shape must be in \[1,"),
    (dict(shape=(8, 8), connectivity=4, smoothness=0), r"--smoothness must be in \[1,"),
    (dict(shape=(8, 8), connectivity=4, seed=2**63), "--seed must be in"),
    (dict(shape=(65536, 65536), connectivity=4), "too large"),
    (dict(shape=(1024, 1024, 1024), connectivity=26), "too large"),
])
def test_refused(params, message):
    with pytest.raises(ParameterError, match=message):
        make("grid", **({"seed": 1} | params))
