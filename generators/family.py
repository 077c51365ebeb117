"""What a generator family declares: its parameters with their limits, and how it builds.

One :class:`Family` per module; the registry (``__init__``) collects them, and the ``gen``
command builds its options and help from these tables, so limits and help live here once.
"""

import math
from dataclasses import dataclass
from typing import Callable

from maxflow_cli.errors import ParameterError
from maxflow_cli.limits import MAX_ARCS, MAX_VERTICES
from maxflow_cli.memory import NETWORK_BYTES_PER_ARC
from maxflow_cli.network import Network

DEFAULT_SEED = 1
"""The seed of an instance made without one: a family's, a preset's, a bench spec's."""


@dataclass(frozen=True)
class Parameter:
    """One integer parameter: keyword ``name``, option ``--name``, inclusive limits.

    Two variants keep the table declarative: ``words`` names the values ``minimum``,
    ``minimum + 1``, ... (washington's ``--function rlg``), and ``dimensions = (low, high)``
    makes the value a shape ``AxB`` of ``low`` to ``high`` sizes, each within the limits
    (a grid's ``--shape 512x512x64``), held as a tuple.
    """

    name: str
    help: str
    minimum: int
    maximum: int
    default: int | tuple[int, ...] | None = None  # None: required (a seed: DEFAULT_SEED)
    words: tuple[str, ...] = ()
    dimensions: tuple[int, int] | None = None

    def __post_init__(self):
        """Every family's seed defaults to DEFAULT_SEED, as a preset's does."""
        if self.name == "seed" and self.default is None:
            object.__setattr__(self, "default", DEFAULT_SEED)

    @property
    def option(self) -> str:
        return f"--{self.name}"

    @property
    def metavar(self) -> str:
        return self.name.upper()

    @property
    def is_integer(self) -> bool:
        """A plain integer (ranges LO..HI apply in bench specs)."""
        return not self.words and self.dimensions is None

    def parse(self, text: str) -> int | tuple[int, ...]:
        """The value that ``text`` stands for, or a ParameterError naming the option."""
        text = text.strip()
        if text.lower() in self.words:
            return self.minimum + self.words.index(text.lower())
        try:
            if self.dimensions is None:
                return int(text)
            sizes = tuple(int(size) for size in text.lower().split("x"))
        except ValueError:
            sizes = ()
        if self.dimensions is not None and self.dimensions[0] <= len(sizes) <= self.dimensions[1]:
            return sizes
        raise ParameterError(f"{self.option}: {text!r} is not {self.expected}")

    @property
    def expected(self) -> str:
        """What a value looks like, for errors and help."""
        if self.dimensions is not None:
            low, high = self.dimensions
            return " or ".join("x".join("ABCDEFGH"[:k]) for k in range(low, high + 1))
        if self.words:
            return f"an integer or one of {', '.join(self.words)}"
        return "an integer"

    def show(self, value) -> str:
        """``value`` as an option takes it: ``512x512`` for a shape."""
        return "x".join(map(str, value)) if isinstance(value, tuple) else str(value)

    def within(self, value) -> bool:
        """Whether the value (each size of a shape) is inside the limits."""
        sizes = value if isinstance(value, tuple) else (value,)
        return all(self.minimum <= size <= self.maximum for size in sizes)


@dataclass(frozen=True)
class Flag:
    """A boolean option that changes only the text written, not the network."""

    name: str
    help: str

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class Family:
    """A generator family: ``make(**params) -> Network``; ``write(stream, **params, **flags)``
    emits the original program's exact text; ``size(**params) -> (n, m, approximate bytes)``;
    ``check(**params)`` raises ParameterError for parameters it refuses (make and write call it).
    """

    name: str
    summary: str
    parameters: tuple[Parameter, ...]
    make: Callable[..., Network]
    write: Callable[..., None]
    size: Callable[..., tuple[int, int, int]]
    check: Callable[..., None]
    flags: tuple[Flag, ...] = ()
    bytes_per_arc: int = NETWORK_BYTES_PER_ARC
    """Peak bytes per arc while generating: the network and the generator's own arrays."""

    @property
    def seeded(self) -> bool:
        """Whether it draws random numbers from a seed (every family but AK's)."""
        return any(parameter.name == "seed" for parameter in self.parameters)

    def with_seed(self, params: dict, seed: int | None, where: str) -> dict:
        """``params`` with the seed (DEFAULT_SEED where None) where the family takes one; a
        seed given to one that draws nothing is refused (take_seed)."""
        if seed is not None:
            self.take_seed(where)
        return params | {"seed": DEFAULT_SEED if seed is None else seed} if self.seeded else params

    def take_seed(self, where: str) -> None:
        """Refuse a seed given (``where``) to a family that draws no random numbers."""
        if not self.seeded:
            raise ParameterError(f"{where}: {self.name} draws no random numbers; it takes no "
                                 "seed")

    def complete(self, params: dict) -> dict:
        """``params`` with the defaults of those not given; refuses unknown and missing names."""
        names = [parameter.name for parameter in self.parameters]
        unknown = sorted(set(params) - set(names))
        if unknown:
            raise ParameterError(
                f"{self.name}: unknown parameter(s) {', '.join(unknown)}; known: {', '.join(names)}"
            )
        given = {p.name: p.default for p in self.parameters if p.default is not None} | params
        missing = [p.option for p in self.parameters if p.name not in given]
        if missing:
            raise ParameterError(f"{self.name}: missing {', '.join(missing)}")
        return given


def check_limits(family_name: str, parameters: tuple[Parameter, ...], values: dict) -> None:
    """Refuse a value outside its parameter's limits, naming the option."""
    for parameter in parameters:
        value = values[parameter.name]
        if not parameter.within(value):
            each = "each size of " if parameter.dimensions else ""
            raise ParameterError(
                f"{family_name}: {each}{parameter.option} must be in "
                f"[{parameter.minimum}, {parameter.maximum}], not {parameter.show(value)}"
            )


def check_size(family_name: str, n: int, m: int) -> None:
    """Refuse networks whose vertex or arc count does not fit the reader's and solvers' limits."""
    if n > MAX_VERTICES or m > MAX_ARCS:
        raise ParameterError(
            f"{family_name}: {n:,} vertices and {m:,} arcs is too large "
            f"(at most {MAX_VERTICES:,} vertices and {MAX_ARCS:,} arcs)"
        )


def mean_digits(top: int) -> float:
    """Average number of decimal digits of an integer drawn uniformly from 1..top."""
    total, low = 0, 1
    while low <= top:
        high = min(top, 10 * low - 1)
        total += (high - low + 1) * len(str(low))
        low *= 10
    return total / max(top, 1)


def text_size(n: int, m: int, max_capacity: int, widths: tuple[int, int, int] = (0, 0, 0)) -> int:
    """Approximate bytes of a DIMACS file: ``m`` arc lines with ids ~ uniform in 1..n."""
    id_digits, capacity_digits = mean_digits(n), mean_digits(max_capacity)
    line = 2 + sum(
        1 + max(width, digits)
        for width, digits in zip(widths, (id_digits, id_digits, capacity_digits))
    )
    return math.ceil(m * line) + 200
