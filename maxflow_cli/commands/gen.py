"""`maxflow gen`: write an instance of a generator family, or of a named preset, as DIMACS.

The family subcommands, their options and the help are built from the generator registry
(``maxflow_cli.generators``), so a family's parameters and limits are declared once.
"""

import sys

import click
from rich.table import Table

from maxflow_cli.bench.report import console_for
from maxflow_cli.errors import ParameterError
from maxflow_cli.generators import FAMILIES, PRESETS, Family, Parameter, held_size, preset
from maxflow_cli.generators.family import DEFAULT_SEED
from maxflow_cli.memory import human_bytes
from maxflow_cli.outputs import atomic_output, check_writable

LARGE_OUTPUT = 100_000_000
"""Bytes from which the size is announced on stderr before generating."""

OUTPUT_HELP = "write here (atomically; .gz/.bz2/.xz compress) instead of stdout"


def _describe(parameter: Parameter) -> str:
    """Help text with the limits and the default, from the registry table."""
    name = "each size" if parameter.dimensions else parameter.metavar
    if parameter.minimum == -parameter.maximum:
        limits = f"|{name}| <= {parameter.maximum}"
    else:
        limits = f"{parameter.minimum} <= {name} <= {parameter.maximum}"
    default = (f"; default {parameter.show(parameter.default)}"
               if parameter.default is not None else "")
    return f"{parameter.help} ({limits}{default})"


class ParameterType(click.ParamType):
    """A generator parameter's values as a click type: words and shapes as well as integers."""

    def __init__(self, parameter: Parameter):
        self.parameter = parameter
        self.name = parameter.expected

    def convert(self, value, option, ctx):
        if not isinstance(value, str):
            return value  # a default, already a value
        try:
            return self.parameter.parse(value)
        except ParameterError as error:
            self.fail(str(error).split(": ", 1)[1], option, ctx)


def _generate(family: Family, params: dict, flags: dict, output: str) -> None:
    """Check the parameters, the output and the memory the network takes (generators build it
    whole, then write it), announce a large output on stderr, then write the instance."""
    family.check(**params)
    check_writable(output, "-o")
    n, m, approximate = held_size(family, params)
    if approximate >= LARGE_OUTPUT:
        click.echo(
            f"maxflow: {family.name}: {n:,} vertices, {m:,} arcs, about {human_bytes(approximate)}",
            err=True,
        )
    with atomic_output(output) as stream:
        family.write(stream, **params, **flags)


def _family_command(family: Family) -> click.Command:
    """The subcommand of one family, its options taken from the family's parameter table."""
    options = [
        click.Option(
            [p.option],
            type=int if p.is_integer else ParameterType(p),
            metavar=p.metavar,
            help=_describe(p),
            **({"required": True} if p.default is None else {"default": p.default}),
        )
        for p in family.parameters
    ]
    options += [click.Option([flag.option], is_flag=True, help=flag.help) for flag in family.flags]
    options.append(click.Option(["-o", "--output"], default="-", metavar="FILE", help=OUTPUT_HELP))

    def callback(output: str, **values) -> None:
        flags = {flag.name: values.pop(flag.name) for flag in family.flags}
        _generate(family, values, flags, output)

    return click.Command(family.name, params=options, callback=callback, help=family.summary + ".")


class GenGroup(click.Group):
    """Lists each family with its parameters (from the registry) in place of bare command names."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for family in FAMILIES.values():
            rows.append((family.name, family.summary))
            rows += [(f"  {p.option} {p.metavar}", _describe(p)) for p in family.parameters]
            rows += [(f"  {flag.option}", flag.help) for flag in family.flags]
        with formatter.section("Families (maxflow gen FAMILY --help for one)"):
            formatter.write_dl(rows)


def _list_presets() -> None:
    """One row per preset: name, family, parameters, vertices, arcs, approximate file size."""
    table = Table(box=None, header_style="bold", pad_edge=False)
    for column in ("preset", "family", "parameters"):
        table.add_column(column)
    for column in ("vertices", "arcs", "file size"):
        table.add_column(column, justify="right")
    for item in PRESETS.values():
        n, m, approximate = item.size()
        family = FAMILIES[item.family]
        parameters = " ".join(f"--{p.name} {p.show(item.params[p.name])}"
                              for p in family.parameters if p.name in item.params)
        table.add_row(item.name, item.family, parameters, f"{n:,}", f"{m:,}",
                      f"~{human_bytes(approximate)}")
    console_for(sys.stdout).print(table)


@click.group("gen", cls=GenGroup, invoke_without_command=True)
@click.option("--list-presets", is_flag=True,
              help="list the papers' instance sizes and the quick suite's, and exit")
@click.option(
    "--preset", "preset_name", metavar="NAME", help="make the preset NAME (see --list-presets)"
)
@click.option("--seed", type=int, help=f"seed for --preset [default: {DEFAULT_SEED}, as for a "
                                       "family, and a preset in 'maxflow bench']")
@click.option("-o", "--output", default="-", metavar="FILE", help=OUTPUT_HELP)
@click.pass_context
def gen(
    ctx: click.Context, list_presets: bool, preset_name: str | None, seed: int | None, output: str
) -> None:
    """Generate max-flow instances: the 1991 DIMACS generators' output byte for byte, and
    synthetic vision grids (grid).

    \b
    maxflow gen genrmf --a 24 --b 192 -o long.max
    maxflow gen --preset washington-rlg-wide-512 --seed 7 -o w512.max.gz
    """
    given = list_presets or preset_name is not None or seed is not None or output != "-"
    if ctx.invoked_subcommand is not None:
        if given:
            raise ParameterError(
                "give --seed and -o after the family name (--preset and --list-presets take none)"
            )
    elif list_presets:
        _list_presets()
    elif preset_name is not None:
        chosen = preset(preset_name)
        maker = FAMILIES[chosen.family]
        _generate(maker, maker.with_seed(chosen.params, seed, "--seed"), {}, output)
    elif given:
        raise ParameterError("--seed and -o need --preset or a family")
    else:
        click.echo(ctx.get_help())


for _family in FAMILIES.values():
    gen.add_command(_family_command(_family))
