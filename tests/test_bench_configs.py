"""bench.configs: solver configurations NAME[@DEVICE][:KEY=VALUE,...], parsed, checked and
labelled."""

import pytest

from maxflow_cli.bench.configs import label, parse_configurations
from maxflow_cli.errors import ParameterError
from maxflow_cli.registry import get_solver


def parsed(text: str) -> list[tuple[str, str | None, dict]]:
    return [(c.spec.name, c.device, c.params) for c in parse_configurations(text)]


def test_a_list_of_configurations_with_devices_and_typed_parameters():
    assert parsed("hipr, cuda@cpu:kernel_cycles=32,block_size=64 ,lockfree:threads=1,"
                  "hipr:global_update_frequency=0.25") == [
        ("hipr", None, {}),
        ("cuda", "cpu", {"kernel_cycles": 32, "block_size": 64}),
        ("lockfree", None, {"threads": 1}),
        ("hipr", None, {"global_update_frequency": 0.25}),
    ]


def test_keys_may_be_spelled_as_the_flags_are():
    assert parsed("cuda:kernel-cycles=8") == [("cuda", None, {"kernel_cycles": 8})]


def test_the_same_solver_twice_with_different_parameters():
    assert parsed("lockfree:threads=1,lockfree") == [
        ("lockfree", None, {"threads": 1}), ("lockfree", None, {})]


def test_labels_name_device_and_given_parameters_in_the_solvers_order():
    cuda = get_solver("cuda")
    assert label(cuda, "gpu", {}) == "cuda"
    assert label(cuda, "cpu", {"kernel_cycles": 32}) == "cuda@cpu:kernel_cycles=32"
    one, other = parse_configurations(
        "cuda:block_size=64,kernel_cycles=32,cuda:kernel_cycles=32,block_size=64")
    assert (label(cuda, "gpu", one.params) == label(cuda, "gpu", other.params)
            == "cuda:kernel_cycles=32,block_size=64")
    assert label(get_solver("hipr"), "cpu",
                 {"global_update_frequency": 0.25}) == "hipr:global_update_frequency=0.25"


@pytest.mark.parametrize("text, message", [
    ("hipr,,lockfree", "an empty item"),
    ("hipr,", "an empty item"),
    ("cuda:kernel_cycles=32,kernel_cycles=64", "'kernel_cycles' is given twice"),
    ("cuda:kernel_cycles=32,kernel-cycles=64", "'kernel_cycles' is given twice"),
    ("cuda:kernel_cycles=", "expected KEY=VALUE"),
    ("cuda:=32", "expected KEY=VALUE"),
    ("cuda:", "nothing after ':'"),
    ("@cpu", "expected NAME[@DEVICE]"),
    ("cuda@", "expected NAME[@DEVICE]"),
    ("hipr,threads=2", "'threads=2' follows no NAME:KEY=VALUE"),
    ("nope", "unknown solver 'nope'"),
    ("cuda:threads=2",
     "solver 'cuda' has no parameter 'threads' (it takes kernel_cycles, block_size)"),
    ("cuda:kernel_cycles=3.5", "kernel_cycles='3.5' is not an integer"),
    ("hipr:global_update_frequency=fast", "global_update_frequency='fast' is not a number"),
    ("hipr:global_update_frequency=nan", "--global-update-frequency nan: must be a finite number"),
    ("", "names no solver configuration"),
    ("cuda:kernel_cycles=0", "--kernel-cycles 0: must be in 1..2147483647"),
    ("cuda:block_size=2048", "--block-size 2048: must be in 32..1024"),
])
def test_bad_configurations_are_refused_saying_what_is_wrong(text, message):
    with pytest.raises(ParameterError, match="--solvers") as error:
        parse_configurations(text)
    assert message in str(error.value)
