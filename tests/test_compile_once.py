"""A run compiles each Numba function once, in one type signature, and only what it uses: a
function compiled once per literal value or per prange index type (int64 and uint64) costs its
compile time again on a first run (issue 13, item 19). Each case runs in a fresh process on an
empty Numba cache (a function loaded from the cache brings the code of those it calls with it,
without asking them), whose dispatchers then hold the signatures the run compiled."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_RUN = """
import json, numba
from maxflow_cli import generators
from maxflow_cli.registry import SolveOptions, get_solver
from maxflow_cli.residual import build_residual
spec = get_solver({solver!r})
threads = {{"threads": min(2, numba.config.NUMBA_NUM_THREADS)}}  # the parallel code, even here
params = threads if any(p.name == "threads" for p in spec.parameters) else {{}}
options = spec.resolve(SolveOptions(want_flow={want_flow}, params=params))
spec.prepare(options)
for family, sizes in (("genrmf", dict(a=3, b=4, c1=1, c2=100)),
                       ("washington-rlg", dict(rows=4, levels=6, cap=100))):
    spec.solve(build_residual(generators.make(family, seed=1, **sizes)), options)
signatures = {{}}
for module in ("maxflow_cli.pushrelabel.parallel_relabel", "maxflow_cli.pushrelabel.highest_label",
               "maxflow_cli.solvers.lockfree", "maxflow_cli.generators.genrmf",
               "maxflow_cli.generators.washington_rlg", "maxflow_cli.generators.rng"):
    namespace = __import__(module, fromlist=["_"])
    for name, value in vars(namespace).items():
        if isinstance(value, numba.core.registry.CPUDispatcher) and \\
                value.py_func.__module__ == module:
            signatures[module.rsplit(".", 1)[1] + "." + name] = [str(s) for s in value.signatures]
print(json.dumps(signatures))
flowing = spec.resolve(SolveOptions(want_flow=True, params=params))
spec.solve(build_residual(generators.make("genrmf", seed=1, a=3, b=4, c1=1, c2=100)), flowing)
from maxflow_cli.pushrelabel import highest_label
print(json.dumps({{name: [str(s) for s in getattr(highest_label, name).signatures]
                  for name in ("hipr_stage_two", "_return_excess")}}))
"""


def signatures_after(solver: str, cache: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Each function's signatures after a run without a flow, then stage 2's after one with;
    run outside the checkout, to import the installed package as the other subprocess tests do."""
    done = subprocess.run([sys.executable, "-c", _RUN.format(solver=solver, want_flow=False)],
                          capture_output=True, text=True, timeout=900, cwd=cache,
                          env=os.environ | {"NUMBA_CACHE_DIR": str(cache)})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    return json.loads(lines[-2]), json.loads(lines[-1])


@pytest.mark.parametrize("solver", ["hipr", "lockfree"])
def test_a_run_compiles_each_function_once_and_stage_two_only_for_a_flow(solver, tmp_path):
    signatures, stage_two = signatures_after(solver, tmp_path)
    # block_of takes a vertex id from an int32 array and from int64 arithmetic alike: its two
    # signatures are a fraction of a second, and both are real uses
    twice = {name: found for name, found in signatures.items()
             if len(found) > 1 and name != "parallel_relabel.block_of"}
    assert twice == {}
    assert signatures["highest_label.hipr_stage_two"] == []
    assert {name: len(found) for name, found in stage_two.items()} == {
        "hipr_stage_two": 1, "_return_excess": 1}
