"""Benchmark results as one versioned JSON document (as pyperf's), a flat CSV, and comparisons.

The document (``SCHEMA`` 1) holds ``schema``, ``created``, ``settings``, ``environment``
(CPU, GPUs, versions, git commit), ``compile`` (seconds per solver, kept out of the times),
``instances`` (size, read/build seconds, certificate) and ``results``: one entry per
(instance, solver configuration) with its ``kind`` (solver or external), ``device``, the
``params`` it ran with, every measured time in ``samples`` (``timed``: its stage 1, or the
wall time of an external program that prints none; ``cpu`` with ``settings.cpu_time``, user
CPU seconds; ``wall_samples`` besides) and their
``median``, ``mad`` (unscaled), ``min``, ``max``, ``unstable``, ``speedup`` over the
baseline, ``relative`` (its median over the fastest median on the instance, 1.0 for the
fastest) and ``fastest``, ``flow_value``, ``failure``, and its peak memory in bytes,
``peak_host_bytes`` and ``peak_gpu_bytes`` (null where not measured or no GPU ran;
``settings.memory`` says what they include); ``settings.configurations`` says what each label
is. Statistics of a failed cell are null. ``complete`` is false when the run was interrupted:
it holds the instances benched before (the CSV repeats it on every row). ``maxflow bench
compare`` reads two documents.
"""

import csv
import io
import json
import math
import os
import platform
import stat
import subprocess
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import maxflow_cli
from maxflow_cli.bench import schema
from maxflow_cli.bench.runner import BenchRun
from maxflow_cli.bench.stats import (
    ALPHA,
    NOISE_RULE,
    UNSTABLE_RULE,
    can_reach,
    mann_whitney,
    significance_rule,
    within_noise,
)
from maxflow_cli.errors import InputError
from maxflow_cli.outputs import atomic_output

SCHEMA = 1
CSV_COLUMNS = ("instance", "family", "group", "solver", "kind", "device", "params", "vertices",
               "arcs", "runs", "warmup", "timed", "median", "mad", "min", "max", "unstable",
               "speedup", "relative", "fastest", "flow_value", "failure", "peak_host_bytes",
               "peak_gpu_bytes", "complete", "samples")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as stream:
            for line in stream:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _gpus() -> list[dict]:
    """Name, driver and clocks (MHz) of each NVIDIA GPU, from nvidia-smi; [] without one."""
    fields = ("name", "driver_version", "clocks.sm", "clocks.mem", "clocks.max.sm", "memory.total")
    try:
        output = subprocess.run(
            ["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    keys = ("name", "driver", "sm_clock_mhz", "memory_clock_mhz", "max_sm_clock_mhz", "memory_mib")
    return [dict(zip(keys, (value.strip() for value in line.split(","))))
            for line in output.splitlines() if line]


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _git() -> dict:
    """The commit of the checkout this package runs from, and whether it has changes; {} when
    it is not run from a checkout (an installed wheel)."""
    root = Path(maxflow_cli.__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return {}
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                                text=True,
                                timeout=20, check=True).stdout.strip()
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                 "--untracked-files=no"],
                                capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"commit": commit, "dirty": bool(status.strip())}


def environment() -> dict:
    """The machine and the software the numbers come from."""
    return {
        "cpu": {"model": _cpu_model(), "cores": os.cpu_count()},
        "gpus": _gpus(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "numba": _version("numba"),
        "pycuda": _version("pycuda"),
        "maxflow": maxflow_cli.__version__,
        "git": _git(),
    }


def _finite(value: float) -> float | None:
    """JSON has no NaN: a speedup over a median of 0 s (below the clock's resolution), or the
    statistics of a failed cell, are null."""
    return None if math.isnan(value) else value


def document(run: BenchRun, suite: str | None, env: dict) -> dict:
    """The JSON document of a run (see the module docstring)."""
    records = {record.instance.name: record for record in run.instances}
    speedups, relative = run.speedups(), run.relative()
    results = []
    for cell in run.cells:
        record, stats = records[cell.instance], cell.stats
        results.append({
            "instance": cell.instance, "family": record.instance.family,
            "group": record.instance.group,
            "solver": cell.solver, "kind": cell.kind, "device": cell.device, "params": cell.params,
            "vertices": record.n, "arcs": record.m, "runs": stats.runs, "warmup": cell.warmup,
            "timed": cell.timed,
            "samples": cell.samples, "wall_samples": cell.wall, "median": _finite(stats.median),
            "mad": _finite(stats.mad), "min": _finite(stats.minimum), "max": _finite(stats.maximum),
            "unstable": stats.unstable, "speedup": _finite(speedups[cell.instance, cell.solver]),
            "relative": _finite(relative[cell.instance, cell.solver]),
            "fastest": relative[cell.instance, cell.solver] == 1.0,
            "flow_value": cell.flow_value, "mismatch": cell.mismatch, "failure": cell.failure,
            "peak_host_bytes": cell.peak_host_bytes, "peak_gpu_bytes": cell.peak_gpu_bytes,
            "phases": cell.phases, "counters": cell.counters, "trace": cell.trace,
            "winners": cell.winners,
        })
    return {
        "schema": SCHEMA,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "settings": asdict(run.settings) | {
            "suite": suite, "solvers": run.solvers, "configurations": run.configurations,
            "baseline": run.baseline,
            "measured": ("user CPU seconds of the solve call (external programs: their own "
                         "stage 1, else their user CPU time; see 'timed')"
                         if run.settings.cpu_time else
                         "stage1 seconds (external programs: their own stage 1, else wall; "
                         "see 'timed')"),
            "mad": "unscaled", "unstable_rule": UNSTABLE_RULE, "memory": run.memory},
        "environment": env,
        "compile": run.compile,
        "instances": [{
            "instance": record.instance.name, "family": record.instance.family,
            "group": record.instance.group,
            "vertices": record.n, "arcs": record.m, "read": record.read, "build": record.build,
            "warnings": record.warnings,
            "check": {"ok": not record.check_problems, "problems": record.check_problems,
                      "cut_capacity": record.cut_capacity, "seconds": record.check_seconds},
        } for record in run.instances],
        "results": results,
        "problems": run.problems,
        "complete": run.complete,
    }


def write_json(doc: dict, path: str) -> None:
    with atomic_output(path) as stream:
        stream.write((json.dumps(doc, indent=1) + "\n").encode())


def write_csv(doc: dict, path: str) -> None:
    """One row per (instance, solver configuration); ``samples`` space-separated, ``params``
    as KEY=VALUE separated by spaces."""
    text = io.StringIO()
    writer = csv.DictWriter(text, CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for entry in doc["results"]:
        writer.writerow(entry | {"samples": " ".join(map(repr, entry["samples"])),
                                 "complete": doc["complete"],
                                 "params": " ".join(f"{key}={value}"
                                                    for key, value in entry["params"].items())})
    with atomic_output(path) as stream:
        stream.write(text.getvalue().encode())


MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
"""The largest document ``load`` reads: a run's JSON holds some 100 bytes per sample, so this
is millions of samples, far past any real run, while a mistaken path (a disk image, a log)
cannot exhaust memory."""


def _read_bytes(path: str) -> bytes:
    """The bytes of a regular file of at most MAX_DOCUMENT_BYTES; a device, a FIFO or a
    larger file is refused (/dev/zero would never end)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO without a writer: no wait
    except OSError as error:
        raise InputError(path, None, f"cannot read: {error.strerror}") from None
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(path, None, "not a regular file; give a 'maxflow bench --json' file")
        try:
            data = stream.read(MAX_DOCUMENT_BYTES + 1)
        except OSError as error:
            raise InputError(path, None, f"cannot read: {error.strerror}") from None
    if len(data) > MAX_DOCUMENT_BYTES:
        raise InputError(path, None, f"larger than {MAX_DOCUMENT_BYTES:,} bytes: not a "
                                     "'maxflow bench --json' document")
    return data


def load(path: str) -> dict:
    """A document written by ``--json``; refuses other files, other schema versions and
    documents whose fields compare reads have the wrong types (one line: the first problem)."""
    try:
        doc = json.loads(_read_bytes(path))
    except ValueError as error:
        raise InputError(path, None, f"not JSON: {error}") from None
    except RecursionError:
        raise InputError(path, None, "not a 'maxflow bench --json' document: "
                                     "nested too deeply") from None
    if not isinstance(doc, dict) or "results" not in doc or "schema" not in doc:
        raise InputError(path, None, "not a 'maxflow bench --json' document")
    if doc["schema"] != SCHEMA:
        raise InputError(path, None,
                         f"schema version {doc['schema']}; this maxflow reads version {SCHEMA}")
    missing = _missing_keys(doc)
    if missing:
        raise InputError(path, None, f"not a complete 'maxflow bench --json' document: {missing}")
    problems = [*schema.environment_problems(doc["environment"]),
                *schema.results_problems(doc["results"])]
    if problems:
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        raise InputError(path, None, problems[0] + more)
    return doc


REQUIRED_ENTRY_KEYS = ("instance", "family", "solver", "median", "mad")  # what compare reads
# what describe_environment reads
REQUIRED_ENVIRONMENT_KEYS = ("cpu", "gpus", "maxflow", "python", "numba", "git")


def _missing_keys(doc: dict) -> str | None:
    """What `bench compare` needs and `doc` lacks, in words; None when nothing is missing."""
    env = doc.get("environment")
    if not isinstance(env, dict):
        return "no 'environment'"
    absent = [key for key in REQUIRED_ENVIRONMENT_KEYS if key not in env]
    if absent:
        return f"'environment' lacks {', '.join(map(repr, absent))}"
    if not isinstance(doc["results"], list):
        return "'results' is not a list"
    for number, entry in enumerate(doc["results"], 1):
        if not isinstance(entry, dict):
            return f"result {number}: expected an object, not {type(entry).__name__}"
        absent = [key for key in REQUIRED_ENTRY_KEYS if key not in entry]
        if absent:
            return f"result {number} lacks {', '.join(map(repr, absent))}"
    return None


@dataclass(frozen=True)
class Change:
    """One cell in both documents: new median / old median, whether that is noise by the MAD
    rule, the Mann–Whitney U (of the new samples) and two-sided p of the two runs' samples,
    and whether the change is significant: beyond noise and p < alpha, or beyond noise alone
    where the samples are too few for any p to fall below alpha (``--repeat 3``)."""

    instance: str
    family: str
    solver: str
    old: float
    new: float
    ratio: float
    noise: bool
    u: float = math.nan
    p: float = math.nan
    significant: bool = False


def _change(key: tuple[str, str], before: dict, after: dict, alpha: float) -> Change:
    """The Change of one cell (an entry of each document)."""
    noise = within_noise(before["median"], before["mad"], after["median"], after["mad"])
    new, old = after.get("samples") or [], before.get("samples") or []
    test = mann_whitney(new, old)
    decisive = test.p < alpha or not can_reach(len(new), len(old), alpha)
    return Change(key[0], after["family"], key[1], before["median"], after["median"],
                  after["median"] / before["median"],  # load: medians are > 0
                  noise, test.u, test.p, not noise and decisive)


def compare(old: dict, new: dict, alpha: float = ALPHA
            ) -> tuple[list[Change], list[str], list[str]]:
    """Changes of the cells both documents hold; the (instance, solver) cells only in old, only
    in new. Failed cells (no median) count as absent."""
    def cells(doc):
        return {(entry["instance"], entry["solver"]): entry for entry in doc["results"]
                if entry["median"] is not None}

    before, after = cells(old), cells(new)
    changes = [_change(key, before[key], entry, alpha) for key, entry in after.items()
               if key in before]
    return (changes,
            [f"{instance} ({solver})" for instance, solver in sorted(before.keys() - after.keys())],
            [f"{instance} ({solver})" for instance, solver in sorted(after.keys() - before.keys())])


def comparison_document(old: str, new: str, changes: list[Change], only_old: list[str],
                        only_new: list[str], alpha: float) -> dict:
    """What ``bench compare --json`` writes: the files, the rules and every change."""
    return {"old": old, "new": new, "alpha": alpha, "noise_rule": NOISE_RULE,
            "significance_rule": significance_rule(alpha),
            "changes": [{key: _finite(value) if isinstance(value, float) else value
                         for key, value in asdict(change).items()} for change in changes],
            "only_old": only_old, "only_new": only_new}
