"""The subcommands of `maxflow`, one module each, and the option type they share."""

import math

import click


class FiniteFloat(click.FloatRange):
    """A float option, within optional bounds, that refuses nan and infinities: a bounds check
    lets nan through, since every comparison with it is false."""

    name = "float"

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number

    def _describe_range(self) -> str:
        """The bounds for --help; nothing without any (click would print "x<=None")."""
        if self.min is None and self.max is None:
            return ""
        return super()._describe_range()
