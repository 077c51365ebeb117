"""Generator parameters: integers, words that name values, and shapes, parsed and checked."""

import pytest

from maxflow_cli.errors import ParameterError
from maxflow_cli.generators.family import Parameter, check_limits

FUNCTION = Parameter("function", "which graph", 1, 3, words=("mesh", "rlg", "rlg2"))
SHAPE = Parameter("shape", "W x H or W x H x D", 2, 100, dimensions=(2, 3))


def test_words_stand_for_values_from_the_minimum():
    assert [FUNCTION.parse(text) for text in ("mesh", "RLG", " rlg2 ", "2")] == [1, 2, 3, 2]
    with pytest.raises(ParameterError, match="--function: 'grid' is not an integer or one of"):
        FUNCTION.parse("grid")


def test_shapes_are_tuples_of_two_or_three_sizes():
    assert SHAPE.parse("4x5") == (4, 5)
    assert SHAPE.parse("4X5x6") == (4, 5, 6)
    assert SHAPE.show((4, 5, 6)) == "4x5x6"
    for bad in ("4", "4x", "4x5x6x7", "axb", ""):
        with pytest.raises(ParameterError, match="is not AxB or AxBxC"):
            SHAPE.parse(bad)


def test_limits_apply_to_each_size_of_a_shape():
    check_limits("grid", (SHAPE,), {"shape": (2, 100, 50)})
    with pytest.raises(ParameterError,
                       match=r"each size of --shape must be in \[2, 100\], not 1x5"):
        check_limits("grid", (SHAPE,), {"shape": (1, 5)})
    with pytest.raises(ParameterError, match=r"--function must be in \[1, 3\], not 4"):
        check_limits("washington", (FUNCTION,), {"function": 4})
