"""maxflow_cli.keyvalue: the one KEY=VALUE grammar of bench's options."""

import pytest

from maxflow_cli.errors import ParameterError
from maxflow_cli.keyvalue import assignment, comma_items


def test_items_are_stripped_and_an_empty_one_refused_where_it_is_reached():
    items = comma_items(" a=1 , b=2,,c=3", "--x", "item")
    assert [next(items), next(items)] == ["a=1", "b=2"]
    with pytest.raises(ParameterError, match=r"^--x: an empty item \(two commas"):
        next(items)


def test_an_assignment_is_split_once_its_key_normalised_and_refused_twice():
    assert assignment(" kernel-cycles = a=b ", "w", {}, key_of=str.upper) == (
        "KERNEL-CYCLES", "a=b")
    with pytest.raises(ParameterError, match="^w: 'a' is given twice$"):
        assignment("a=2", "w", {"a": 1})


@pytest.mark.parametrize("item", ["a", "a=", "=1", " = "])
def test_an_assignment_needs_a_key_and_a_value(item):
    with pytest.raises(ParameterError, match=f"^w: expected NAME=VALUE, not {item!r}$"):
        assignment(item, "w", {}, "NAME")
