"""The solver registry: one calling convention, parameters and devices checked up front."""

import pytest

from maxflow_cli.errors import ParameterError
from maxflow_cli.solvers import (REGISTRY, SolveOptions, all_parameters, get_solver,
                                 parameter_defaults)


def test_every_solver_is_described_and_cites_its_seed():
    for name, spec in REGISTRY.items():
        assert spec.name == name and spec.summary and spec.citation
        assert spec.devices


def test_defaults_are_filled_in_and_unknown_parameters_refused():
    hipr = get_solver("hipr")
    options = hipr.resolve(SolveOptions(params={"alpha": 3}))
    assert options.params == {"global_update_frequency": 0.5, "alpha": 3, "beta": 12}
    assert options.device == "cpu"
    with pytest.raises(ParameterError, match="--kernel-cycles does not apply to solver 'hipr'"):
        hipr.resolve(SolveOptions(params={"kernel_cycles": 5}))
    with pytest.raises(ParameterError, match="runs on cpu, not on 'gpu'"):
        hipr.resolve(SolveOptions(device="gpu"))


def test_unknown_solver():
    with pytest.raises(ParameterError, match="unknown solver 'nope'"):
        get_solver("nope")


def test_parameters_become_flags():
    assert all_parameters()["global_update_frequency"].flag == "--global-update-frequency"


def test_defaults_are_shown_per_solver_where_they_differ():
    assert parameter_defaults("alpha") == "6"
    shown = parameter_defaults("block_size").split(", ")
    assert "cuda 32" in shown and "gpu-bfs 1024" in shown


def test_parameters_outside_their_limits_are_refused():
    hipr = get_solver("hipr")
    with pytest.raises(ParameterError, match="--global-update-frequency -1: must be in 0.0.."):
        hipr.resolve(SolveOptions(params={"global_update_frequency": -1}))
    with pytest.raises(ParameterError, match="--alpha 10000000: must be in 0..1000000"):
        hipr.resolve(SolveOptions(params={"alpha": 10**7}))
    assert hipr.resolve(SolveOptions(params={"global_update_frequency": 0})).params[
        "global_update_frequency"] == 0
