"""The generators: byte identity with the original programs' outputs, counts, determinism,
in-memory equals file, the papers' presets, and every refused parameter."""

import csv
import hashlib
import io
import re
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner
from fixtures import VECTORS
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import max_flow_value

from maxflow_cli.bench.instances import parse_instance
from maxflow_cli.cli import main
from maxflow_cli.dimacs.reader import parse_network
from maxflow_cli.errors import ParameterError
from maxflow_cli.generators import FAMILIES, PRESETS, make, washington
from maxflow_cli.generators.rng import drand48, glibc_random
from maxflow_cli.limits import INT32_MAX

# ---------------------------------------------------------------- the vectors


VECTOR_PROGRAMS = {"ac": "acyclic-dense", "genrmf": "genrmf", "rlg": "washington-rlg",
                   "wash": "washington"}
"""The original programs' short names, which start a vector's file name."""


def vector_case(name: str) -> tuple[str, dict, dict]:
    """(family, parameters, flags) that the original program was run with, from the file name:
    the program's short name, then the family's parameters in the order it declares them,
    each value after a tag of letters (and digits and '-': `n200`, `c1-1`, `seed-5`, `f10`)."""
    program, *fields = name.removesuffix(".max").split("_")
    family = FAMILIES[VECTOR_PROGRAMS[program]]
    values = [re.fullmatch(r"[a-z]*(?:\d+-)?(-?\d+)", field) for field in fields]
    assert all(values) and len(values) == len(family.parameters), f"unexpected vector {name}"
    params = {p.name: int(value[1]) for p, value in zip(family.parameters, values)}
    flags = {"original_format": True} if family.name == "acyclic-dense" else {}
    return family.name, params, flags


def checksums() -> dict[str, str]:
    lines = (VECTORS / "SHA256SUMS").read_text().split("\n")
    return {name: digest for digest, name in (line.split() for line in lines if line)}


def flows() -> dict[str, int]:
    with open(VECTORS / "FLOWS.tsv", newline="") as stream:
        return {row[0]: int(row[1]) for row in list(csv.reader(stream, delimiter="\t"))[1:]}


VECTOR_NAMES = sorted(checksums())


def written(family: str, params: dict, flags: dict | None = None) -> bytes:
    stream = io.BytesIO()
    FAMILIES[family].write(stream, **FAMILIES[family].complete(params), **(flags or {}))
    return stream.getvalue()


def test_vector_names_parse():
    assert vector_case("genrmf_a3_b2_c1-1_c2-100_seed7.max") == (
        "genrmf", dict(a=3, b=2, c1=1, c2=100, seed=7), {})
    assert vector_case("rlg_w64_l128_cap10000_seed-5.max") == (
        "washington-rlg", dict(rows=64, levels=128, cap=10000, seed=-5), {})
    assert vector_case("wash_f10_50_0_0_seed1.max") == (
        "washington", dict(function=10, dim1=50, dim2=0, range=0, seed=1), {})
    assert VECTOR_NAMES == sorted(path.name for path in VECTORS.glob("*.max"))


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
    narrow = np.int32 if back.caps.max(initial=0) <= INT32_MAX else np.int64  # narrowed
    for array, dtype in (("tails", np.int32), ("heads", np.int32), ("caps", narrow)):
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


SCALE_SIZES = {  # beyond the papers, for the shapes suite and the GPU at scale (never generated)
    "washington-rlg-long-2048x4096": (8388610, 25163776),
    "washington-rlg-long-4096x8192": (33554434, 100659200),
    "washington-rlg-wide-2048": (4194306, 12580864),
    "genrmf-long-48x384": (884736, 4347648),  # a²b vertices, 5a²b - 4ab - a² arcs
    "genrmf-long-64x512": (2097152, 10350592),
}


WASHINGTON_SIZES = {  # vertices and arcs (the lines: an upper bound) of the washington presets
    "washington-mesh-64x128": (8194, 24512), "washington-mesh-512x1024": (524290, 1572352),
    "washington-mesh-1024x2048": (2097154, 6290432),
    "washington-mesh-2048x4096": (8388610, 25163776),
    "washington-matching-10000x5": (20002, 70000),
    "washington-matching-250000x5": (500002, 1750000),
    "washington-matching-1000000x8": (2000002, 10000000),
    "washington-matching-2500000x8": (5000002, 25000000),
    "washington-square-mesh-100x10": (10002, 99155),
    "washington-square-mesh-400x10": (160002, 1596755),
    "washington-square-mesh-1000x10": (1000002, 9991955),
    "washington-square-mesh-1500x10": (2250002, 22487955),
    "washington-dinic-bad-20000": (20000, 39997), "washington-dinic-bad-200000": (200000, 399997),
    "washington-dinic-bad-1000000": (1000000, 1999997),
    "washington-goldberg-bad-5000": (15003, 20001),
    "washington-goldberg-bad-20000": (60003, 80001),
    "washington-goldberg-bad-100000": (300003, 400001),
    "washington-cheriyan-1000x100x50": (22007, 23403),
    "washington-cheriyan-1000x1000x250": (1002007, 1007003),
    "washington-cheriyan-2000x2000x1000": (8004007, 8014003),
    "washington-cheriyan-2000x2000x3000": (24004007, 24014003),
    "washington-basic-line-1000x8x8": (8002, 63980),
    "washington-basic-line-20000x8x8": (160002, 1279980),
    "washington-basic-line-100000x8x8": (800002, 6399980),
    "washington-basic-line-350000x8x8": (2800002, 22399980),
    "washington-exp-line-1000x8x8": (8002, 63980),
    "washington-exp-line-20000x8x8": (160002, 1279980),
    "washington-exp-line-100000x8x8": (800002, 6399980),
    "washington-exp-line-350000x8x8": (2800002, 22399980),
    "washington-dexp-line-1000x8x8": (8002, 64016),
    "washington-dexp-line-20000x8x8": (160002, 1280016),
    "washington-dexp-line-100000x8x8": (800002, 6400016),
    "washington-dexp-line-350000x8x8": (2800002, 22400016),
}


BILLION_SIZES = {  # about 10^9 arcs for one GPU, 32-bit arc numbers (never generated here)
    "washington-rlg-flat-163840x2048": (335544322, 1006469120),
    "genrmf-wide-585": (200201625, 999297000),
}


def test_the_billion_arc_presets_fit_32_bit_arc_indices_and_residuals():
    """Under MAX_NARROW_ARCS input arcs (2m residual arcs indexed by C ints), and twice the
    largest capacity (the largest residual) within gpu-sync's 32-bit residuals."""
    from maxflow_cli.limits import INT32_MAX, MAX_NARROW_ARCS

    for name, (_, arcs) in BILLION_SIZES.items():
        params = PRESETS[name].params
        assert 0.99e9 < arcs <= MAX_NARROW_ARCS
        largest = 3 * params["cap"] if "cap" in params else params["c2"] * params["a"] ** 2
        assert 2 * largest <= INT32_MAX


def test_presets_are_the_papers_instances_the_quick_suites_and_two_larger_ones():
    sizes = PAPER_SIZES | QUICK_SIZES | SCALE_SIZES | WASHINGTON_SIZES | BILLION_SIZES
    families = {PRESETS[name].family for name in sizes}  # other families test their own
    assert {name for name, preset in PRESETS.items() if preset.family in families} == set(sizes)
    for name in sizes:
        preset = PRESETS[name]
        FAMILIES[preset.family].check(**preset.params, seed=1)
        assert preset.size()[:2] == sizes[name]
        assert name.startswith(preset.family + "-")
    for name in SCALE_SIZES:
        a, _, b = name.rsplit("-", 1)[1].partition("x")
        keys = ("a", "b") if name.startswith("genrmf") else ("rows", "levels")
        sizes = dict(zip(keys, map(int, (a, b or a))))
        assert {key: PRESETS[name].params[key] for key in keys} == sizes


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
    ("genrmf", dict(a=400, b=6000, c2=10, seed=1), "too large"),
    ("washington-rlg", dict(rows=2, levels=5, seed=1), "--rows must be in [3,"),
    ("washington-rlg", dict(rows=5, levels=0, seed=1), "--levels must be in"),
    ("washington-rlg", dict(rows=5, levels=5, cap=0, seed=1), "--cap must be in"),
    ("washington-rlg", dict(rows=5, levels=5, cap=2**30, seed=1), "--cap must be in"),
    ("washington-rlg", dict(rows=5, levels=5, seed=2**30), "--seed must be in"),
    ("washington-rlg", dict(rows=40000, levels=40000, seed=1), "too large"),
    ("acyclic-dense", dict(n=1, seed=1), "--n must be in [2,"),
    ("acyclic-dense", dict(n=100000, seed=1), "too large"),
    ("acyclic-dense", dict(n=5, seed=-1), "--seed must be in"),
    ("genrmf", dict(b=3, seed=1), "missing --a"),
    ("genrmf", dict(a=3, b=3, d=1, seed=1), "unknown parameter"),
    ("ak", dict(n=1), "--n must be in [2,"),
    ("ak", dict(n=400_000_000), "--n must be in"),
    ("ak", dict(n=3, seed=1), "unknown parameter"),
]


@pytest.mark.parametrize("family, params, message", REFUSED)
def test_refused(family, params, message):
    with pytest.raises(ParameterError, match=re.escape(message)):
        make(family, **params)


AK_2 = """c very bad maxflow problem
p max 14 19
n 1 s
n 2 t
a 3 4 3
a 3 6 1
a 4 5 2
a 4 6 1
a 5 8 1
a 5 6 1
a 6 7 3
a 7 8 3
a 9 10 2
a 10 11 2
a 11 12 2
a 12 13 2
a 13 14 2
a 9 14 1
a 10 13 1
a 1 3 1000000
a 1 9 1000000
a 8 2 1000000
a 14 2 1000000
"""
"""What ``ak 2`` prints, line by line from its loops (Cherkassky & Goldberg's ak.c)."""

AK_4102_SHA256 = "3975b9beaf85ca64af3f4569f592658b5557a2a5509319c76dd7b8451beade8a"
"""The digest of ``ak 4102``'s output: igraph's test copy of it (tests/unit/ak-4102.max, a
verbatim copy of the original's output), among the peer fixtures."""


def test_ak_is_the_original_output():
    assert written("ak", dict(n=2)).decode() == AK_2
    assert hashlib.sha256(written("ak", dict(n=4102))).hexdigest() == AK_4102_SHA256


@pytest.mark.parametrize("n", [2, 3, 10, 57])
def test_ak_counts_and_flow(n):
    """4n + 6 vertices, 6n + 7 arcs (size's), and a maximum flow of 2n + 3: n + 2 units
    through the first gadget's taps and n + 1 along the second's path."""
    network = make("ak", n=n)
    assert (network.n, network.m) == (4 * n + 6, 6 * n + 7) == FAMILIES["ak"].size(n=n)[:2]
    parsed = parse_network(written("ak", dict(n=n)), "ak")[0]
    for array in ("tails", "heads", "caps"):
        assert np.array_equal(getattr(parsed, array), getattr(network, array))
    arcs = zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist())
    assert max_flow_value(network.n, network.source, network.sink, arcs) == 2 * n + 3


def test_ak_takes_no_seed():
    """It draws no random numbers: a seed given to it is refused, in gen and in bench."""
    assert not FAMILIES["ak"].seeded and FAMILIES["genrmf"].seeded
    for text in ("ak:n=5,seed=2", "ak-1000:seed=1"):
        with pytest.raises(ParameterError, match="ak draws no random numbers"):
            parse_instance(text)
    assert [instance.name for instance in parse_instance("ak-1000")] == ["ak-1000"]
    assert [instance.name for instance in parse_instance("ak:n=5")] == ["ak:n=5"]
    result = CliRunner().invoke(main, ["gen", "--preset", "ak-1000", "--seed", "2"])
    assert result.exit_code == 2 and "--seed: ak draws no random numbers" in result.output


def test_unknown_family():
    with pytest.raises(ParameterError, match="known: acyclic-dense, genrmf, washington-rlg, "):
        make("rmfgen", n=3)


# ---------------------------------------------------------------- washington, all its functions

WASHINGTON_VECTORS = VECTORS / "washington"
def washington_table() -> dict[str, tuple[int, str]]:
    """Each vector's maximum flow and the arguments (fct dim1 dim2 range seed) that made it."""
    with open(WASHINGTON_VECTORS / "FLOWS.tsv", newline="") as stream:
        rows = list(csv.reader(stream, delimiter="\t"))[1:]
    return {row[0]: (int(row[1]), row[2]) for row in rows}


def washington_case(name: str) -> dict:
    family, params, _ = vector_case(name)
    assert family == "washington", f"unexpected vector name {name}"
    return params


WASHINGTON_NAMES = sorted(washington_table())
WORDS = washington.WORDS


def test_washington_vectors_are_named_by_their_arguments():
    digests = dict(line.split()[::-1] for line in
                   (WASHINGTON_VECTORS / "SHA256SUMS").read_text().splitlines() if line)
    assert sorted(digests) == WASHINGTON_NAMES and len(WASHINGTON_NAMES) == 18
    for name, (_, arguments) in washington_table().items():
        params = washington_case(name)
        assert arguments.split() == [str(params[key]) for key in
                                     ("function", "dim1", "dim2", "range", "seed")]
        assert hashlib.sha256((WASHINGTON_VECTORS / name).read_bytes()).hexdigest() == \
            digests[name]


@pytest.mark.parametrize("name", WASHINGTON_NAMES)
def test_washington_byte_identical_to_the_original(name):
    assert written("washington", washington_case(name)) == (WASHINGTON_VECTORS / name).read_bytes()


@pytest.mark.parametrize("name", WASHINGTON_NAMES)
def test_washington_in_memory_equals_the_file_and_has_its_flow(name):
    params = washington_case(name)
    network = make("washington", **params)
    back, _ = parse_network((WASHINGTON_VECTORS / name).read_bytes())
    assert (network.n, network.source, network.sink) == (back.n, back.source, back.sink)
    narrow = np.int32 if back.caps.max(initial=0) <= INT32_MAX else np.int64  # narrowed
    for array, dtype in (("tails", np.int32), ("heads", np.int32), ("caps", narrow)):
        assert getattr(network, array).dtype == dtype
        assert np.array_equal(getattr(network, array), getattr(back, array))
    arcs = zip(network.tails.tolist(), network.heads.tolist(), network.caps.tolist())
    assert max_flow_value(network.n, network.source, network.sink, arcs) == \
        washington_table()[name][0]


def test_washington_rlg_is_washington_rlg_and_rlg2_its_arcs_under_its_own_title():
    rlg = written("washington-rlg", dict(rows=7, levels=9, cap=50, seed=4))
    same = dict(dim1=7, dim2=9, range=50, seed=4)
    assert written("washington", dict(function=2, **same)) == rlg
    assert written("washington", dict(function=3, **same)) == rlg.replace(
        b"c Random Leveled Graph\n", b"c Random 2 Leveled Graph\n", 1)


def add_edge_model(lists: list[list[list[int]]], u: int, v: int, c: int) -> None:
    """AddEdge as WASHINGTON.md states it, on plain lists of [head, capacity], newest first."""
    for record in lists[u]:
        if record[0] == v:
            record[1] += c
            return
    lists[u].insert(0, [v, c])
    lists[v].insert(0, [u, 0])


def add_edges(edges: list[tuple[int, int, int]], n: int = 40) -> int:
    """Run the kernel's AddEdge and the rule's on ``edges``; their files agree. Returns the
    kernel's owner (-1 where no list grew long enough to be indexed)."""
    vertices = np.zeros(n, washington.VERTEX)
    vertices["first"] = vertices["marked_by"] = -1
    records = np.empty(2 * len(edges), washington.RECORD)
    state = np.array([0, 0, -1, 0], np.int64)
    lists = [[] for _ in range(n)]
    for u, v, c in edges:
        washington._add_edge(vertices, records, state, u, v, c)
        add_edge_model(lists, u, v, c)
    tails, heads, caps = washington._file_order(vertices, records, state)
    expected = [(u, v, c) for u in range(n) for v, c in lists[u] if c > 0]
    assert list(zip(tails.tolist(), heads.tolist(), caps.tolist())) == expected
    return int(state[2])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 39), st.integers(0, 39),
                          st.integers(0, 9)), min_size=1, max_size=600))
def test_add_edge_follows_the_rule(draws):
    """Kinds of edge: 0 from a hub (vertex 0), 1 from a few tails, 2 any pair."""
    add_edges([((0, u % 4, u)[kind], v, c) for kind, u, v, c in draws if (0, u % 4, u)[kind] != v])


def test_add_edge_follows_the_rule_on_long_lists():
    """2000 edges on 40 vertices: lists of 100, past the scans' limit, so they are indexed."""
    rng = np.random.default_rng(5)
    edges = [(u, v, c) for u, v, c in rng.integers(0, 40, (2000, 3)).tolist() if u != v]
    edges.sort(key=lambda edge: edge[0] // 10)  # runs of a few tails, as the functions make
    assert add_edges(edges) >= 0


washington_params = st.fixed_dictionaries(dict(
    function=st.sampled_from([1, 4, 5, 6, 7, 8, 9, 10, 11]), dim1=st.integers(0, 40),
    dim2=st.integers(0, 40), range=st.integers(0, 40), seed=st.integers(-100, 100)))


@settings(max_examples=150, deadline=None)
@given(washington_params)
def test_washington_functions_counts_and_structure(p):
    try:
        FAMILIES["washington"].check(**p)
    except ParameterError:
        return
    network = make("washington", **p)
    n, m, _ = FAMILIES["washington"].size(**p)
    assert network.n == n and (network.source, network.sink) == (0, n - 1)
    if washington.FUNCTIONS[p["function"]].exact:
        assert network.m == m
    else:
        assert network.m <= m
    assert np.all(network.tails != network.heads) and np.all(network.caps > 0)
    assert 0 <= min(network.tails.min(), network.heads.min())
    assert max(network.tails.max(), network.heads.max()) < n
    pairs = set(zip(network.tails.tolist(), network.heads.tolist()))
    assert len(pairs) == network.m  # merged: one arc per ordered pair
    assert np.all(np.diff(network.tails) >= 0)  # vertex by vertex


def test_matching_of_full_degree_joins_every_pair():
    """Degree n: every list is long, so the kernel indexes them; all n^2 pairs, once each."""
    n = 40
    network = make("washington", function=4, dim1=n, dim2=n, seed=3)
    middle = (network.tails >= 1) & (network.tails <= n)
    assert sorted(zip(network.tails[middle].tolist(), network.heads[middle].tolist())) == [
        (j, n + x) for j in range(1, n + 1) for x in range(1, n + 1)]


CHERIYAN = [(1, 1, 1), (3, 2, 2), (5, 3, 1), (4, 2, 0), (2, 3, 4), (10000, 600, 0)]


@pytest.mark.parametrize("n, m, c", CHERIYAN)
def test_cheriyan_structure_and_flow(n, m, c):
    """Four gadgets of m taps (capacity n) on chains of m c vertices (10^7), a bridge of n unit
    paths from 1 to 2, and 3 -> t (10^7). Cutting the source's 2m taps costs 2 m n; every
    gadget carries m n (at most 10^7) in parallel, so the flow is min(2 m n, 10^7)."""
    params = dict(function=11, dim1=n, dim2=m, range=c, seed=1)
    network = make("washington", **params)
    assert network.n == 4 * m * c + 2 * n + 7  # the header's count says 4 m c + n + 6
    assert network.m == (4 * m * (c + 1) if c else 4) + 3 * n + 3
    caps = network.caps.tolist()
    taps = Counter({n: 4 * m} if c else {m * n: 4})  # with c = 0 a gadget's taps merge
    assert Counter(caps) == taps + Counter({washington.CHERIYAN_CAP: 4 * m * c + 1}) + Counter(
        {n: 2 + 2 * n}) + Counter({1: n})
    if n > 1:
        unit = network.caps == 1
        assert np.array_equal(network.heads[unit], network.tails[unit] + 1)  # the bridge's v -> w
    assert (3, network.n - 1, washington.CHERIYAN_CAP) in set(
        zip(network.tails.tolist(), network.heads.tolist(), caps))
    arcs = zip(network.tails.tolist(), network.heads.tolist(), caps)
    assert max_flow_value(network.n, 0, network.n - 1, arcs) == min(2 * m * n, 10**7)
    text = written("washington", params).split(b"\n")
    assert text[:3] == [b"c  Cheryian Graph",
                        b"c n = %d, m = %d, c = %d, total vertices %d " % (n, m, c,
                                                                            4 * m * c + n + 6),
                        b"p max %d %d" % (network.n, network.m)]


def test_washington_function_words():
    parameter = washington.PARAMETERS[0]
    assert [parameter.parse(word) for word in WORDS] == list(range(1, 12))
    assert parameter.parse("rlg") == parameter.parse("2") == 2
    runner = CliRunner()
    by_word = runner.invoke(main, ["gen", "washington", "--function", "dexp-line", "--dim1", "4",
                                   "--dim2", "3", "--range", "2", "--seed", "1"])
    by_number = runner.invoke(main, ["gen", "washington", "--function", "8", "--dim1", "4",
                                     "--dim2", "3", "--range", "2", "--seed", "1"])
    assert by_word.exit_code == 0, by_word.output
    assert by_word.stdout_bytes == by_number.stdout_bytes == (
        WASHINGTON_VECTORS / "wash_f8_4_3_2_seed1.max").read_bytes()
    bad = runner.invoke(main, ["gen", "washington", "--function", "grid", "--dim1", "4"])
    assert bad.exit_code == 2 and "is not an integer or one of mesh, rlg" in bad.output
    (instance,) = parse_instance("washington:function=mesh,dim1=5,dim2=8,range=100,seed=2")
    assert instance.params == dict(function=1, dim1=5, dim2=8, range=100, seed=2)
    assert instance.load()[0].m == 115


@pytest.mark.parametrize("function", [1, 4, 5, 6, 7, 8])
def test_washington_determinism_and_seeds(function):
    params = dict(function=function, dim1=12, dim2=5, range=4)
    first = written("washington", params | {"seed": 11})
    assert first == written("washington", params | {"seed": 11})
    assert first == written("washington", params | {"seed": -11})  # srandom(2|seed| + 1)
    assert first != written("washington", params | {"seed": 12})


def test_washington_without_randomness_ignores_the_seed_and_the_unused_sizes():
    for function in (9, 10):
        assert written("washington", dict(function=function, dim1=30, seed=1)) == written(
            "washington", dict(function=function, dim1=30, dim2=7, range=3, seed=2))


@pytest.mark.parametrize("params", [
    dict(function=1, dim1=200, dim2=150, range=10000, seed=1),
    dict(function=4, dim1=5000, dim2=6, range=0, seed=1),
    dict(function=6, dim1=3000, dim2=8, range=8, seed=1),
])
def test_washington_size_estimate_is_close(params):
    actual = written("washington", params)
    n, m, approximate = FAMILIES["washington"].size(**params)
    assert abs(approximate - len(actual)) < 0.1 * len(actual)
    assert 0.99 * m <= make("washington", **params).m <= m


WASHINGTON_REFUSED = [
    (dict(function=0, dim1=5), "--function must be in [1, 11]"),
    (dict(function=12, dim1=5), "--function must be in [1, 11]"),
    (dict(function=1, dim1=1, dim2=5), "mesh: needs --dim1 >= 2 and --dim2 >= 2 (the original's "
                                       "Degenerate graph)"),
    (dict(function=1, dim1=5, dim2=5, range=0), "mesh: needs --range >= 1"),
    (dict(function=1, dim1=5, dim2=5, range=2**30), "mesh: needs --range <= 715827882"),
    (dict(function=2, dim1=2, dim2=5), "rlg: needs --dim1 >= 3 (each vertex draws Subset(1, DIM1, "
                                       "3): the original's Invalid range for Random Subset)"),
    (dict(function=3, dim1=5, dim2=0), "rlg2: needs --dim2 >= 1"),
    (dict(function=4, dim1=1, dim2=1), "matching: needs --dim1 >= 2 and --dim2 <= --dim1"),
    (dict(function=4, dim1=5, dim2=6), "Degenerate graph"),
    (dict(function=5, dim1=3, dim2=4), "square-mesh: needs --dim1 >= 1 and --dim2 <= --dim1"),
    (dict(function=5, dim1=0, dim2=0), "square-mesh: needs --dim1 >= 1"),
    (dict(function=6, dim1=5, dim2=0, range=2), "Invalid range for Random Subset"),
    (dict(function=7, dim1=0, dim2=3, range=2), "exp-line: needs --dim1 >= 1"),
    (dict(function=8, dim1=5, dim2=3, range=0), "dexp-line: needs --range >= 1"),
    (dict(function=6, dim1=5, dim2=3, range=2148),
     "basic-line: needs --range <= 2147 (the source and sink arcs' capacity RANGE * 1000000"),
    (dict(function=8, dim1=1, dim2=600000, range=2000), "needs DIM2 * (DIM1 + 2 RANGE) + 1 to fit"),
    (dict(function=9, dim1=1), "dinic-bad: needs --dim1 >= 2"),
    (dict(function=10, dim1=0), "goldberg-bad: needs --dim1 >= 1"),
    (dict(function=11, dim1=3, dim2=0, range=2), "cheriyan: needs --dim1 >= 1 and --dim2 >= 1"),
    (dict(function=11, dim1=50000, dim2=50000, range=0), "DIM1 * DIM2 to fit a C int"),
    (dict(function=1, dim1=50000, dim2=50000), "too large"),
    (dict(function=11, dim1=2 * 10**9, dim2=1, range=1), "too large"),
    (dict(function=1, dim1=5, dim2=5, seed=2**30), "--seed must be in"),
    (dict(function=1, dim1=5, dim2=5, seed=1, depth=3), "unknown parameter"),
    (dict(function=1, dim2=5), "missing --dim1"),
]


@pytest.mark.parametrize("params, message", WASHINGTON_REFUSED)
def test_washington_refused(params, message):
    with pytest.raises(ParameterError, match=re.escape(message)):
        make("washington", **({"seed": 1} | params))


def test_a_network_the_memory_cannot_hold_is_refused_before_it_is_generated(monkeypatch):
    from maxflow_cli import generators, memory
    from maxflow_cli.errors import MaxflowError

    n, m, _ = generators.family("genrmf").size(a=20, b=20, c1=1, c2=100, seed=1)
    monkeypatch.setattr(memory, "available", lambda: 16 * m - 1)
    with pytest.raises(MaxflowError, match=f"genrmf: {n:,} vertices and {m:,} arcs needs about"):
        generators.make("genrmf", a=20, b=20, c1=1, c2=100, seed=1)
