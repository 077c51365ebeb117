"""The instance generators: one module per family, collected here in one table.

``FAMILIES`` maps a family name to its :class:`~maxflow_cli.generators.family.Family`
(parameters with limits and help, ``make``, ``write``, ``size``); ``PRESETS`` names the
instances of the seeds' tables (Gutiérrez Mota 2012 table 3.2, He & Hong 2010 §VII, Alvino
2015 §4.2), two larger Washington-RLG-long sizes for the GPU solvers at scale (2048 x 4096:
25 M arcs; 4096 x 8192: 100 M arcs) and three small sizes per family, the bench's quick
suite (up to 1.1 M arcs), and two of about 10^9 arcs for one GPU (BILLION).
Preset names are ``<family>-<size>`` and, where the
papers split a family into long and wide graphs, ``<family>-long-<a>x<b>`` / ``<family>-wide-<a>``
(genrmf: a x b; washington-rlg: W x L; wide means b = a, or L = W).
Vision grids are ``grid-c<connectivity>-<W>x<H>[x<D>]``, small, medium and large sizes
(generators/grid.py, PRESET_SHAPES).
"""

from dataclasses import dataclass, replace

from maxflow_cli import memory
from maxflow_cli.errors import ParameterError
from maxflow_cli.generators import acyclic_dense, ak, genrmf, grid, washington, washington_rlg
from maxflow_cli.generators.family import Family, Flag, Parameter
from maxflow_cli.network import Network, narrowed

FAMILIES: dict[str, Family] = {
    family.name: family
    for family in (acyclic_dense.FAMILY, genrmf.FAMILY, washington_rlg.FAMILY, grid.FAMILY,
                   washington.FAMILY, ak.FAMILY)
}


@dataclass(frozen=True)
class Preset:
    """A named instance size from the papers; the seed is given when it is made."""

    name: str
    family: str
    params: dict
    sizes: str = ""
    """Which sizes of the papers' families it is: "quick" (the bench's quick suite), "papers"
    (Gutiérrez Mota 2012 table 3.2; He & Hong 2010 §VII: the same) or "" (neither)."""

    def size(self) -> tuple[int, int, int]:
        """Vertices, arcs and approximate file size."""
        return FAMILIES[self.family].size(**self.params)


def _sizes(quick: tuple, papers: tuple, larger: tuple = ()) -> list[tuple[str, tuple | int]]:
    """(Preset.sizes, size) for a family of the papers: its quick sizes, the papers', larger."""
    return ([("quick", size) for size in quick] + [("papers", size) for size in papers]
            + [("", size) for size in larger])


def _presets() -> dict[str, Preset]:
    """Capacity ranges: up to 10000 where the generator takes one (Gutiérrez Mota §3.2). The
    first sizes of each family are the quick suite's, the others the papers' and beyond."""
    presets = [Preset(f"acyclic-dense-{n}", "acyclic-dense", dict(n=n), sizes)
               for sizes, n in _sizes((500, 1000, 1500), (2000, 4000, 6000))]
    presets += [
        Preset(f"genrmf-long-{a}x{b}", "genrmf", dict(a=a, b=b, c1=1, c2=10000), sizes)
        for sizes, (a, b) in _sizes(((8, 64), (12, 96), (16, 128)),
                                    ((24, 192), (28, 224), (32, 256)), ((48, 384), (64, 512)))
    ]
    presets += [
        Preset(f"genrmf-wide-{a}", "genrmf", dict(a=a, b=a, c1=1, c2=10000), sizes)
        for sizes, a in _sizes((12, 18, 24), (36, 48, 64), (96, 128))
    ]
    presets += [
        Preset(f"washington-rlg-long-{w}x{h}", "washington-rlg", dict(rows=w, levels=h, cap=10000),
               sizes)
        for sizes, (w, h) in _sizes(((64, 128), (96, 160), (128, 192)),
                                    ((512, 1024), (768, 1280), (1024, 1536)),
                                    ((2048, 4096), (4096, 8192)))
    ]
    presets += [
        Preset(f"washington-rlg-wide-{w}", "washington-rlg", dict(rows=w, levels=w, cap=10000),
               sizes)
        for sizes, w in _sizes((64, 96, 128), (512, 768, 1024), (2048,))
    ]
    presets += [  # vision grids: small, medium and large sizes (grid.PRESET_SHAPES)
        Preset(f"grid-c{c}-{'x'.join(map(str, shape))}", "grid",
               dict(shape=shape, connectivity=c, smoothness=32))
        for sizes in grid.PRESET_SHAPES.values() for c, shape in sizes
    ]
    presets += _washington_presets()
    presets += [Preset(f"ak-{n}", "ak", dict(n=n)) for n in AK_SIZES]
    presets += BILLION
    return {preset.name: preset for preset in presets}


AK_SIZES = (1000, 4000, 16000)
"""AK's n: 6 k to 96 k arcs, Theta(n^2) work for push-relabel (C hi_pr 4 ms to 1 s on the
2-core machine); a million arcs would take it minutes."""

BILLION = [
    # W x L with L = 2048 levels, more than the papers' deepest (1536) and a quarter of the
    # 100 M-arc long preset's: a BFS (a global relabel, the certificate's search) goes about
    # one step a level, so the depth stays near what was measured, and the width (W = 80 L)
    # brings the arcs: 1,006,469,120 of them.
    Preset("washington-rlg-flat-163840x2048", "washington-rlg",
           dict(rows=163840, levels=2048, cap=10000)),
    # a = b = 585: 999,297,000 arcs. c2 = 3000 keeps the frame arcs' c2 a^2 in the original's
    # 32-bit int, and twice it (the largest residual) in gpu-sync's 32-bit residuals.
    Preset("genrmf-wide-585", "genrmf", dict(a=585, b=585, c1=1, c2=3000)),
]
"""About 10^9 arcs each, under the 2^30 - 32 input arcs that 32-bit arc numbers index
(limits.MAX_NARROW_ARCS): 24 bytes an arc on the GPU, where 64-bit ones take 32."""


def _washington_presets() -> list[Preset]:
    """Washington's functions (but rlg and rlg2, whose arcs are washington-rlg's presets'): a
    small size of 20-100 k arcs for a CPU-only run, then two or three of 1-25 M arcs. Named
    ``washington-<function>-<size>``, the size the parameters that matter (DIM1[xDIM2[xRANGE]]);
    RANGE is 10000 where it is a capacity range. Shapes follow what each function stresses:

    * mesh, square-mesh: long meshes (columns = 2 x rows, as washington-rlg-long) and square
      ones of degree 10, up to 25 M arcs;
    * matching: degree 5 to 8, unit capacities, up to 2.5 M vertices a side: the flow falls
      short of n by the right vertices no left one drew (about e^-d of them), and finding
      which left ones stay unmatched takes many relabels;
    * the lines: long lines (DIM1 = 10^3 to 3.5 10^5 rows of 8), degree 8, so that arcs span
      up to 64 vertices and 7's and 8's capacities fall off over 8 ranges;
    * dinic-bad: its path of n - 1 arcs makes Dinic run n - 2 phases: 2 10^4 to 10^6 vertices;
    * goldberg-bad: push-relabel's bad case, quadratic in n: n = 5000 to 10^5;
    * cheriyan: 2 m n below its sink arc's 10^7, so the gadgets' taps make the cut, and
      chains of c = 50 to 3000 vertices between taps for long distance labels.
    """
    shapes = {  # function: the parameters its preset names give, and its sizes
        "mesh": (("dim1", "dim2"), [(64, 128), (512, 1024), (1024, 2048), (2048, 4096)]),
        "matching": (("dim1", "dim2"), [(10000, 5), (250000, 5), (1000000, 8), (2500000, 8)]),
        "square-mesh": (("dim1", "dim2"), [(100, 10), (400, 10), (1000, 10), (1500, 10)]),
        "dinic-bad": (("dim1",), [(20000,), (200000,), (1000000,)]),
        "goldberg-bad": (("dim1",), [(5000,), (20000,), (100000,)]),
        "cheriyan": (("dim1", "dim2", "range"),
                     [(1000, 100, 50), (1000, 1000, 250), (2000, 2000, 1000), (2000, 2000, 3000)]),
    } | {line: (("dim1", "dim2", "range"), [(1000, 8, 8), (20000, 8, 8), (100000, 8, 8),
                                            (350000, 8, 8)])
         for line in ("basic-line", "exp-line", "dexp-line")}
    return [
        Preset(f"washington-{word}-{'x'.join(map(str, size))}", "washington",
               dict(function=washington.WORDS.index(word) + 1, dim2=0, range=10000)
               | dict(zip(names, size)))
        for word, (names, sizes) in shapes.items() for size in sizes
    ]


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


def held_size(chosen: Family, params: dict) -> tuple[int, int, int]:
    """The family's size for checked `params`: (n, m, approximate bytes of its text), after
    making sure the memory can hold the network while it is generated (MaxflowError with the
    figures where it cannot)."""
    n, m, approximate = chosen.size(**params)
    memory.require(chosen.bytes_per_arc * m, f"{chosen.name}: {n:,} vertices and {m:,} arcs")
    return n, m, approximate


def make(family_name: str, **params) -> Network:
    """Generate in memory, the capacities int32 where they fit (narrowed): ``make("genrmf",
    a=8, b=64, c1=1, c2=10000, seed=3)``. A network the memory cannot hold is refused before
    it is generated (MaxflowError, with the figures)."""
    chosen = family(family_name)
    complete = chosen.complete(params)
    chosen.check(**complete)
    held_size(chosen, complete)
    network = chosen.make(**complete)
    return replace(network, caps=narrowed(network.caps))


__all__ = [
    "BILLION",
    "FAMILIES",
    "PRESETS",
    "Family",
    "Flag",
    "Parameter",
    "Preset",
    "family",
    "held_size",
    "preset",
    "make",
]
