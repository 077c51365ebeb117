"""bench.suites and bench.published: the papers' instances and numbers, transcribed right."""

from collections import Counter

import pytest

from maxflow_cli.bench.published import ALVINO_2015
from maxflow_cli.bench.runner import choose_solvers
from maxflow_cli.bench.suites import HE_HONG_KERNEL_CYCLES, SUITES
from maxflow_cli.generators import BILLION, FAMILIES, PRESETS

# Gutiérrez Mota 2012, table 3.2: our preset of each row -> the vertices it prints
# (He & Hong §VII: the same)
TABLE_3_2 = {
    "acyclic-dense-2000": 2000, "acyclic-dense-4000": 4000, "acyclic-dense-6000": 6000,
    "genrmf-long-24x192": 110592, "genrmf-long-28x224": 175616, "genrmf-long-32x256": 262144,
    "genrmf-wide-36": 46656, "genrmf-wide-48": 110592, "genrmf-wide-64": 262144,
    "washington-rlg-long-512x1024": 524290, "washington-rlg-long-768x1280": 983042,
    "washington-rlg-long-1024x1536": 1572866,
    "washington-rlg-wide-512": 262146, "washington-rlg-wide-768": 589826,
    "washington-rlg-wide-1024": 1048578,
}

BILLION_SHAPES = {preset.name.rsplit("-", 1)[0] for preset in BILLION} - \
    {name.rsplit("-", 1)[0] for name, preset in PRESETS.items() if preset not in BILLION}
"""Shapes made at 10^9 arcs only (generators.BILLION): beyond every suite."""


def seeds_per_group(suite) -> Counter:
    return Counter(instance.group for instance in suite.instances)


def test_every_suite_has_valid_instances_with_unique_names():
    for suite in SUITES.values():
        names = [instance.name for instance in suite.instances]
        assert len(names) == len(set(names)), suite.name
        for instance in suite.instances:
            FAMILIES[instance.generator].check(**instance.params)


@pytest.mark.parametrize("name, seeds", [("gutierrez2012", 5), ("hehong2010", 50)])
def test_the_papers_of_table_3_2(name, seeds):
    assert seeds_per_group(SUITES[name]) == dict.fromkeys(TABLE_3_2, seeds)
    for preset, vertices in TABLE_3_2.items():
        assert PRESETS[preset].size()[0] == vertices


def test_alvino_runs_the_sizes_of_its_tables_with_five_seeds():
    suite = SUITES["alvino2015"]
    assert seeds_per_group(suite) == {row.preset: 5 for row in ALVINO_2015}
    assert suite.published == ALVINO_2015
    for preset in ("genrmf-wide-96", "genrmf-wide-128"):
        assert preset in seeds_per_group(suite) and preset not in TABLE_3_2


def test_alvino_rows_agree_with_their_presets_and_their_own_speedups():
    assert len(ALVINO_2015) == 16
    for row in ALVINO_2015:
        assert PRESETS[row.preset].size()[0] == row.vertices
        # the printed speedup is the ratio of the printed (rounded) times, within rounding
        assert row.times["hipr"] / row.times["openmp-cuda"] == pytest.approx(row.speedup, rel=0.05)
    assert [row.table for row in ALVINO_2015] == (
        ["4.1"] * 3 + ["4.2"] * 3 + ["4.3"] * 4 + ["4.4"] * 3 + ["4.5"] * 3)


def test_the_papers_without_tables_say_so():
    for name in ("gutierrez2012", "hehong2010"):
        assert SUITES[name].published == ()
        assert "no published numbers" in SUITES[name].published_note


def test_quick_is_every_family_at_three_small_sizes_with_two_seeds():
    suite = SUITES["quick"]
    families = Counter(instance.family for instance in suite.instances)
    assert families == dict.fromkeys(
        ("acyclic-dense", "genrmf-long", "genrmf-wide", "washington-rlg-long",
         "washington-rlg-wide"), 6)
    assert set(seeds_per_group(suite).values()) == {2}
    assert max(FAMILIES[i.generator].size(**i.params)[1] for i in suite.instances) < 1_200_000


def test_hehong2010_runs_he_and_hongs_kernel_cycles_on_acyclic_dense_only():
    suite = SUITES["hehong2010"]
    for instance in suite.instances:
        expected = (HE_HONG_KERNEL_CYCLES["acyclic-dense"] if instance.family == "acyclic-dense"
                    else {})
        assert instance.solver_params == expected
    assert suite.solver_params == {
        "acyclic-dense": {"cuda": {"kernel_cycles": 32}, "hybrid": {"kernel_cycles": 32}}}
    dense = next(i for i in suite.instances if i.family == "acyclic-dense")
    long = next(i for i in suite.instances if i.family == "genrmf-long")
    suites_value, given = choose_solvers("cuda@cpu,cuda@cpu:kernel_cycles=64", "lockfree",
                                         False)[1:]
    assert suites_value.bound(dense).params["kernel_cycles"] == 32
    # the default, He & Hong's for Genrmf
    assert suites_value.bound(long).params["kernel_cycles"] == 4096
    assert given.bound(dense).params["kernel_cycles"] == 64  # what the configuration names wins


def test_shapes_has_every_shape_at_two_or_more_sizes_with_three_seeds():
    suite = SUITES["shapes"]
    labels = {name.rsplit("-", 1)[0] for name in PRESETS} - BILLION_SHAPES
    sizes = Counter(instance.family for instance in suite.instances
                    if instance.params.get("seed", 1) == 1)
    assert set(sizes) == labels and min(sizes.values()) >= 2
    seeds = seeds_per_group(suite)
    assert {seeds[group] for group in seeds if not group.startswith("ak-")} == {3}
    assert {seeds[group] for group in seeds if group.startswith("ak-")} == {1}  # no seed
    arcs = {i.group: FAMILIES[i.generator].size(**i.params)[1] for i in suite.instances}
    assert max(arcs.values()) <= 26_000_000
    # every shape reaches 1 M arcs, but the bad cases, whose work grows faster than their arcs
    small = {group.rsplit("-", 1)[0] for group, m in arcs.items() if m < 1_000_000}
    assert small == {"washington-dinic-bad", "washington-goldberg-bad", "ak"}
    assert {"washington-goldberg-bad-20000", "washington-goldberg-bad-100000",
            "washington-dinic-bad-1000000"} <= set(arcs)


def test_shapes_small_has_every_shape_for_a_cpu():
    suite = SUITES["shapes-small"]
    assert {i.family for i in suite.instances} == \
        {name.rsplit("-", 1)[0] for name in PRESETS} - BILLION_SHAPES
    assert max(FAMILIES[i.generator].size(**i.params)[1] for i in suite.instances) <= 160_000
