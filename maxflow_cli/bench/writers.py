"""bench's output files, one table: each writer's option, its help, what it writes and whether
an interrupted run's finished part is written too. A new format is one Writer here (and its
function in results or report); `maxflow bench` builds its options from WRITERS."""

from dataclasses import dataclass
from typing import Callable

from maxflow_cli.bench import report, results
from maxflow_cli.bench.runner import BenchRun


@dataclass(frozen=True)
class Writer:
    name: str  # the option is --NAME
    metavar: str
    help: str
    write: Callable[[BenchRun, Callable[[], dict], str], None]  # (run, its document, path)
    partial: bool  # also written for the finished part of an interrupted run
    require: Callable[[str], None] = lambda path: None  # refuses before any work

    @property
    def option(self) -> str:
        return f"--{self.name}"


WRITERS = (
    Writer("json", "FILE", "Write every sample, the statistics and the machine.",
           lambda run, doc, path: results.write_json(doc(), path), partial=True),
    Writer("csv", "FILE", "Write one row per (instance, solver).",
           lambda run, doc, path: results.write_csv(doc(), path), partial=True),
    Writer("plot", "FILE.png", "Draw time against size per family (needs matplotlib: "
                               "pip install 'maxflow-dimacs[plot]').",
           lambda run, doc, path: report.plot(run, path), partial=False,
           require=report.require_plot),
)


def write_outputs(run: BenchRun, paths: dict[str, str | None], suite: str | None, env: dict,
                  partial: bool = False) -> list[str]:
    """Write the run where `paths` (writer name -> path or None) asks; for an interrupted run
    (`partial`) only the writers that keep a finished part. Returns the paths written."""
    document = None

    def doc() -> dict:
        nonlocal document
        document = document or results.document(run, suite, env)
        return document

    written = []
    for writer in WRITERS:
        path = paths.get(writer.name)
        if path is not None and (writer.partial or not partial):
            writer.write(run, doc, path)
            written.append(path)
    return written
