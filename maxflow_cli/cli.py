"""The `maxflow` command group: the one place where errors become messages and exit codes."""

import importlib
import sys

import click

from maxflow_cli import __version__
from maxflow_cli.errors import MaxflowError


class MaxflowGroup(click.Group):
    """A click group that turns the project's errors into one line on stderr, never a traceback,
    and imports a command's module only when that command runs (or help lists them all):
    `maxflow gen` need not load the solvers and the benchmark."""

    COMMANDS = {"solve": "maxflow_cli.commands.solve", "gen": "maxflow_cli.commands.gen",
                "bench": "maxflow_cli.commands.bench"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.COMMANDS:
            return None
        return getattr(importlib.import_module(self.COMMANDS[name]), name)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except MaxflowError as error:
            _fail(str(error), error.exit_code)
        except MemoryError:
            _fail("out of memory: the instance is too large for this machine", 2)
        except KeyboardInterrupt:
            _fail("interrupted", 130)


def _fail(message: str, exit_code: int) -> None:
    click.echo(f"maxflow: error: {message}", err=True)
    sys.exit(exit_code)


@click.group(cls=MaxflowGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="maxflow")
def main() -> None:
    """Solve, generate and benchmark maximum-flow problems (DIMACS `max` format)."""
