"""Output files written atomically: to a temporary name beside the target, then renamed.

A failed or interrupted command never leaves a half-written file under the name asked for.
The suffixes ``.gz``, ``.bz2`` and ``.xz`` compress.
"""

import bz2
import contextlib
import gzip
import lzma
import os
import sys
import tempfile
from typing import BinaryIO, Iterator

from maxflow_cli.errors import MaxflowError, ParameterError

_COMPRESSORS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def check_writable(path: str) -> None:
    """Fail early, before any work, when `path` ('-' is stdout) cannot be written."""
    if path == "-":
        return
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise MaxflowError(f"{path}: cannot write: it is a directory")
    if not os.path.isdir(directory):
        raise MaxflowError(f"{path}: cannot write: no directory {directory}")
    if not os.access(directory, os.W_OK):
        raise MaxflowError(f"{path}: cannot write: permission denied in {directory}")


def check_outputs(options: dict) -> bool:
    """A command's output files (option name -> path or None), checked before any work: each
    writable, and at most one of them '-', since stdout can carry one output only. Returns
    True when one is '-': the command's own report then goes to stderr."""
    given = {option: path for option, path in options.items() if path}
    to_stdout = [option for option, path in given.items() if path == "-"]
    if len(to_stdout) > 1:
        raise ParameterError(f"only one of {', '.join(options)} can be '-' (stdout); "
                             f"{' and '.join(to_stdout)} both are")
    for path in given.values():
        check_writable(path)
    return bool(to_stdout)


@contextlib.contextmanager
def atomic_output(path: str) -> Iterator[BinaryIO]:
    """Yield a binary stream for ``path`` ('-' is stdout); the file appears only on success.

    Failures to create, write or rename the file become one-line MaxflowErrors."""
    if path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    check_writable(path)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temporary = tempfile.mkstemp(prefix=".maxflow-", suffix=".tmp", dir=directory)
    except OSError as error:
        raise MaxflowError(f"{path}: cannot write: {error.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as raw:
            opener = _COMPRESSORS.get(os.path.splitext(path)[1].lower())
            if opener is None:
                yield raw
            else:
                with opener(raw, "wb") as compressed:
                    yield compressed
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise MaxflowError(f"{path}: cannot write: {error.strerror}") from None
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
