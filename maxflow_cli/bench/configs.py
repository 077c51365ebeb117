"""What ``maxflow bench --solvers`` and ``--baseline`` name: solver configurations.

A configuration is ``NAME[@DEVICE][:KEY=VALUE,...]``, e.g. ``cuda@gpu:kernel_cycles=32``; a
list separates configurations by commas, and a ``KEY=VALUE`` item after a configuration
with a ``:`` adds to its parameters: ``hipr,cuda:kernel_cycles=32,block_size=64,lockfree``
is three configurations. Keys are the solver's parameters (``kernel_cycles`` or
``kernel-cycles``); each value is parsed by the parameter's type and checked by its bounds
now, before anything runs.
"""

from dataclasses import dataclass

from maxflow_cli.errors import ParameterError
from maxflow_cli.keyvalue import assignment, comma_items
from maxflow_cli.registry import SolverSpec, get_solver


@dataclass(frozen=True)
class Configuration:
    """A solver as asked for: its spec, the device named (None: its default) and the
    parameters given, typed and checked."""

    spec: SolverSpec
    device: str | None
    params: dict


def _add_parameter(spec: SolverSpec, params: dict, item: str, where: str) -> None:
    """Parse ``KEY=VALUE`` for ``spec`` into ``params``; refuses unknown, empty or repeated keys."""
    key, text = assignment(item, where, params, key_of=lambda key: key.replace("-", "_"))
    known = {parameter.name: parameter for parameter in spec.parameters}
    if key not in known:
        takes = f"it takes {', '.join(known)}" if known else "it takes none"
        raise ParameterError(f"{where}: solver '{spec.name}' has no parameter '{key}' ({takes})")
    try:
        params[key] = known[key].parse(text)
    except ParameterError as error:
        raise ParameterError(f"{where}: {error}") from None


def _start(item: str, where: str) -> tuple[SolverSpec, str | None, str]:
    """``NAME[@DEVICE][:KEY=VALUE]`` -> the spec, the device and the first assignment ('' if
    none)."""
    head, colon, first = item.partition(":")
    name, at, device = (part.strip() for part in head.partition("@"))
    if not name or (at and not device):
        raise ParameterError(f"{where}: expected NAME[@DEVICE][:KEY=VALUE,...], not {item!r}")
    if colon and not first.strip():
        raise ParameterError(f"{where}: nothing after ':' in {item!r}")
    try:
        spec = get_solver(name)
    except ParameterError as error:
        raise ParameterError(f"{where}: {error}") from None
    return spec, device or None, first


def parse_configurations(text: str, option: str = "--solvers") -> list[Configuration]:
    """Every configuration of a comma-separated list (see the module docstring)."""
    where = f"{option} {text!r}"
    if not text.strip():
        raise ParameterError(f"{where}: names no solver configuration")
    configurations: list[Configuration] = []
    takes_more = False  # whether the last configuration had a ':' (so KEY=VALUE items add to it)
    for item in comma_items(text, where, "item"):
        if "=" in item and ":" not in item.partition("=")[0]:
            if not takes_more:
                raise ParameterError(f"{where}: {item!r} follows no NAME:KEY=VALUE")
            _add_parameter(configurations[-1].spec, configurations[-1].params, item, where)
            continue
        spec, device, first = _start(item, where)
        configurations.append(Configuration(spec, device, {}))
        takes_more = bool(first)
        if first:
            _add_parameter(spec, configurations[-1].params, first, where)
    return configurations


def label(spec: SolverSpec, device: str, given: dict) -> str:
    """A configuration's stable name: ``cuda``, ``cuda@cpu``,
    ``cuda:block_size=64,kernel_cycles=32``.

    The device shows where it is not the solver's own (a GPU solver's CPU twin); the given
    parameters show in the order the solver declares them, whatever order they came in.
    """
    device_part = "" if device == spec.devices[0] else f"@{device}"
    params = ",".join(f"{p.name}={given[p.name]}" for p in spec.parameters if p.name in given)
    return f"{spec.name}{device_part}{':' + params if params else ''}"
