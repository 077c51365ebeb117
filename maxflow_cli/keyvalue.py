"""One grammar for the ``KEY=VALUE`` lists that options take (``bench --solvers``'s solver
parameters, a generator spec's fields): comma-separated items, each a key, '=' and a value,
no key twice. The callers read the values; the errors name where the list came from."""

from typing import Callable, Iterator

from maxflow_cli.errors import ParameterError


def comma_items(text: str, where: str, noun: str) -> Iterator[str]:
    """The items of ``text`` between its commas, stripped, in order; an empty one (two commas,
    or one at an end) is refused when it is reached, after the items before it."""
    for item in text.split(","):
        if not item.strip():
            raise ParameterError(f"{where}: an empty {noun} (two commas, or one at an end)")
        yield item.strip()


def assignment(item: str, where: str, given: dict, name: str = "KEY",
               key_of: Callable[[str], str] = str) -> tuple[str, str]:
    """``KEY=VALUE`` -> (``key_of(KEY)``, VALUE), both stripped; refuses an item without '=',
    or with nothing on a side of it, and a key already in ``given``."""
    key, equals, value = (part.strip() for part in item.partition("="))
    if not (equals and key and value):
        raise ParameterError(f"{where}: expected {name}=VALUE, not {item!r}")
    key = key_of(key)
    if key in given:
        raise ParameterError(f"{where}: '{key}' is given twice")
    return key, value
