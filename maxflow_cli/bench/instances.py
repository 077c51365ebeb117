"""What `maxflow bench` runs on: files, globs, presets and generator specs, as Instances.

An INSTANCE argument is, in this order of trial:

- a file (DIMACS max; .gz/.bz2/.xz);
- a preset of the papers (``maxflow gen --list-presets``), optionally with seeds:
  ``genrmf-long-24x192`` (seed 1), ``genrmf-long-24x192:seed=1..5``;
- a generator spec ``FAMILY:NAME=VALUE,...`` such as ``genrmf:a=24,b=192,seed=1..5``, where a
  value ``LO..HI`` stands for every integer from LO to HI (seed defaults to 1);
- a glob such as ``'data/*.max'`` (quoted, so the shell leaves it to us).

Generated instances are made in memory, never written. Every instance has a ``name`` that
can be given back to ``maxflow bench`` to run it alone, a ``family`` (the table it goes in)
and a ``group`` (its row: instances that differ only by their seed share one). A suite may
give it solver parameters (``solver_params``: He & Hong's KERNEL_CYCLES per family).
"""

import glob
import itertools
import math
import os
from dataclasses import dataclass, field

from maxflow_cli.dimacs.reader import read_network
from maxflow_cli.errors import ParameterError
from maxflow_cli.generators import FAMILIES, PRESETS, Parameter, family, make
from maxflow_cli.keyvalue import assignment, comma_items
from maxflow_cli.network import Network

FILES = "files"
"""The family (table) of instances read from files."""


MAX_SPEC_INSTANCES = 100_000
"""The most instances one spec may stand for, counted before its ranges are expanded. Each
instance is checked and held in memory before the run starts, and benched for --min-time (1 s
by default: over a day at this count); a range past this is a typing mistake
(seed=1..100000000), which would exhaust memory before the --yes rule (more than 1,000 cells)
is asked."""


@dataclass(frozen=True)
class Instance:
    name: str
    family: str
    group: str
    path: str | None = None  # a file, or None for a generated instance
    generator: str | None = None
    params: dict = field(default_factory=dict)
    # solver -> parameters a suite sets for it here
    solver_params: dict = field(default_factory=dict)

    def load(self) -> tuple[Network, list[str]]:
        """Read the file or generate the network; returns it and the reader's warnings."""
        if self.path is not None:
            return read_network(self.path)
        return make(self.generator, **self.params), []


def generated(name: str, family_label: str, group: str, generator: str, params: dict) -> Instance:
    """A generated instance, its parameters checked now so that a long run fails early."""
    chosen = family(generator)
    complete = chosen.complete(params)
    chosen.check(**complete)
    return Instance(name, family_label, group, generator=generator, params=complete)


def preset_instances(preset_name: str, seeds) -> list[Instance]:
    """One instance per seed of a preset (one in all where its family draws no random
    numbers: AK); its family is the preset name less its size."""
    preset = PRESETS[preset_name]
    label = preset_name.rsplit("-", 1)[0]
    if not FAMILIES[preset.family].seeded:
        return [generated(preset_name, label, preset_name, preset.family, preset.params)]
    return [generated(f"{preset_name}:seed={seed}", label, preset_name, preset.family,
                      preset.params | {"seed": seed})
            for seed in seeds]


def spec_instances(generator: str, params: dict, seeds) -> list[Instance]:
    """One instance per seed of a generator spec (one where the family draws no random
    numbers), named by the spec that makes it."""
    chosen = family(generator)
    shown = {p.name: p.show for p in chosen.parameters}
    stem = f"{generator}:" + ",".join(f"{key}={shown.get(key, str)(value)}"
                                      for key, value in params.items())
    if not chosen.seeded:
        return [generated(stem, generator, stem, generator, params)]
    return [generated(f"{stem},seed={seed}", generator, stem, generator, params | {"seed": seed})
            for seed in seeds]


def _values(text: str, where: str, parameter: Parameter | None = None) -> range | list:
    """``7`` -> range(7, 8); ``1..5`` -> range(1, 6), not expanded (see MAX_SPEC_INSTANCES); a
    word or a shape as ``parameter`` reads it, in a list."""
    if parameter is not None and not parameter.is_integer:
        try:
            return [parameter.parse(text)]
        except ParameterError as error:
            raise ParameterError(f"{where}: {error}") from None
    low, dots, high = text.partition("..")
    try:
        values = range(int(low), int(high if dots else low) + 1)
    except ValueError:
        raise ParameterError(f"{where}: {text!r} is not an integer or a range LO..HI") from None
    if not values:
        raise ParameterError(f"{where}: the range {text!r} is empty")
    return values


def _assignments(text: str, where: str, parameters=()) -> dict[str, list]:
    """``a=24,b=192,seed=1..5`` -> {'a': range(24, 25), ..., 'seed': range(1, 6)}; refuses an
    empty field and a name given twice (which value was meant?). ``parameters``, a family's,
    read their own values (``shape=512x512``, ``function=rlg``)."""
    by_name = {parameter.name: parameter for parameter in parameters}
    table = {}
    for item in comma_items(text, where, "field") if text else []:
        key, value = assignment(item, where, table, "NAME")
        table[key] = _values(value, where, by_name.get(key))
    return table


def _check_count(table: dict, where: str) -> None:
    """Refuse a spec of more than MAX_SPEC_INSTANCES instances, counted before its ranges are
    expanded."""
    count = math.prod(len(values) for values in table.values())
    if count > MAX_SPEC_INSTANCES:
        raise ParameterError(f"{where}: {count:,} instances; at most {MAX_SPEC_INSTANCES:,} "
                             "per INSTANCE")


def parse_instance(text: str) -> list[Instance]:
    """The instances one INSTANCE argument stands for (see the module docstring)."""
    if os.path.isfile(text):
        return [Instance(text, FILES, text, path=text)]
    stem, _, rest = text.partition(":")
    table = _assignments(rest, text, FAMILIES[stem].parameters if stem in FAMILIES else ())
    _check_count(table, text)
    if stem in PRESETS:
        if set(table) - {"seed"}:
            raise ParameterError(f"{text}: a preset takes only seed=... (its size is fixed)")
        if "seed" in table:
            FAMILIES[PRESETS[stem].family].take_seed(text)
        return preset_instances(stem, table.get("seed", [1]))
    if stem in FAMILIES:
        if "seed" in table:
            FAMILIES[stem].take_seed(text)
        seeds = table.pop("seed", [1])
        return [instance for values in itertools.product(*table.values())
                for instance in spec_instances(stem, dict(zip(table, values)), seeds)]
    paths = ([path for path in sorted(glob.glob(text)) if os.path.isfile(path)]
             if glob.has_magic(text) else [])
    if not paths:
        raise ParameterError(
            f"{text!r} is not a file, a glob that matches one, a preset "
            f"('maxflow gen --list-presets') or a generator spec such as "
            f"genrmf:a=24,b=192,seed=1..5 (families: {', '.join(FAMILIES)})"
        )
    return [Instance(path, FILES, path, path=path) for path in paths]


def unique(instances) -> list[Instance]:
    """The instances in the order of their names' first appearance, each name once."""
    return list({instance.name: instance for instance in instances}.values())


def parse_instances(texts) -> list[Instance]:
    """Every INSTANCE argument expanded, in order, without repeats."""
    return unique(instance for text in texts for instance in parse_instance(text))
