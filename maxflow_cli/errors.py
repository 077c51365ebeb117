"""The project's error types. The CLI turns each into one line and an exit code (cli.py)."""

ERROR_PREFIX = "maxflow: error: "  # how every such line starts (an mpi rank's too)


class MaxflowError(Exception):
    """A failure the user can act on: printed as one line, exit code 2."""

    exit_code = 2


class InputError(MaxflowError):
    """Bad input data: which file, which line, what was expected."""

    def __init__(self, source: str, line: int | None, message: str):
        self.source = source
        self.line = line
        self.message = message
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {message}")


class ParameterError(MaxflowError):
    """A parameter outside what a command, a generator or a solver accepts."""


class SolverUnavailable(MaxflowError):
    """A solver that cannot run here (no GPU, no PyCUDA); says which and why."""


class CheckFailed(MaxflowError):
    """The answer certificate does not hold: a bug, reported loudly, exit code 1."""

    exit_code = 1


class BenchFailed(MaxflowError):
    """A benchmark whose solvers disagree on a flow value, whose certificate fails, or that is
    slower than `bench compare --fail-if-slower` allows: exit code 1."""

    exit_code = 1


class Interrupted(KeyboardInterrupt):
    """SIGINT (Ctrl-C) or SIGTERM: unwinds the command as Ctrl-C does, so temporary output
    files are removed, and exits with 128 + the signal number."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class RanksFailed(MaxflowError):
    """The MPI ranks of the `mpi` solver failed or outlasted their time: exit code 1."""

    exit_code = 1
