"""The `maxflow` command group: the one place where errors become messages and exit codes."""

import contextlib
import errno
import importlib
import os
import signal
import sys

import click
from rich.console import Console

from maxflow_cli import __version__
from maxflow_cli.errors import ERROR_PREFIX, Interrupted, MaxflowError

BROKEN_PIPE_EXIT = 128 + signal.SIGPIPE
"""What a shell reports for a process that SIGPIPE ended, as for `seq 1e9 | head -1`."""


class MaxflowGroup(click.Group):
    """A click group that turns the project's errors into one line on stderr, never a traceback,
    and imports a command's module only when that command runs (or help lists them all):
    `maxflow gen` need not load the solvers and the benchmark."""

    COMMANDS = {"solve": "maxflow_cli.commands.solve", "gen": "maxflow_cli.commands.gen",
                "bench": "maxflow_cli.commands.bench", "paths": "maxflow_cli.commands.paths"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.COMMANDS:
            return None
        return getattr(importlib.import_module(self.COMMANDS[name]), name)

    def invoke(self, ctx: click.Context):
        _prepare_stdout()
        try:
            try:
                result = super().invoke(ctx)
                sys.stdout.flush()  # a failing stdout is reported here, not at exit
                return result
            finally:
                _ignore_late_signals()
        except MaxflowError as error:
            _fail(str(error), error.exit_code)
        except MemoryError:
            _fail("out of memory: the instance is too large for this machine", 2)
        except KeyboardInterrupt as error:
            signum = error.signum if isinstance(error, Interrupted) else signal.SIGINT
            _fail("interrupted" if signum == signal.SIGINT else "terminated", 128 + signum)
        except OSError as error:
            # Every file the commands name turns its own failures into a MaxflowError, so what
            # arrives here is a failing stdout: a closed pipe (quiet, as `| head` expects) or
            # a full or broken disk. (A failed write may drop what it held, so that stdout
            # then flushes: whether it still fails cannot tell.)
            _silence_stdout()
            if error.errno == errno.EPIPE:
                sys.exit(BROKEN_PIPE_EXIT)
            _fail("cannot write to stdout: " + (error.strerror or str(error)), 1)


def _fail(message: str, exit_code: int) -> None:
    click.echo(f"{ERROR_PREFIX}{message}", err=True)
    sys.exit(exit_code)


def _silence_stdout() -> None:
    """If stdout still fails to take what it holds, point its descriptor at /dev/null, so that
    Python's flush at exit does not fail a second time, with a traceback."""
    try:
        sys.stdout.flush()
        return
    except OSError:
        pass
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _prepare_stdout() -> None:
    """Before any command builds a console: a COLUMNS that is no positive width counts as unset
    (rich takes COLUMNS=0 for a width of 0 and prints nothing), and a closed pipe under a rich
    console reaches invoke() as the BrokenPipeError it is (rich's own handler exits 1)."""
    columns = os.environ.get("COLUMNS")
    if columns is not None and not (columns.isdigit() and int(columns) > 0):
        del os.environ["COLUMNS"]
    Console.on_broken_pipe = _reraise_broken_pipe


def _reraise_broken_pipe(console: Console) -> None:
    """Console.on_broken_pipe, called in rich's `except BrokenPipeError:`: raise it again."""
    raise  # the BrokenPipeError being handled


COMPILED_CALLBACKS = ("numba.core.serialize", "llvmlite.")
"""Modules of Python functions that compiled code calls back: Numba's wrapper while it boxes a
result (``_numba_unpickle``), LLVM through ctypes while Numba compiles. An exception raised in
them is lost there: it comes out as "SystemError: CPUDispatcher(...) returned a result with an
exception set", or is printed and dropped by ctypes."""


def _in_compiled_callback(frame) -> bool:
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith(COMPILED_CALLBACKS):
            return True
        frame = frame.f_back
    return False


def _on_signal(signum: int, frame) -> None:
    """Raise Interrupted where Python code runs; inside a compiled function's call-back, at the
    next function call or return outside it instead (a profile hook), a few bytecodes later."""
    if not _in_compiled_callback(frame):
        raise Interrupted(signum)
    profiler = sys.getprofile()

    def deliver(frame, event, arg):
        if not _in_compiled_callback(frame):
            sys.setprofile(profiler)
            raise Interrupted(signum)

    sys.setprofile(deliver)


SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _ignore_late_signals() -> None:
    """Once the command has finished, ignore the signals that run() set to interrupt it:
    there is nothing left to stop, and Python's exit must not be cut short."""
    for signum in SIGNALS:
        if signal.getsignal(signum) is _on_signal:
            signal.signal(signum, signal.SIG_IGN)


@click.group(cls=MaxflowGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="maxflow")
def main() -> None:
    """Solve, generate and benchmark maximum-flow problems (DIMACS `max` format)."""


def run() -> None:
    """The `maxflow` program: main(), with SIGINT and SIGTERM raising Interrupted (see
    _on_signal), so that either ends the command in one line, its temporary files removed. A
    signal the parent process ignores (a background job's SIGINT) stays ignored."""
    for signum in SIGNALS:
        if signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, _on_signal)
    try:
        main()
    except SystemExit as exit:
        if exit.code in {128 + signum for signum in SIGNALS}:
            # An interrupt can cut short the construction of objects (llvmlite's, during a
            # compile) whose finalizers then fail at exit: not worth a second message.
            sys.unraisablehook = lambda unraisable: None
        raise
