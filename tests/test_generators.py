"""The generators: byte identity with the original programs' outputs, counts, determinism,
in-memory equals file, the papers' presets, and every refused parameter."""

import csv
import hashlib
import io
import re

import numpy as np
import pytest
from fixtures import VECTORS
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import max_flow_value

from maxflow_cli.dimacs.reader import parse_network
from maxflow_cli.errors import ParameterError
from maxflow_cli.generators import FAMILIES, PRESETS, make
from maxflow_cli.generators.rng import drand48, glibc_random

# ---------------------------------------------------------------- the vectors


VECTOR_PATTERNS = {
    "acyclic-dense": r"ac_n(?P<n>\d+)_seed(?P<seed>-?\d+)\.max",
    "genrmf": r"genrmf_a(?P<a>\d+)_b(?P<b>\d+)_c1-(?P<c1>\d+)_c2-(?P<c2>\d+)"
              r"_seed(?P<seed>-?\d+)\.max",
    "washington-rlg": r"rlg_w(?P<rows>\d+)_l(?P<levels>\d+)_cap(?P<cap>\d+)"
                      r"_seed(?P<seed>-?\d+)\.max",
}


def vector_case(name: str) -> tuple[str, dict, dict]:
    """(family, parameters, flags) that the original program was run with, from the file name."""
    for family, pattern in VECTOR_PATTERNS.items():
        match = re.fullmatch(pattern, name)
        if match:
            flags = {"original_format": True} if family == "acyclic-dense" else {}
            return family, {key: int(value) for key, value in match.groupdict().items()}, flags
    raise AssertionError(f"unexpected vector name {name}")


def checksums() -> dict[str, str]:
    lines = (VECTORS / "SHA256SUMS").read_text().split("\n")
    return {name: digest for digest, name in (line.split() for line in lines if line)}


def flows() -> dict[str, int]:
    with open(VECTORS / "FLOWS.tsv", newline="") as stream:
        return {row[0]: int(row[1]) for row in list(csv.reader(stream, delimiter="\t"))[1:]}


VECTOR_NAMES = sorted(checksums())


def written(family: str, params: dict, flags: dict | None = None) -> bytes:
    stream = io.BytesIO()
    FAMILIES[family].write(stream, **params, **(flags or {}))
    return stream.getvalue()


def test_vector_names_parse():
    assert vector_case("genrmf_a3_b2_c1-1_c2-100_seed7.max") == (
        "genrmf", dict(a=3, b=2, c1=1, c2=100, seed=7), {})
    assert vector_case("rlg_w64_l128_cap10000_seed-5.max") == (
        "washington-rlg", dict(rows=64, levels=128, cap=10000, seed=-5), {})
    assert len(VECTOR_NAMES) == 9


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_byte_identical_to_the_original(name):
    family, params, flags = vector_case(name)
    text = written(family, params, flags)
    assert hashlib.sha256(text).hexdigest() == checksums()[name]
    assert text == (VECTORS / name).read_bytes()


@pytest.mark.parametrize("name", [n for n in VECTOR_NAMES if n.startswith("ac_")])
def test_acyclic_dense_default_is_valid_dimacs(name):
    _, params, _ = vector_case(name)
    original = (VECTORS / name).read_bytes()
    assert written("acyclic-dense", params) == original.replace(b"s %d\n" % params["seed"], b"", 1)
    assert parse_network(written("acyclic-dense", params))[1] == []


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_in_memory_equals_the_file(name):
    family, params, _ = vector_case(name)
    network = make(family, **params)
    back, _ = parse_network((VECTORS / name).read_bytes())
    assert (network.n, network.source, network.sink) == (back.n, back.source, back.sink)
    for array, dtype in (("tails", np.int32), ("heads", np.int32), ("caps", np.int64)):
        assert getattr(network, array).dtype == dtype
        assert np.array_equal(getattr(network, array), getattr(back, array))


@pytest.mark.parametrize("name", [n for n in VECTOR_NAMES if (VECTORS / n).stat().st_size < 30000])
def test_flow_values(name):
    """The in-memory networks have the reference solver's flow values (FLOWS.tsv)."""
    family, params, _ = vector_case(name)
    network = make(family, **params)
    arcs = zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist())
    assert max_flow_value(network.n, network.source, network.sink, arcs) == flows()[name]


# ---------------------------------------------------------------- random number generators


def test_rng_checks_from_the_spec():
    assert drand48(7, 1)[0] == 0.2664441967654092
    assert glibc_random(1, 3).tolist() == [1804289383, 846930886, 1681692777]
    assert np.array_equal(glibc_random(0, 50), glibc_random(1, 50))  # glibc turns 0 into 1


@settings(max_examples=30, deadline=None)
@given(st.integers(-(2**31), 2**31 - 1))
def test_drand48_matches_its_definition(seed):
    x = (seed % 2**32) * 2**16 + 0x330E
    expected = []
    for _ in range(20):
        x = (0x5DEECE66D * x + 0xB) % 2**48
        expected.append(x / 2**48)
    assert drand48(seed, 20).tolist() == expected


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 2**31 - 1))
def test_glibc_random_matches_its_definition(seed):
    r = [seed]
    for i in range(1, 31):
        r.append(16807 * r[-1] % 2147483647)
    r += r[0:3]
    for i in range(34, 344 + 40):
        r.append((r[i - 3] + r[i - 31]) % 2**32)
    assert glibc_random(seed, 40).tolist() == [x >> 1 for x in r[344:]]


# ---------------------------------------------------------------- counts and structure

genrmf_params = st.fixed_dictionaries(
    dict(a=st.integers(1, 9), b=st.integers(1, 9), c1=st.integers(0, 50), c2=st.integers(50, 10000),
         seed=st.integers(-(2**31), 2**31 - 1))
).filter(lambda p: p["a"] ** 2 * p["b"] >= 2)
rlg_params = st.fixed_dictionaries(
    dict(rows=st.integers(3, 20), levels=st.integers(1, 20), cap=st.integers(1, 10**6),
         seed=st.integers(-(2**30 - 1), 2**30 - 1))
)
ac_params = st.fixed_dictionaries(dict(n=st.integers(2, 60), seed=st.integers(0, 2**31 - 1)))


def check_counts(family: str, params: dict, n: int, m: int):
    network = make(family, **params)
    assert (network.n, network.m) == (n, m) == FAMILIES[family].size(**params)[:2]
    assert 0 <= network.tails.min() and network.heads.max() < n and network.source != network.sink


@settings(max_examples=40, deadline=None)
@given(genrmf_params)
def test_genrmf_counts_and_structure(p):
    a, b = p["a"], p["b"]
    check_counts("genrmf", p, a * a * b, 5 * a * a * b - 4 * a * b - a * a)
    network = make("genrmf", **p)
    frame = network.tails // (a * a)
    between = frame != network.heads // (a * a)
    assert np.all(network.heads[between] // (a * a) == frame[between] + 1)
    assert np.all((p["c1"] <= network.caps[between]) & (network.caps[between] <= p["c2"]))
    assert np.all(network.caps[~between] == p["c2"] * a * a)
    for z in range(b - 1):  # each frame maps onto the next one by a permutation
        heads = network.heads[between & (frame == z)]
        assert sorted(heads.tolist()) == list(range((z + 1) * a * a, (z + 2) * a * a))


@settings(max_examples=40, deadline=None)
@given(rlg_params)
def test_washington_counts_and_structure(p):
    w, levels = p["rows"], p["levels"]
    check_counts("washington-rlg", p, w * levels + 2, 2 * w + 3 * w * (levels - 1))
    network = make("washington-rlg", **p)
    inner = (network.tails != 0) & (network.heads != network.sink)
    tails, heads = network.tails[inner], network.heads[inner]
    assert np.all((tails - 1) // w + 1 == (heads - 1) // w)  # level i to level i + 1
    assert np.all((1 <= network.caps[inner]) & (network.caps[inner] <= p["cap"]))
    assert np.all(network.caps[~inner] == 3 * p["cap"])
    assert all(len(set(heads[k:k + 3].tolist())) == 3 for k in range(0, heads.size, 3))


@settings(max_examples=30, deadline=None)
@given(ac_params)
def test_acyclic_dense_counts_and_structure(p):
    n = p["n"]
    check_counts("acyclic-dense", p, n, n * (n - 1) // 2)
    network = make("acyclic-dense", **p)
    pairs = list(zip(network.tails.tolist(), network.heads.tolist()))
    assert pairs == [(i, j) for i in range(n - 1) for j in range(i + 1, n)]
    assert 1 <= network.caps.min() and network.caps.max() <= 10**6


@pytest.mark.parametrize("family, params", [
    ("genrmf", dict(a=6, b=5, c1=1, c2=1000)),
    ("washington-rlg", dict(rows=10, levels=12, cap=1000)),
    ("acyclic-dense", dict(n=40)),
])
def test_determinism_and_seeds(family, params):
    first = written(family, params | {"seed": 11})
    assert first == written(family, params | {"seed": 11})
    assert first != written(family, params | {"seed": 12})


def test_washington_seed_sign_does_not_matter():
    assert written("washington-rlg", dict(rows=5, levels=4, cap=9, seed=3)) == written(
        "washington-rlg", dict(rows=5, levels=4, cap=9, seed=-3))


@pytest.mark.parametrize("family, params", [
    ("genrmf", dict(a=30, b=40, c1=1, c2=10000, seed=1)),
    ("washington-rlg", dict(rows=200, levels=150, cap=10000, seed=1)),
    ("acyclic-dense", dict(n=700, seed=1)),
])
def test_size_estimate_is_close(family, params):
    actual = len(written(family, params))
    assert abs(FAMILIES[family].size(**params)[2] - actual) < 0.1 * actual


# ---------------------------------------------------------------- presets

PAPER_SIZES = {  # vertices and arcs from the papers' tables
    "genrmf-long-24x192": (110592, 533952), "genrmf-long-28x224": (175616, 852208),
    "genrmf-long-32x256": (262144, 1276928), "genrmf-wide-36": (46656, 226800),
    "genrmf-wide-48": (110592, 541440), "genrmf-wide-64": (262144, 1290240),
    "genrmf-wide-96": (884736, 4377600), "genrmf-wide-128": (2097152, 10403840),
    "washington-rlg-long-512x1024": (524290, 1572352),
    "washington-rlg-long-768x1280": (983042, 2948352),
    "washington-rlg-long-1024x1536": (1572866, 4717568),
    "washington-rlg-wide-512": (262146, 785920),
    "washington-rlg-wide-768": (589826, 1768704), "washington-rlg-wide-1024": (1048578, 3144704),
    # Gutiérrez Mota's table says N(N+1)/2 arcs, a slip: the generator makes N(N-1)/2.
    "acyclic-dense-2000": (2000, 1999000), "acyclic-dense-4000": (4000, 7998000),
    "acyclic-dense-6000": (6000, 17997000),
}


QUICK_SIZES = {  # the bench's quick suite: a²b and 5a²b − 4ab − a²; WL + 2 and 2W + 3W(L − 1)
    "acyclic-dense-500": (500, 124750), "acyclic-dense-1000": (1000, 499500),
    "acyclic-dense-1500": (1500, 1124250),
    "genrmf-long-8x64": (4096, 18368), "genrmf-long-12x96": (13824, 64368),
    "genrmf-long-16x128": (32768, 155392),
    "genrmf-wide-12": (1728, 7920), "genrmf-wide-18": (5832, 27540),
    "genrmf-wide-24": (13824, 66240),
    "washington-rlg-long-64x128": (8194, 24512), "washington-rlg-long-96x160": (15362, 45984),
    "washington-rlg-long-128x192": (24578, 73600),
    "washington-rlg-wide-64": (4098, 12224), "washington-rlg-wide-96": (9218, 27552),
    "washington-rlg-wide-128": (16386, 49024),
}


SCALE_SIZES = {  # beyond the papers: W L + 2 vertices, 2W + 3W(L - 1) arcs (never generated)
    "washington-rlg-long-2048x4096": (8388610, 25163776),
    "washington-rlg-long-4096x8192": (33554434, 100659200),
}


def test_presets_are_the_papers_instances_the_quick_suites_and_two_larger_ones():
    assert set(PRESETS) == set(PAPER_SIZES) | set(QUICK_SIZES) | set(SCALE_SIZES)
    for name, preset in PRESETS.items():
        FAMILIES[preset.family].check(**preset.params, seed=1)
        assert preset.size()[:2] == (PAPER_SIZES | QUICK_SIZES | SCALE_SIZES)[name]
        assert name.startswith(preset.family + "-")
    for name in SCALE_SIZES:
        rows, levels = map(int, name.rsplit("-", 1)[1].split("x"))
        assert PRESETS[name].params == dict(rows=rows, levels=levels, cap=10000)


def test_preset_instance_is_made():
    network = make("genrmf", **PRESETS["genrmf-wide-36"].params, seed=5)
    assert (network.n, network.m) == PAPER_SIZES["genrmf-wide-36"]


# ---------------------------------------------------------------- refused parameters

REFUSED = [
    ("genrmf", dict(a=0, b=3, seed=1), "--a must be in"),
    ("genrmf", dict(a=1, b=1, seed=1), "at least 2"),
    ("genrmf", dict(a=3, b=0, seed=1), "--b must be in"),
    ("genrmf", dict(a=3, b=3, c1=20, c2=10, seed=1), "must not exceed"),
    ("genrmf", dict(a=3, b=3, c1=-1, c2=10, seed=1), "--c1 must be in"),
    ("genrmf", dict(a=464, b=1, c1=1, c2=10000, seed=1), "overflows"),  # 10000 * 464^2 >= 2^31
    ("genrmf", dict(a=3, b=3, seed=2**31), "--seed must be in"),
    ("genrmf", dict(a=400, b=2000, c2=10, seed=1), "too large"),
    ("washington-rlg", dict(rows=2, levels=5, seed=1), "--rows must be in [3,"),
    ("washington-rlg", dict(rows=5, levels=0, seed=1), "--levels must be in"),
    ("washington-rlg", dict(rows=5, levels=5, cap=0, seed=1), "--cap must be in"),
    ("washington-rlg", dict(rows=5, levels=5, cap=2**30, seed=1), "--cap must be in"),
    ("washington-rlg", dict(rows=5, levels=5, seed=2**30), "--seed must be in"),
    ("washington-rlg", dict(rows=20000, levels=20000, seed=1), "too large"),
    ("acyclic-dense", dict(n=1, seed=1), "--n must be in [2,"),
    ("acyclic-dense", dict(n=50000, seed=1), "too large"),
    ("acyclic-dense", dict(n=5, seed=-1), "--seed must be in"),
    ("genrmf", dict(b=3, seed=1), "missing --a"),
    ("genrmf", dict(a=3, b=3, d=1, seed=1), "unknown parameter"),
]


@pytest.mark.parametrize("family, params, message", REFUSED)
def test_refused(family, params, message):
    with pytest.raises(ParameterError, match=re.escape(message)):
        make(family, **params)


def test_unknown_family():
    with pytest.raises(ParameterError, match="known: acyclic-dense, genrmf, washington-rlg"):
        make("grid", n=3)
