"""External solvers in ``maxflow bench``: any program that reads a DIMACS max instance, on its
standard input or from a file it is given.

``--external NAME=COMMAND`` runs COMMAND (split as a shell splits words, run without a shell)
once per run with the instance on its standard input, as one runs Goldberg's hi_pr. A program
that reads a path instead names it ``{file}`` in COMMAND, as a word or within one
(``solver --input={file}``): every ``{file}`` becomes the path of the instance as a plain DIMACS
file, and the program's standard input is then /dev/null. ``{file}`` is the only placeholder:
any other ``{NAME}`` is refused when the option is read (other braces are left as they are).

Its flow value is the last ``c flow: VALUE`` or ``s VALUE`` line it prints (hi_pr prints
``c flow:  1234.0``; the DIMACS solution format ``s 1234``), or the last match of a pattern
given with ``--external-pattern NAME=REGEX`` (its first group, or the whole match). Its time
is taken three ways: the wall time of the whole process (reading the input included), its user
CPU time (``ru_utime`` from ``os.wait4``, the processes it waited for included; what
``--cpu-time`` shows where there is no cut time) and, when it prints a ``c cut tm: SECONDS``
line as hi_pr does, its own stage-1 time, which the tables then show (hi_pr measures CPU time
in 10 ms ticks). Other ``c NAME: INTEGER`` lines (hi_pr's ``pushes``, ``relabels``,
``updates``, ``gaps`` with -DPRINT_STAT) are kept as counters.
Its peak memory is the ``ru_maxrss`` that ``os.wait4`` returns when it ends: the peak resident
set of the program (of the largest of its processes, where it runs others and waits for them),
at least that of the small guardian that starts it (processes.GUARDIAN: about 9 MB). It runs
in a process group of its own that a signal to us, or our end, ends at once.

A program that cannot start, exits with an error, crashes, runs past ``--external-timeout``
or prints no flow value fails its run with RunFailed, which the runner turns into one
problem row.
"""

import math
import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass, field, replace

from maxflow_cli.dimacs import bbk
from maxflow_cli.dimacs.reader import is_compressed, text_chunks
from maxflow_cli.dimacs.writer import write_network
from maxflow_cli.errors import ParameterError
from maxflow_cli.keyvalue import assignment
from maxflow_cli.memory import maxrss_bytes
from maxflow_cli.network import Network
from maxflow_cli.processes import ProcessGroup

DEFAULT_TIMEOUT = 300.0
FLOW_LINE = re.compile(r"^(?:c flow:|s)\s+(\S+)\s*$", re.MULTILINE)
CUT_TIME_LINE = re.compile(r"^c cut tm:\s*(\S+)\s*$", re.MULTILINE)
COUNTER_LINE = re.compile(r"^c ([a-z][a-z .]*?):\s*(\d+)\s*$", re.MULTILINE)
NAME = re.compile(r"[A-Za-z0-9_.+-]+")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
FILE = "{file}"
"""In COMMAND, the path of the instance's plain DIMACS file."""
INSTANCE_CACHE = "MAXFLOW_INSTANCE_CACHE"
"""Set for every external run to a folder of the instance's own, empty at its first run and
removed with its files (InstanceFiles.cache): where a program that converts the instance
into a format of its own (the peers' adapters, scripts/peers/peerlib.py) may keep the
conversion for the instance's next runs."""
QUOTED = 200
"""How many characters of a program's output a problem quotes."""


class RunFailed(Exception):
    """One run of an external program gave no usable answer; the message says why."""


@dataclass(frozen=True)
class ExternalRun:
    """What one run of an external program gave: the fields of a SolveResult the runner reads."""

    flow_value: int
    # "wall", "cpu" (its user CPU time) and "stage1" when the program prints its cut time
    times: dict[str, float]
    counters: dict[str, int] = field(default_factory=dict)
    peak_host_bytes: int | None = None  # the program's ru_maxrss, from os.wait4


def _pairs(texts, option: str) -> dict[str, str]:
    """``NAME=TEXT`` items (keyvalue's grammar, one item an option) as a dict; refuses a NAME
    of other characters than letters, digits and '_.+-'."""
    table = {}
    for item in texts:
        name, text = assignment(item, option, table, "NAME")
        if not NAME.fullmatch(name):
            raise ParameterError(f"{option} {item!r}: a NAME is made of letters, digits and "
                                 "'_.+-'")
        table[name] = text
    return table


@dataclass(frozen=True)
class External:
    """An external program as benchmarked under ``label``; ``argv`` is ``command`` split once,
    when the option is parsed, not in every timed run."""

    label: str
    command: str
    argv: tuple[str, ...]
    pattern: re.Pattern | None = None
    timeout: float = DEFAULT_TIMEOUT
    kind = "external"
    in_process = False
    device = None

    def bound(self, instance) -> "External":
        """The same program on every instance (suites set parameters of our solvers only)."""
        return self

    def describe(self) -> dict:
        return {"kind": self.kind, "command": self.command,
                "input": "file" if self.reads_file else "stdin",
                "pattern": self.pattern.pattern if self.pattern else None, "timeout": self.timeout}

    def close(self) -> None:
        """Nothing to end: each run's process ends with the run."""

    @property
    def params(self) -> dict:
        return {}

    @property
    def program(self) -> str | None:
        """The file COMMAND runs (its first word, found as the launcher finds it)."""
        return shutil.which(self.argv[0])

    @property
    def reads_file(self) -> bool:
        """Whether COMMAND names the instance's file ({file}) instead of reading stdin."""
        return any(FILE in word for word in self.argv)

    def arguments(self, path: str) -> list[str]:
        """The command's words, every {file} replaced by ``path``."""
        return [word.replace(FILE, path) for word in self.argv]

    def run(self, graph, files: "InstanceFiles", certify: bool = False) -> ExternalRun:
        """One run on the instance's DIMACS file (on stdin, or as {file}), in a process group
        that ends with us (processes.ProcessGroup, which measures it); RunFailed when it gives
        no flow value. Its output goes to temporary files, so that nothing it prints can fill
        a pipe while we wait for it."""
        path = files.path()
        with open(os.devnull if self.reads_file else path, "rb") as stdin, \
                tempfile.TemporaryFile() as output, tempfile.TemporaryFile() as errors, \
                tempfile.TemporaryFile() as report:
            try:
                with ProcessGroup(self.arguments(path), report=report, stdin=stdin,
                                  stdout=output, stderr=errors,
                                  env=os.environ | {INSTANCE_CACHE: files.cache()}) as group:
                    if not group.wait(self.timeout):
                        raise RunFailed(f"ran past --external-timeout {self.timeout:g} s "
                                        "and was killed")
            except OSError as error:
                raise RunFailed(f"cannot start {sys.executable}: {error.strerror}") from None
            status, wall, maxrss, user = self._launched(_text(report), group.returncode)
            printed, complaints = _text(output), _text(errors)
        result = self._read(printed, complaints, status, wall)
        return replace(result, times=result.times | {"cpu": user},
                       peak_host_bytes=maxrss_bytes(maxrss))

    def _launched(self, report: str, status: int) -> tuple[int, float, int, float]:
        """The program's exit status, wall seconds, ru_maxrss and user CPU seconds, as the
        guardian reports them."""
        words = report.split(maxsplit=1)
        if words and words[0] == "error":
            raise RunFailed(f"cannot start {self.command!r}: {words[1]}")
        try:
            code, wall, maxrss, user = report.split()
            return int(code), float(wall), int(maxrss), float(user)
        except ValueError:
            raise RunFailed(f"its launcher ended with status {status} and no report") from None

    def _read(self, output: str, errors: str, status: int, wall: float) -> ExternalRun:
        """The flow value, times and counters in the program's output, or RunFailed."""
        if status < 0:
            raise RunFailed(f"crashed ({signal.Signals(-status).name}){_quote(errors or output)}")
        if status > 0:
            raise RunFailed(f"exited with status {status}{_quote(errors or output)}")
        matches = list((self.pattern or FLOW_LINE).finditer(output))
        if not matches:
            expected = (f"nothing matches the pattern {self.pattern.pattern}" if self.pattern
                        else "no 'c flow:' or 's' line")
            raise RunFailed(f"printed no flow value ({expected}){_quote(output or errors)}")
        last = matches[-1]
        flow_text = last.group(1) if last.re.groups else last.group(0)
        if not re.fullmatch(r"\s*-?\d+(\.0*)?\s*", flow_text):
            raise RunFailed(f"printed a flow value that is not an integer: {flow_text.strip()!r}")
        cut = CUT_TIME_LINE.findall(output)
        times = {"wall": _seconds(wall, "its launcher reported a wall time"),
                 **({"stage1": _seconds(cut[-1], "printed a cut time")} if cut else {})}
        counters = {name.strip().replace(" ", "_"): int(value)
                    for name, value in COUNTER_LINE.findall(output)
                    if name not in ("nodes", "arcs")}
        return ExternalRun(int(flow_text.split(".")[0]), times, counters)


def _seconds(text: str | float, what: str) -> float:
    """``text`` (or a number) as seconds: a finite number >= 0, else RunFailed (NaN is no JSON
    and no time)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise RunFailed(f"{what} that is not a finite number >= 0: {text!r}")
    return seconds


def _text(stream) -> str:
    """What a program wrote to the temporary file ``stream``."""
    stream.seek(0)
    return stream.read().decode(errors="replace")


def _quote(text: str) -> str:
    """': <the last line of text>', shortened; '' for no text."""
    lines = text.strip().splitlines()
    if not lines:
        return ""
    last = lines[-1].strip()
    return f": {last[:QUOTED] + '...' if len(last) > QUOTED else last}"


def parse_externals(commands, patterns, timeout: float, taken) -> list[External]:
    """The ``--external`` programs, each checked now: a NAME not already a solver's (``taken``),
    a command whose program exists, a pattern that compiles for one of them."""
    programs = _pairs(commands, "--external")
    regexes = _pairs(patterns, "--external-pattern")
    externals = []
    for name, command in programs.items():
        if name in taken:
            raise ParameterError(f"--external {name}=...: '{name}' is already a solver's name; "
                                 "choose another")
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise ParameterError(f"--external {name}={command}: {error}") from None
        unknown = [match.group(0) for word in argv for match in PLACEHOLDER.finditer(word)
                   if match.group(0) != FILE]
        if unknown:
            raise ParameterError(f"--external {name}={command}: unknown placeholder "
                                 f"{unknown[0]}; the only one is {FILE}, the instance's path")
        if not argv or shutil.which(argv[0]) is None:
            raise ParameterError(f"--external {name}={command}: no program "
                                 f"{argv[0] if argv else ''!r} (not an executable file, "
                                 f"nor on PATH)")
        pattern = None
        if name in regexes:
            try:
                pattern = re.compile(regexes[name], re.MULTILINE)
            except re.error as error:
                raise ParameterError(f"--external-pattern {name}=...: not a regular expression: "
                                     f"{error}") from None
        externals.append(External(name, command, tuple(argv), pattern, timeout))
    unknown = sorted(set(regexes) - set(programs))
    if unknown:
        raise ParameterError(f"--external-pattern {unknown[0]}=...: "
                             f"no --external {unknown[0]}=COMMAND")
    return externals


def _is_binary_bk(path: str) -> bool:
    """Whether the file is a binary BK graph (by its magic, after any decompression)."""
    chunks = text_chunks(path)
    try:
        return bbk.claims(next(chunks, b"")[:3], path)
    finally:
        chunks.close()


class InstanceFiles:
    """An instance as files, each made when first asked for and removed by ``close``: a plain
    DIMACS file for external programs (the instance's own file when it is plain DIMACS text,
    else a temporary file: a generated instance or a binary BK file, written once from the
    network; a compressed DIMACS file, decompressed once), the network's arrays for the
    cells that run in a child process (isolated module), and a folder where external
    programs keep their conversions of it (INSTANCE_CACHE)."""

    def __init__(self, path: str | None, network: Network):
        self._source, self._network = path, network
        self._path: str | None = None
        self._arrays: str | None = None
        self._folder: tempfile.TemporaryDirectory | None = None

    def path(self) -> str:
        if self._path is None:
            text = self._source and not _is_binary_bk(self._source)
            if text and not is_compressed(self._source):
                self._path = self._source  # plain text: read as it is
            else:
                self._path = os.path.join(self._temporary(), "instance.max")
                with open(self._path, "wb") as stream:
                    if text:
                        stream.writelines(text_chunks(self._source))
                    else:
                        write_network(stream, self._network)
        return self._path

    def arrays(self) -> str:
        """The folder of the network's arrays (Network.save)."""
        if self._arrays is None:
            self._arrays = os.path.join(self._temporary(), "arrays")
            os.mkdir(self._arrays)
            self._network.save(self._arrays)
        return self._arrays

    def cache(self) -> str:
        """The instance's folder for the external programs' conversions (INSTANCE_CACHE)."""
        folder = os.path.join(self._temporary(), "cache")
        os.makedirs(folder, exist_ok=True)
        return folder

    def _temporary(self) -> str:
        if self._folder is None:
            self._folder = tempfile.TemporaryDirectory(prefix="maxflow-bench-")
        return self._folder.name

    def close(self) -> None:
        if self._folder is not None:
            self._folder.cleanup()
