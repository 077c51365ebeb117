"""The seeds' published times, printed beside ours by ``maxflow bench --suite``.

Only Alvino 2015 prints its times as tables (tables 4.1–4.5: hipr and openmp-cuda, seconds,
mean of 3 runs on each of 5 instances; Intel Xeon E5-2670 with 8 vCPUs and an Nvidia GRID
K520 on Amazon EC2 g2.2xlarge). The rows below are those tables as printed, decimal commas
made points; each is keyed by our preset of the same size (vertex counts agree).

Where the text and a table disagree, the table is transcribed: §4.2 quotes speedups of 2,77
(Genrmf-long, 262144 vertices), 3,29 (Washington-RLG-long) and 2,60 (Washington-RLG-wide)
where tables 4.2, 4.4 and 4.5 print 2,71, 3,28 and 2,71; it names Genrmf-wide l = 48 and a
third Washington-RLG-long w = 512, l = 1024 where the vertex counts are those of 36 x 36 x 36
and 1024 x 1536.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class PublishedRow:
    """One row of a paper's table: times in seconds by solver name, and the speedup printed."""

    preset: str
    table: str
    vertices: int
    times: dict[str, float]
    speedup: float


def _alvino(table: str, preset: str, vertices: int, hipr: float, openmp_cuda: float,
            speedup: float) -> PublishedRow:
    return PublishedRow(preset, table, vertices, {"hipr": hipr, "openmp-cuda": openmp_cuda},
                        speedup)


ALVINO_2015 = (
    # Tabela 4.1: Acyclic-Dense
    _alvino("4.1", "acyclic-dense-2000", 2000, 0.25, 0.13, 1.92),
    _alvino("4.1", "acyclic-dense-4000", 4000, 0.78, 0.33, 2.36),
    _alvino("4.1", "acyclic-dense-6000", 6000, 3.21, 1.55, 2.07),
    # Tabela 4.2: Genrmf-long
    _alvino("4.2", "genrmf-long-24x192", 110592, 18.12, 5.89, 3.07),
    _alvino("4.2", "genrmf-long-28x224", 175616, 29.39, 11.07, 2.65),
    _alvino("4.2", "genrmf-long-32x256", 262144, 46.88, 17.26, 2.71),
    # Tabela 4.3: Genrmf-wide
    _alvino("4.3", "genrmf-wide-36", 46656, 0.48, 0.24, 1.95),
    _alvino("4.3", "genrmf-wide-64", 262144, 1.55, 0.63, 2.46),
    _alvino("4.3", "genrmf-wide-96", 884736, 8.53, 2.70, 3.15),
    _alvino("4.3", "genrmf-wide-128", 2097152, 31.16, 5.79, 5.38),
    # Tabela 4.4: Washington-RLG-long
    _alvino("4.4", "washington-rlg-long-512x1024", 524290, 1.11, 0.57, 1.92),
    _alvino("4.4", "washington-rlg-long-768x1280", 983042, 3.30, 1.20, 2.75),
    _alvino("4.4", "washington-rlg-long-1024x1536", 1572866, 6.35, 1.93, 3.28),
    # Tabela 4.5: Washington-RLG-wide
    _alvino("4.5", "washington-rlg-wide-512", 262146, 0.50, 0.28, 1.75),
    _alvino("4.5", "washington-rlg-wide-768", 589826, 1.42, 0.69, 2.05),
    _alvino("4.5", "washington-rlg-wide-1024", 1048578, 3.33, 1.22, 2.71),
)

HE_HONG_2010_NOTE = (
    "He & Hong 2010 (§VII) give their results as figures only (figures 2–7: cuda_mf, hybrid_mf "
    "and hi_pr, averages of 150 runs): there are no published numbers to print."
)
GUTIERREZ_2012_NOTE = (
    "Gutiérrez Mota 2012 gives its times as figures only (figures 5.1–5.9; table 3.2 lists the "
    "instances): there are no published numbers to print."
)
ALVINO_2015_NOTE = (
    "paper: Alvino 2015, tables 4.1–4.5 (mean of 3 runs on each of 5 instances; Xeon E5-2670, "
    "8 vCPUs, GRID K520)."
)
