"""bench.instances: files, globs, presets and generator specs, expanded and checked up front."""

import pytest
from fixtures import DATA

from maxflow_cli.bench.instances import FILES, parse_instance, parse_instances
from maxflow_cli.bench.suites import SUITES
from maxflow_cli.errors import ParameterError


def test_a_file():
    (instance,) = parse_instance(str(DATA / "clrs.max"))
    assert (instance.family, instance.group) == (FILES, str(DATA / "clrs.max"))
    network, warnings = instance.load()
    assert (network.n, network.m, warnings) == (6, 9, [])


def test_a_glob_sorted():
    instances = parse_instance(str(DATA / "*.max"))
    assert [i.name for i in instances] == sorted(str(path) for path in DATA.glob("*.max"))


def test_a_preset_defaults_to_seed_1_and_takes_a_range():
    (one,) = parse_instance("genrmf-wide-36")
    assert (one.name, one.family, one.group) == (
        "genrmf-wide-36:seed=1", "genrmf-wide", "genrmf-wide-36")
    assert one.params == {"a": 36, "b": 36, "c1": 1, "c2": 10000, "seed": 1}
    assert [i.params["seed"] for i in parse_instance("genrmf-wide-36:seed=3..5")] == [3, 4, 5]


def test_a_generator_spec_expands_every_range():
    instances = parse_instance("genrmf:a=2..3,b=4,seed=1..2")
    assert [i.name for i in instances] == [
        "genrmf:a=2,b=4,seed=1", "genrmf:a=2,b=4,seed=2", "genrmf:a=3,b=4,seed=1",
        "genrmf:a=3,b=4,seed=2"]
    assert {i.group for i in instances} == {"genrmf:a=2,b=4", "genrmf:a=3,b=4"}
    network, _ = instances[0].load()
    assert (network.n, network.m) == (16, 5 * 16 - 4 * 2 * 4 - 4)


def test_names_parse_back_to_the_same_instance():
    for text in ("genrmf:a=3,b=4,seed=2", "washington-rlg-wide-512:seed=7"):
        (instance,) = parse_instance(text)
        assert parse_instance(instance.name) == [instance]


def test_repeats_are_dropped():
    assert len(parse_instances(["genrmf:a=2,b=2", "genrmf:a=2,b=2,seed=1"])) == 1


def test_the_quick_suites_sizes_are_presets():
    names = {instance.group for instance in SUITES["quick"].instances}
    assert len(names) == 15
    for name in names:
        (instance,) = parse_instance(name)
        assert (instance.name, instance.group) == (f"{name}:seed=1", name)
    assert parse_instance("genrmf-long-8x64:seed=2")[0] in SUITES["quick"].instances


@pytest.mark.parametrize("text, message", [
    ("nothing-here", "not a file, a glob"),
    ("/nonexistent/*.max", "not a file, a glob"),
    ("genrmf:a=2,b", "expected NAME=VALUE"),
    ("genrmf:a=x,b=2", "not an integer or a range"),
    ("genrmf:a=5..2,b=2", "is empty"),
    ("genrmf:a=0,b=2", "--a must be in"),
    ("genrmf:b=2", "missing --a"),
    ("genrmf:a=2,b=2,z=1", "unknown parameter"),
    ("genrmf-wide-36:a=2", "takes only seed"),
    ("genrmf:a=3,b=3,b=4", "'b' is given twice"),
    ("genrmf:a=3,,b=3", "an empty field"),
    ("genrmf:a=3,b=3,", "an empty field"),
    ("genrmf-wide-36:seed=1,seed=2", "'seed' is given twice"),
])
def test_bad_instances_are_refused_before_anything_runs(text, message):
    with pytest.raises(ParameterError, match=message):
        parse_instance(text)


def test_the_largest_presets_parse_to_their_sizes_without_being_made():
    (instance,) = parse_instance("washington-rlg-long-4096x8192")
    assert (instance.generator, instance.params) == ("washington-rlg",
                                                     dict(rows=4096, levels=8192, cap=10000,
                                                          seed=1))
    assert (instance.family, instance.group) == ("washington-rlg-long",
                                                 "washington-rlg-long-4096x8192")
    seeds = parse_instance("washington-rlg-long-2048x4096:seed=2..3")
    assert [i.params["seed"] for i in seeds] == [2, 3]
