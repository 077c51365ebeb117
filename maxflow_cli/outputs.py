"""Output files: regular files replaced atomically, special files written into.

A regular file (or the regular file a symlink points to) is written to a temporary name
beside it, then renamed over it, keeping its mode: a failed or interrupted command never
leaves a half-written file under the name asked for. A device or a FIFO is opened and written
into, never replaced. The suffixes ``.gz``, ``.bz2`` and ``.xz`` compress.
"""

import bz2
import contextlib
import gzip
import io
import lzma
import os
import stat
import sys
import tempfile
from typing import BinaryIO, Iterable, Iterator

from maxflow_cli.errors import MaxflowError, ParameterError

_COMPRESSORS = {".gz": lambda raw: gzip.open(raw, "wb", compresslevel=6),
                ".bz2": lambda raw: bz2.open(raw, "wb"),
                ".xz": lambda raw: lzma.open(raw, "wb", preset=1)}
"""The compressors by suffix, at fast levels (gzip's own default 6, xz's preset 1): at gzip 9
and xz 6, compressing took most of a large output's time (the README gives the figures)."""

PIECE = 1 << 20
"""The most bytes handed to a compressor in one call: a call holds the interpreter, so a
signal (Ctrl-C) waits for it; pieces keep that wait short whatever size the writer writes."""


def _status(path: str) -> os.stat_result | None:
    """The status of what `path` names, symlinks followed; None if nothing is there yet."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise MaxflowError(f"{path}: cannot write: {error.strerror}") from None


def _is_stdout(path: str) -> bool:
    """Whether `path` is '-' or names the file this process's stdout already is
    (/dev/stdout, /proc/self/fd/1, or the file stdout is redirected to)."""
    if path == "-":
        return True
    status = _status(path)
    try:
        return status is not None and os.path.samestat(status, os.fstat(1))
    except OSError:
        return False


def check_writable(path: str, option: str = "the output") -> None:
    """Fail early, before any work, when `path` ('-' is stdout) cannot be written."""
    if path == "":
        raise ParameterError(f"{option}: the file name is empty")
    if _is_stdout(path):
        return
    status = _status(path)
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise MaxflowError(f"{path}: cannot write: it is a directory")
    if status is not None and not stat.S_ISREG(status.st_mode):
        if not os.access(path, os.W_OK):
            raise MaxflowError(f"{path}: cannot write: permission denied")
        return
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise MaxflowError(f"{path}: cannot write: no directory {directory}")
    if status is not None and not os.access(target, os.W_OK):
        raise MaxflowError(f"{path}: cannot write: permission denied")
    if not os.access(directory, os.W_OK):
        raise MaxflowError(f"{path}: cannot write: permission denied in {directory}")


def _identity(path: str):
    """What two paths must share to be one file: its device and inode if it exists, else the
    resolved name it will be created under; stdout is one file however it is named."""
    if _is_stdout(path):
        return "stdout"
    status = _status(path)
    if status is not None:
        return status.st_dev, status.st_ino
    return os.path.realpath(path)


def check_outputs(options: dict, inputs: Iterable[str] = ()) -> bool:
    """A command's output files (option name -> path or None), checked before any work: each
    writable, no two of them one file (stdout included, however it is named), none of them
    one of `inputs` (check_not_inputs). Returns True when one is stdout: the command's own
    report then goes to stderr."""
    given = {option: path for option, path in options.items() if path is not None}
    for option, path in given.items():
        check_writable(path, option)
    seen = {}
    for option, path in given.items():
        identity = _identity(path)
        if identity == "stdout" and identity in seen:
            raise ParameterError(f"only one of {', '.join(options)} can be '-' (stdout); "
                                 f"{seen[identity]} and {option} both write to stdout")
        if identity in seen:
            raise ParameterError(f"{seen[identity]} and {option} both write to one file "
                                 f"({path}); give each its own")
        seen[identity] = option
    check_not_inputs(inputs, given)
    return "stdout" in seen


def check_not_inputs(inputs: Iterable[str], outputs: dict[str, str | None]) -> None:
    """Refuse, before any work, an output (option -> path or None; '-' is stdout) that is a
    regular file among `inputs` (paths, '-' for stdin): one device and inode, however each is
    named (a symlink, a hard link, /dev/stdin)."""
    sources = {}
    for source in inputs:
        identity = _regular_file(source)
        if identity is not None:
            sources.setdefault(identity, source)
    for option, path in outputs.items():
        if path is None or path == "-":
            continue
        source = sources.get(_regular_file(path))
        if source is not None:
            what = "the input (stdin)" if source == "-" else f"the input file {source}"
            raise ParameterError(f"{option} {path} is {what}: writing it would destroy the input")


def _regular_file(path: str) -> tuple[int, int] | None:
    """The device and inode of the regular file `path` names ('-': the one stdin reads), None
    if it names nothing yet, or something writing cannot destroy (a device, a pipe)."""
    try:
        status = os.fstat(0) if path == "-" else _status(path)
    except (OSError, ValueError, MaxflowError):  # no stdin; a path that cannot be looked at
        return None
    return (status.st_dev, status.st_ino) if status and stat.S_ISREG(status.st_mode) else None


@contextlib.contextmanager
def atomic_output(path: str) -> Iterator[BinaryIO]:
    """Yield a binary stream for ``path`` ('-' is stdout): a regular file appears only on
    success, with the mode the file it replaces had; a device or FIFO is written into.

    Failures to create, write or rename the file become one-line MaxflowErrors."""
    check_writable(path)
    if _is_stdout(path):
        stream = sys.stdout.buffer
        with _compressed(stream, path) as writable:
            yield writable
        stream.flush()
        return
    status = _status(path)
    if status is not None and not stat.S_ISREG(status.st_mode):
        with _reporting_failures(path):
            with open(path, "wb") as raw, _compressed(raw, path) as writable:
                yield writable
        return
    target = os.path.realpath(path)
    mode = stat.S_IMODE(status.st_mode) if status is not None else 0o666 & ~_umask()
    with _reporting_failures(path):
        fd, temporary = tempfile.mkstemp(prefix=".maxflow-", suffix=".tmp",
                                         dir=os.path.dirname(target))
        try:
            with os.fdopen(fd, "wb") as raw, _compressed(raw, path) as writable:
                yield writable
            os.chmod(temporary, mode)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


@contextlib.contextmanager
def _compressed(raw: BinaryIO, path: str) -> Iterator[BinaryIO]:
    """`raw`, or a compressing stream over it when `path` ends in .gz, .bz2 or .xz."""
    opener = _COMPRESSORS.get(os.path.splitext(path)[1].lower())
    if opener is None:
        yield raw
    else:
        with opener(raw) as compressed, _Pieces(compressed) as pieces:
            yield pieces


class _Pieces(io.RawIOBase):
    """A writable stream that passes each write on to ``inner`` in pieces of PIECE bytes."""

    def __init__(self, inner: BinaryIO):
        super().__init__()
        self._inner = inner

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        for start in range(0, len(view), PIECE):
            self._inner.write(view[start:start + PIECE])
        return len(view)


@contextlib.contextmanager
def _reporting_failures(path: str) -> Iterator[None]:
    """Turn an OSError while writing `path` into one line naming it."""
    try:
        yield
    except OSError as error:
        raise MaxflowError(f"{path}: cannot write: {error.strerror}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
