"""Named sets of instances for ``maxflow bench --suite NAME``: ours and the seeds'.

- ``quick``: every family of the papers at three small sizes, two seeds each; the papers'
  shapes scaled down (Genrmf-long keeps b = 8a, Washington-RLG-long keeps L ≈ 1.5–2 W) so
  that hipr alone on a 2-core laptop CPU takes well under a minute at the default settings.
- ``gutierrez2012``: Gutiérrez Mota 2012, table 3.2 (five graphs per type and size, §3.2).
- ``hehong2010``: He & Hong 2010, §VII (the same sizes, 50 instances per type, 3 runs each),
  with their KERNEL_CYCLES for ``cuda`` and ``hybrid``: 32 on Acyclic-Dense, 4096 (our
  default) on Genrmf and Washington-RLG.
- ``alvino2015``: Alvino 2015, §4.2 (Genrmf-wide 36, 64, 96, 128; five instances per type,
  3 runs each), printed beside the published times of tables 4.1–4.5.
- ``shapes``: every shape we generate (the papers' five families, every scaling function of
  Anderson's washington, 2-D and 3-D vision grids, Cherkassky & Goldberg's AK), each at every
  preset size of 1 M to 26 M arcs (two to four sizes a shape; the bad cases and AK, whose
  work grows faster than their arcs, at their two largest), three seeds (AK draws no random
  numbers: one): where a solver's speed is measured. The bounds are a rule over the presets,
  not a list: a new preset in that range joins.
- ``shapes-small``: the same shapes at their presets of 10 k to 160 k arcs, for a CPU-only run.

Seeds are 1..k: the papers do not give theirs.
"""

from dataclasses import dataclass, replace

from maxflow_cli.bench import published
from maxflow_cli.bench.instances import Instance, preset_instances
from maxflow_cli.bench.published import PublishedRow
from maxflow_cli.generators import PRESETS


@dataclass(frozen=True)
class Suite:
    name: str
    title: str
    instances: tuple[Instance, ...]
    published: tuple[PublishedRow, ...] = ()
    published_note: str = ""

    @property
    def solver_params(self) -> dict[str, dict]:
        """Family -> the solver parameters its instances get (see Instance.solver_params)."""
        return {instance.family: instance.solver_params for instance in self.instances
                if instance.solver_params}


def _sized(sizes: str) -> tuple[str, ...]:
    """The presets of the papers' families at the given Preset.sizes: "quick" or "papers"
    (Gutiérrez Mota 2012 table 3.2; He & Hong 2010 §VII lists the same sizes)."""
    return tuple(name for name, preset in PRESETS.items() if preset.sizes == sizes)


_ALVINO_SIZES = tuple(row.preset for row in published.ALVINO_2015)


def _from_presets(names, seeds: int, solver_params: dict | None = None) -> tuple[Instance, ...]:
    """Seeds 1..seeds of each preset; ``solver_params`` maps a family to the solver parameters
    its instances get."""
    return tuple(replace(instance, solver_params=(solver_params or {}).get(instance.family, {}))
                 for name in names for instance in preset_instances(name, range(1, seeds + 1)))


HE_HONG_KERNEL_CYCLES = {"acyclic-dense": {solver: {"kernel_cycles": 32}
                                           for solver in ("cuda", "hybrid")}}
"""He & Hong 2010 §VII run their kernel 32 cycles per launch on Acyclic-Dense and 4096 on Genrmf
and Washington-RLG (our default)."""


SHAPES_ARCS = (1_000_000, 26_000_000)
"""The shapes suite's sizes: from where a GPU has enough work to fill it to what one run of
every solver and peer takes in minutes (washington-rlg-long-2048x4096: 25.2 M arcs)."""
SHAPES_SMALL_ARCS = (10_000, 160_000)
"""The small shapes: big enough for the solvers' work to dominate their start, small enough
for hipr on a 2-core CPU in well under a second each."""
SHAPE_SIZES = 2
"""Sizes a shape keeps at least: a bad case whose presets stay under the suite's arcs (its
work, not its arcs, is what grows: Goldberg's bad case at n = 10^5 has 0.4 M arcs) joins with
its largest ones."""


def _shape_presets(low: int, high: int) -> tuple[str, ...]:
    """Per shape (a preset's name less its size), every preset whose arcs are in [low, high];
    a shape with fewer than SHAPE_SIZES of them, its SHAPE_SIZES largest presets of 10 k to
    ``high`` arcs instead. In the presets' order."""
    shapes: dict[str, list[tuple[int, str]]] = {}
    for name, preset in PRESETS.items():
        arcs = preset.size()[1]
        if SHAPES_SMALL_ARCS[0] <= arcs <= high:
            shapes.setdefault(name.rsplit("-", 1)[0], []).append((arcs, name))
    kept = set()
    for sized in shapes.values():
        within = [name for arcs, name in sized if arcs >= low]
        kept.update(within if len(within) >= SHAPE_SIZES
                    else [name for _, name in sorted(sized)[-SHAPE_SIZES:]])
    return tuple(name for name in PRESETS if name in kept)


SUITES: dict[str, Suite] = {
    suite.name: suite
    for suite in (
        Suite("quick", "every family at three small sizes, 2 seeds (the default)",
              _from_presets(_sized("quick"), 2)),
        Suite("gutierrez2012", "Gutiérrez Mota 2012, table 3.2: 15 sizes, 5 seeds",
              _from_presets(_sized("papers"), 5), published_note=published.GUTIERREZ_2012_NOTE),
        Suite("hehong2010",
              "He & Hong 2010, §VII: 15 sizes, 50 seeds; cuda, hybrid: 32 kernel cycles on "
              "acyclic-dense",
              _from_presets(_sized("papers"), 50, HE_HONG_KERNEL_CYCLES),
              published_note=published.HE_HONG_2010_NOTE),
        Suite("alvino2015", "Alvino 2015, §4.2 and tables 4.1–4.5: 16 sizes, 5 seeds",
              _from_presets(_ALVINO_SIZES, 5), published.ALVINO_2015, published.ALVINO_2015_NOTE),
        Suite("shapes", "every shape (five families, washington's functions, vision grids, "
              "AK) at 1-26 M arcs, 3 seeds", _from_presets(_shape_presets(*SHAPES_ARCS), 3)),
        Suite("shapes-small", "every shape at 10-160 k arcs, 3 seeds, for a CPU",
              _from_presets(_shape_presets(*SHAPES_SMALL_ARCS), 3)),
    )
}
