"""The instance generators: one module per family, collected here in one table.

``FAMILIES`` maps a family name to its :class:`~maxflow_cli.generators.family.Family`
(parameters with limits and help, ``make``, ``write``, ``size``); ``PRESETS`` names the
instances of the seeds' tables (Gutiérrez Mota 2012 table 3.2, He & Hong 2010 §VII, Alvino
2015 §4.2), two larger Washington-RLG-long sizes for the GPU solvers at scale (2048 x 4096:
25 M arcs; 4096 x 8192: 100 M arcs) and three small sizes per family, the bench's quick
suite (up to 1.1 M arcs). Preset names are ``<family>-<size>`` and, where the
papers split a family into long and wide graphs, ``<family>-long-<a>x<b>`` / ``<family>-wide-<a>``
(genrmf: a x b; washington-rlg: W x L; wide means b = a, or L = W).
"""

from dataclasses import dataclass

from maxflow_cli.errors import ParameterError
from maxflow_cli.generators import acyclic_dense, genrmf, washington_rlg
from maxflow_cli.generators.family import Family, Flag, Parameter
from maxflow_cli.network import Network

FAMILIES: dict[str, Family] = {
    family.name: family for family in (acyclic_dense.FAMILY, genrmf.FAMILY, washington_rlg.FAMILY)
}


@dataclass(frozen=True)
class Preset:
    """A named instance size from the papers; the seed is given when it is made."""

    name: str
    family: str
    params: dict

    def size(self) -> tuple[int, int, int]:
        """Vertices, arcs and approximate file size."""
        return FAMILIES[self.family].size(**self.params)


def _presets() -> dict[str, Preset]:
    """Capacity ranges: up to 10000 where the generator takes one (Gutiérrez Mota §3.2). The
    first sizes of each family are the quick suite's, the others the papers' and beyond."""
    presets = [Preset(f"acyclic-dense-{n}", "acyclic-dense", dict(n=n))
               for n in (500, 1000, 1500, 2000, 4000, 6000)]
    presets += [
        Preset(f"genrmf-long-{a}x{b}", "genrmf", dict(a=a, b=b, c1=1, c2=10000))
        for a, b in ((8, 64), (12, 96), (16, 128), (24, 192), (28, 224), (32, 256))
    ]
    presets += [
        Preset(f"genrmf-wide-{a}", "genrmf", dict(a=a, b=a, c1=1, c2=10000))
        for a in (12, 18, 24, 36, 48, 64, 96, 128)
    ]
    presets += [
        Preset(f"washington-rlg-long-{w}x{h}", "washington-rlg", dict(rows=w, levels=h, cap=10000))
        for w, h in ((64, 128), (96, 160), (128, 192), (512, 1024), (768, 1280), (1024, 1536),
                     (2048, 4096), (4096, 8192))
    ]
    presets += [
        Preset(f"washington-rlg-wide-{w}", "washington-rlg", dict(rows=w, levels=w, cap=10000))
        for w in (64, 96, 128, 512, 768, 1024)
    ]
    return {preset.name: preset for preset in presets}


PRESETS: dict[str, Preset] = _presets()


def family(name: str) -> Family:
    """The family called ``name``, or a ParameterError listing the known ones."""
    if name not in FAMILIES:
        raise ParameterError(f"unknown generator family {name!r}; known: {', '.join(FAMILIES)}")
    return FAMILIES[name]


def preset(name: str) -> Preset:
    """The preset called ``name``, or a ParameterError pointing at ``--list-presets``."""
    if name not in PRESETS:
        raise ParameterError(f"unknown preset {name!r}; see 'maxflow gen --list-presets'")
    return PRESETS[name]


def make(family_name: str, **params) -> Network:
    """Generate in memory: ``make("genrmf", a=8, b=64, c1=1, c2=10000, seed=3)``."""
    chosen = family(family_name)
    return chosen.make(**chosen.complete(params))


__all__ = [
    "FAMILIES",
    "PRESETS",
    "Family",
    "Flag",
    "Parameter",
    "Preset",
    "family",
    "preset",
    "make",
]
